/**
 * What this instance serves (`docs/protocol.md` §10.3): its environments and the key ring's
 * grants for them, kept in step with every committed op, this instance's or another's
 * (`Applier.onCommitted`): environments created, renamed or deleted, keys created and revoked
 * elsewhere take effect here too. Idempotent, so this instance's own ops pass through harmlessly.
 */

import type { Environment, MemoryState, StoredApiKey } from '../kernel/model.js';
import type { BaseOp, KernelOp } from '../kernel/ops.js';
import { grantsOf, storedGrant } from './grants.js';
import { type Grant, type KeyRing, keyDigest, keyIdOf } from './key-ring.js';
import type { AdminOp } from './ops.js';

export interface AdminServiceEvents {
  /** A new environment: give it a stream view. */
  environment(env: Environment): void;
  /** An environment was deleted (its keys are revoked already): drop its stream view. */
  removed?(env: Environment): void;
  /** Anything the overview or the keys list shows changed. */
  structure(): void;
  /** A key was revoked: close what it opened. */
  revoked(grant: Grant): void;
}

export class ServedEnvironments {
  readonly #db: MemoryState;
  readonly #keys: KeyRing;
  readonly #events: AdminServiceEvents;
  readonly #served: Environment[];

  constructor(db: MemoryState, keys: KeyRing, served: readonly Environment[], events: AdminServiceEvents) {
    this.#db = db;
    this.#keys = keys;
    this.#served = [...served];
    this.#events = events;
  }

  /** The environments this server serves, in the order they were set up. */
  get list(): readonly Environment[] {
    return this.#served;
  }

  readonly committed = (op: BaseOp): void => {
    // Every op passes through; those of other domains fall to `default`.
    this.#follow(op as KernelOp | AdminOp);
  };

  #follow(op: KernelOp | AdminOp): void {
    switch (op.t) {
      case 'env': {
        const env = this.#db.get(op.id);
        if (!env) return;
        if (env.source === 'dashboard' && !this.#served.includes(env)) {
          for (const { digest, grant } of grantsOf(env, [])) this.#keys.add(digest, grant);
          this.#serve(env);
        }
        const kept = new Set(env.generatedKeys.map((k) => keyIdOf(keyDigest(k.key))));
        for (const grant of this.#keys.grants)
          if (grant.env === env && grant.source === 'generated' && !kept.has(grant.id)) this.#revoke(grant);
        return;
      }
      case 'key': {
        const env = this.#db.get(op.env);
        if (env && !this.#keys.grants.some((g) => g.env === env && g.id === op.key.id))
          this.#addKey(env, op.key);
        return;
      }
      case 'key-del': {
        const grant = this.#keys.grants.find((g) => g.env.id === op.env && g.id === op.id);
        if (grant) this.#revoke(grant);
        return;
      }
      case 'env-del':
        for (const env of this.#served.filter((e) => e.id === op.env && this.#db.get(e.id) !== e))
          this.#unserve(env);
        return;
      case 'project':
      case 'project-del':
      case 'env-name':
      case 'env-approvals':
        this.#events.structure();
        return;
      default:
        return;
    }
  }

  /**
   * Brings the served environments and the key ring in line with memory: for ops committed
   * elsewhere while this instance was starting, before `committed` was listening.
   */
  reconcile(): void {
    // Deleted elsewhere meanwhile.
    for (const env of this.#served.filter((e) => this.#db.get(e.id) !== e)) this.#unserve(env);
    for (const env of this.#db.values()) {
      // Serves a dashboard environment made elsewhere; drops generated keys revoked elsewhere.
      this.#follow({ t: 'env', ...envOp(env) });
      if (!this.#served.includes(env)) continue;
      for (const key of env.apiKeys) this.#follow({ t: 'key', env: env.id, key });
      const stored = new Set(env.apiKeys.map((k) => k.id));
      for (const grant of this.#keys.grants)
        if (grant.env === env && grant.source === 'dashboard' && !stored.has(grant.id)) this.#revoke(grant);
    }
  }

  #serve(env: Environment): void {
    this.#served.push(env);
    this.#events.environment(env);
    this.#events.structure();
  }

  /** A deleted environment: its keys revoked (closing what they opened), no longer served. */
  #unserve(env: Environment): void {
    this.#served.splice(this.#served.indexOf(env), 1);
    for (const grant of this.#keys.grants.filter((g) => g.env === env)) {
      this.#keys.revoke(grant);
      this.#events.revoked(grant);
    }
    this.#events.removed?.(env);
    this.#events.structure();
  }

  #addKey(env: Environment, stored: StoredApiKey): void {
    this.#keys.add(Buffer.from(stored.digest, 'hex'), storedGrant(env, stored));
    this.#events.structure();
  }

  #revoke(grant: Grant): void {
    this.#keys.revoke(grant);
    this.#events.revoked(grant);
    this.#events.structure();
  }
}

/** An environment as its `env` op says it. */
function envOp(env: Environment) {
  const { id, project, environment, epoch, generatedKeys: keys, source } = env;
  return { id, project, environment, epoch, keys, source };
}
