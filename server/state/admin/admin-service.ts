/**
 * What only an operator does, through the dashboard (`docs/protocol.md` §10.3): projects,
 * environments and API keys, and the admin token. Committed through the same ledger as every
 * flag change (`../kernel/ledger.ts`), so each is durable before it is answered. Flags and
 * webhooks are not here: the dashboard changes them through their domains' services, like `/api/v1`.
 */
import type { ApiKeyView } from '../../../src/core/admin-wire.js';
import { ApiError } from '../../errors.js';
import { ADMIN_TOKEN_ACTOR } from '../kernel/actors.js';
import { damagedNamed } from '../kernel/damaged.js';
import { findByName, idFor, isNamed } from '../kernel/env-names.js';
import { newApiKey, newEpoch, randomBase62 } from '../kernel/ids.js';
import type { Ledger } from '../kernel/ledger.js';
import type {
  Access,
  Actor,
  Environment,
  MemoryState,
  StoredApiKey,
  StoredProject,
} from '../kernel/model.js';
import type { BaseOp, KernelOp } from '../kernel/ops.js';
import { type KeyRing, keyDigest, keyHint, keyIdOf } from './key-ring.js';
import type { AdminOp } from './ops.js';
import { type AdminServiceEvents, ServedEnvironments } from './served-environments.js';

/** An API key as the dashboard lists it (never its value): the admin API's shape. */
export type KeyView = ApiKeyView;

export interface ProjectView extends StoredProject {
  source: Environment['source'];
}

export type { AdminServiceEvents } from './served-environments.js';

export const newAdminToken = (): string => `fw_admin_${randomBase62(32)}`;

export class AdminService {
  readonly #db: MemoryState;
  readonly #ledger: Ledger<KernelOp | AdminOp>;
  readonly #keys: KeyRing;
  readonly #serving: ServedEnvironments;
  /** The served environments, as `#serving` keeps them. */
  readonly #served: readonly Environment[];

  constructor(
    db: MemoryState,
    ledger: Ledger<KernelOp | AdminOp>,
    keys: KeyRing,
    served: readonly Environment[],
    events: AdminServiceEvents,
  ) {
    this.#db = db;
    this.#ledger = ledger;
    this.#keys = keys;
    this.#serving = new ServedEnvironments(db, keys, served, events);
    this.#served = this.#serving.list;
  }

  /** The token given, else the one stored, else a new one (stored, so it survives restarts). */
  async adminToken(given: string | undefined): Promise<string> {
    if (given !== undefined) return given;
    if (this.#db.adminToken !== undefined) return this.#db.adminToken;
    // Planned, so instances starting together on one database agree on the first one.
    await this.#ledger.commit('', () =>
      this.#db.adminToken === undefined ? [{ t: 'admin', token: newAdminToken() }] : [],
    );
    return this.#db.adminToken!;
  }

  /** The environments this server serves, in the order they were set up. */
  get environments(): readonly Environment[] {
    return this.#served;
  }

  /** Every project: those of the served environments, and those created here (maybe still empty). */
  projects(): ProjectView[] {
    const out = new Map<string, ProjectView>();
    const rank = { config: 0, default: 1, dashboard: 2 } as const;
    for (const project of this.#db.projects.values())
      out.set(project.key, { ...project, source: 'dashboard' });
    for (const env of this.#served) {
      const seen = out.get(env.project);
      if (!seen) out.set(env.project, { key: env.project, createdAt: env.createdAt, source: env.source });
      else if (rank[env.source] < rank[seen.source]) seen.source = env.source;
    }
    return [...out.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /** The served environment `project/key`, or 404. */
  environment(project: string, key: string): Environment {
    const env = this.#served.find((e) => e.project === project && e.environment === key);
    if (!env)
      throw new ApiError(404, 'NOT_FOUND', `environment ${JSON.stringify(`${project}/${key}`)} not found`);
    return env;
  }

  /** Creates a project, credited to `actor` (its audit record). */
  async createProject(key: string, actor: Actor = ADMIN_TOKEN_ACTOR): Promise<ProjectView> {
    const project: StoredProject = { key, createdAt: new Date().toISOString() };
    await this.#ledger.commit('', () => {
      if (this.projects().some((p) => p.key === key)) {
        throw new ApiError(409, 'CONFLICT', `project ${JSON.stringify(key)} already exists`);
      }
      return [{ t: 'project', project, by: actor, at: project.createdAt }];
    });
    // `committed` has told the overview, as every other instance does.
    return { ...project, source: 'dashboard' };
  }

  /** Creates environment `project/key`, credited to `actor` (its audit record). */
  async createEnvironment(
    project: string,
    key: string,
    actor: Actor = ADMIN_TOKEN_ACTOR,
  ): Promise<Environment> {
    // A project created through another instance a moment ago counts.
    if (!(await this.#ledger.readSettled('', () => this.projects().some((p) => p.key === project)))) {
      throw new ApiError(404, 'NOT_FOUND', `project ${JSON.stringify(project)} not found`);
    }
    const name = `${project}/${key}`;
    const taken = () => new ApiError(409, 'CONFLICT', `environment ${JSON.stringify(name)} already exists`);
    if (findByName(this.#served, project, key) || damagedNamed(this.#db, project, key)) throw taken();
    // Its id: the name, unless an environment renamed away holds it (`../kernel/env-names.ts`).
    const id = idFor(this.#db, project, key);
    // Decided against the committed state (on shared storage, under the environment's lock), so
    // of two racing creations, on one instance or two, one wins and the other answers 409.
    await this.#ledger.commit(id, () => {
      const stored = this.#db.get(id);
      if (stored && !isNamed(stored, project, key)) throw taken(); // renamed into it meanwhile
      const named = findByName(this.#db.values(), project, key);
      if (named && named !== stored) throw taken();
      if (stored && (stored.source === 'dashboard' || this.#served.includes(stored))) throw taken();
      if (stored) {
        // Kept in the store from an earlier set-up (a config that no longer names it, or the
        // default project): it comes back whole, now the dashboard's, so it is served after restarts.
        const { epoch, generatedKeys: keys } = stored;
        const at = new Date().toISOString();
        return [{ t: 'env', id, project, environment: key, epoch, keys, source: 'dashboard', by: actor, at }];
      }
      const createdAt = new Date().toISOString();
      return [
        {
          t: 'env',
          id,
          project,
          environment: key,
          epoch: newEpoch(),
          keys: [],
          source: 'dashboard',
          createdAt,
          by: actor,
          at: createdAt,
        },
      ];
    });
    // `committed` has served it, as every other instance does.
    return this.#db.get(id)!;
  }

  /** Keys of an environment, in the order they were made (config ones first). */
  listKeys(env: Environment): KeyView[] {
    return this.#keys.grants
      .filter((g) => g.env === env)
      .map((g) => ({
        id: g.id,
        name: g.name ?? null,
        access: g.access,
        hint: g.actor.hint ?? '',
        source: g.source,
        createdAt: g.createdAt,
        revocable: g.source !== 'config',
        bypassApprovals: g.bypassApprovals === true,
      }));
  }

  /**
   * Creates a key; its value is in the answer and nowhere else (only its digest is stored).
   * `bypassApprovals`: its writes skip the environment's approvals (a `full` key only: the route checks).
   */
  async createKey(
    env: Environment,
    access: Access,
    name: string | null,
    actor: Actor = ADMIN_TOKEN_ACTOR,
    bypassApprovals = false,
  ): Promise<KeyView & { key: string }> {
    const key = newApiKey();
    const digest = keyDigest(key);
    const stored: StoredApiKey = {
      id: keyIdOf(digest),
      name,
      access,
      digest: digest.toString('hex'),
      hint: keyHint(key),
      createdAt: new Date().toISOString(),
      ...(bypassApprovals && { bypassApprovals: true as const }),
    };
    // `committed` adds it to the key ring, as every other instance does.
    await this.#ledger.commit(env.id, () => [
      { t: 'key', env: env.id, key: stored, by: actor, at: stored.createdAt },
    ]);
    return { ...this.listKeys(env).find((k) => k.id === stored.id)!, key };
  }

  /** Revokes a key, credited to `actor` (its audit record). */
  async revokeKey(env: Environment, id: string, actor: Actor = ADMIN_TOKEN_ACTOR): Promise<void> {
    // A key created through another instance a moment ago can be revoked here at once.
    const grant = await this.#ledger.readSettled(env.id, () =>
      this.#keys.grants.find((g) => g.env === env && g.id === id),
    );
    if (!grant) throw new ApiError(404, 'NOT_FOUND', `API key ${JSON.stringify(id)} not found`);
    if (grant.source === 'config') {
      throw new ApiError(409, 'CONFLICT', 'this key is managed by the config file: remove it there');
    }
    if (grant.source === 'dashboard') {
      const at = new Date().toISOString();
      await this.#ledger.commit(env.id, () => [{ t: 'key-del', env: env.id, id, by: actor, at }]);
    } else {
      // Decided against the committed keys, so two revocations at once both stick.
      await this.#ledger.commit(env.id, () => {
        const keys = env.generatedKeys.filter((k) => keyIdOf(keyDigest(k.key)) !== id);
        if (keys.length === env.generatedKeys.length) return [];
        const { project, environment, epoch } = env;
        const at = new Date().toISOString();
        return [{ t: 'env', id: env.id, project, environment, epoch, keys, by: actor, at }];
      });
    }
    // `committed` has revoked it, as every other instance does.
  }

  /**
   * Follows every committed op, this instance's or another's (`Applier.onCommitted`): see
   * `ServedEnvironments.committed`.
   */
  get committed(): (op: BaseOp) => void {
    return this.#serving.committed;
  }

  /** Brings what is served in line with memory (`ServedEnvironments.reconcile`). */
  reconcile(): void {
    this.#serving.reconcile();
  }
}

export { grantsOf, storedGrant } from './grants.js';
