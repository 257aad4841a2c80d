/**
 * The service layer: every management operation on one environment, committed through
 * the storage seam. A write is applied to memory and appended to the journal in one
 * synchronous step (so racing writes see each other: one 201, one 409), answered once
 * the journal says it is durable, and published to change listeners (the stream,
 * webhook delivery) in commit order. Reads wait for pending writes to be durable, so no
 * one reads what a crash could still take back.
 */
import type {
  CreatedWebhook,
  CreateFlagInput,
  CreateWebhookInput,
  Flag,
  FlagType,
  UpdateFlagInput,
  UpdateWebhookInput,
  Webhook,
} from '../../src/core/types.js';
import { ApiError, flagNotFound, webhookNotFound } from '../errors.js';
import { isShared, type SharedStorage, type Storage } from '../store/storage.js';
import { readHistory } from './history.js';
import { newApiKey, newEpoch, newWebhookId, newWebhookSecret } from './ids.js';
import {
  type Actor,
  type ApiKeyGrant,
  type Environment,
  type FlagChange,
  type HistoryEntry,
  type Source,
  type StoredFlag,
  type StoredWebhook,
  signingSecret,
} from './model.js';
import {
  applyOp,
  captureScope,
  type Database,
  type Op,
  scopeOf,
  scopeSnapshot,
  UNKNOWN_ACTOR,
} from './ops.js';
import { toCreatedWebhook, toDelivery, toFlag, toWebhook } from './representation.js';

export type ChangeListener = (change: FlagChange) => void;

/** What a write decides against the current state: the ops to commit and the answer. */
interface Plan<T> {
  ops: Op[];
  result: T;
  /** The flag change the ops make, published once they are durable. */
  change?: FlagChange;
}

/** Plans what a change commits besides itself (webhook deliveries), atomically with it. */
export type CommitPlanner = (change: FlagChange) => Op[];

export class FlagService {
  readonly #db: Database;
  readonly #storage: Storage;
  /** The same storage when several instances share it, else `undefined`. */
  readonly #shared: SharedStorage | undefined;
  readonly #listeners: ChangeListener[] = [];
  readonly #entryListeners: Array<(op: Op) => void> = [];
  #planner: CommitPlanner | undefined;

  readonly #onListenerError: (error: unknown) => void;

  constructor(db: Database, storage: Storage, onListenerError: (error: unknown) => void) {
    this.#db = db;
    this.#storage = storage;
    this.#onListenerError = onListenerError;
    this.#shared = isShared(storage) ? storage : undefined;
    this.#shared?.setApplier({
      apply: (ops) => this.#applyCommitted(ops),
      capture: (scope) => captureScope(this.#db, scope),
      snapshot: (scope) => scopeSnapshot(this.#db, scope),
    });
  }

  /** Sets the planner of ops committed with every flag change (webhook deliveries). */
  setPlanner(planner: CommitPlanner): void {
    this.#planner = planner;
  }

  /**
   * Commits ops that are not a flag change (delivery bookkeeping, keys, projects), all of one
   * scope (`scopeOf`); resolves once durable.
   */
  async commitOps(ops: Op[], onDurable?: () => void): Promise<void> {
    if (ops.length === 0) return;
    await this.#write(scopeOf(ops[0]!), () => ({ ops, result: undefined }), onDurable);
  }

  /**
   * Commits what `plan` answers, decided against the current state (on shared storage: with
   * every instance's commits to `scope` seen, under its lock); `[]` commits nothing, a throw
   * refuses. For what must not be done twice by two instances (a project, the first token).
   */
  async commitPlanned(scope: string, plan: () => Op[]): Promise<void> {
    await this.#write(scope, () => ({ ops: plan(), result: undefined }));
  }

  /**
   * On shared storage, calls `listener` with every op committed by any instance, in commit
   * order per environment, once it is in memory: how an instance learns of keys, environments
   * and deliveries made elsewhere. Never called with a storage of its own.
   */
  onCommitted(listener: (op: Op) => void): void {
    this.#entryListeners.push(listener);
  }

  /** Whether several instances share the storage. */
  get shared(): boolean {
    return this.#shared !== undefined;
  }

  /** Registers a listener for committed flag changes, called in commit order once durable. */
  onChange(listener: ChangeListener): void {
    this.#listeners.push(listener);
  }

  /**
   * The environment `project/environment`, created (with a fresh epoch) if the store
   * has none. `generateKeys` gives a new environment one full and one read-only key.
   */
  async ensureEnvironment(
    project: string,
    environment: string,
    generateKeys: boolean,
    source: Source = generateKeys ? 'default' : 'config',
  ): Promise<Environment> {
    const id = `${project}/${environment}`;
    // Memory holds only what is committed (or, with a storage of its own, being made durable).
    const existing = this.#db.get(id);
    if (existing) return existing;
    await this.#write(id, () => {
      if (this.#db.has(id)) return { ops: [], result: undefined };
      const keys: ApiKeyGrant[] = generateKeys
        ? [
            { key: newApiKey(), access: 'full' },
            { key: newApiKey(), access: 'read-only' },
          ]
        : [];
      const createdAt = new Date().toISOString();
      const epoch = newEpoch();
      return {
        ops: [{ t: 'env', id, project, environment, epoch, keys, source, createdAt }],
        result: undefined,
      };
    });
    return this.#db.get(id)!;
  }

  /** Records where an environment now comes from (the dashboard took it back, or the config names it). */
  async setEnvironmentSource(env: Environment, source: Source): Promise<void> {
    await this.#write(env.id, () => {
      if (env.source === source) return { ops: [], result: undefined };
      const { id, project, environment, epoch, generatedKeys: keys } = env;
      return { ops: [{ t: 'env', id, project, environment, epoch, keys, source }], result: undefined };
    });
  }

  listFlags(env: Environment): Promise<Flag[]> {
    return this.#read(env, () => [...env.flags.values()].sort(byKey).map(toFlag));
  }

  getFlag(env: Environment, key: string): Promise<Flag> {
    return this.#read(env, () => toFlag(this.requireFlag(env, key)));
  }

  /**
   * Resolves once memory holds every committed write to `scope` (an environment's id, or `''`
   * for projects; on shared storage: writes through other instances), for checks made before a
   * write: `requireFlag`, a delivery, a project.
   */
  fresh(scope: string): Promise<void> {
    return this.#shared ? this.#shared.sync(scope) : Promise.resolve();
  }

  /** The stored flag or 404; for validating a PATCH against the flag's type. */
  requireFlag(env: Environment, key: string): StoredFlag {
    const flag = env.flags.get(key);
    if (!flag) throw flagNotFound(key);
    return flag;
  }

  async createFlag(env: Environment, input: CreateFlagInput, actor: Actor): Promise<Flag> {
    const flag = await this.#write(env.id, () => {
      if (env.flags.has(input.key)) {
        throw new ApiError(409, 'CONFLICT', `flag ${JSON.stringify(input.key)} already exists`);
      }
      return this.#insertFlag(env, input, false, actor);
    });
    return toFlag(flag);
  }

  /** Seeds a flag from the config: only where no flag of that key exists, and `enabled` is kept. */
  async seedFlag(env: Environment, input: CreateFlagInput & { enabled: boolean }): Promise<void> {
    await this.#write(env.id, () =>
      env.flags.has(input.key)
        ? { ops: [], result: undefined }
        : this.#insertFlag(env, input, input.enabled, { type: 'config' }),
    );
  }

  #insertFlag(env: Environment, input: CreateFlagInput, enabled: boolean, actor: Actor): Plan<StoredFlag> {
    const now = new Date().toISOString();
    const flag: StoredFlag = {
      key: input.key,
      type: input.type,
      enabled,
      description: input.description ?? null,
      version: 0,
      createdAt: now,
      updatedAt: now,
    };
    if (input.type === 'rollout') flag.percentage = input.percentage ?? 0;
    return { ...this.#flagPlan(env, null, flag, now, actor), result: flag };
  }

  /**
   * Applies a patch to a flag. `patch` may be a function of the flag's type, called against the
   * state the write is decided on (it validates there, and throws to refuse).
   */
  async updateFlag(
    env: Environment,
    key: string,
    patchOrOf: UpdateFlagInput | ((type: FlagType) => UpdateFlagInput),
    actor: Actor,
  ): Promise<Flag> {
    const flag = await this.#write(env.id, () => {
      const before = this.requireFlag(env, key);
      const patch = typeof patchOrOf === 'function' ? patchOrOf(before.type) : patchOrOf;
      const after: StoredFlag = { ...before };
      if (patch.enabled !== undefined) after.enabled = patch.enabled;
      if (patch.percentage !== undefined && before.type === 'rollout') after.percentage = patch.percentage;
      if (patch.description !== undefined) after.description = patch.description;
      if (
        after.enabled === before.enabled &&
        after.percentage === before.percentage &&
        after.description === before.description
      ) {
        // A change that changes nothing commits nothing and emits nothing.
        return { ops: [], result: before };
      }
      const now = new Date().toISOString();
      after.updatedAt = now;
      return { ...this.#flagPlan(env, before, after, now, actor), result: after };
    });
    return toFlag(flag);
  }

  async deleteFlag(env: Environment, key: string, actor: Actor): Promise<void> {
    await this.#write(env.id, () => ({
      ...this.#flagPlan(env, this.requireFlag(env, key), null, new Date().toISOString(), actor),
      result: undefined,
    }));
  }

  /** The environment's flag changes, newest first (`docs/protocol.md` §10.3). */
  history(env: Environment, flag: string | undefined, limit: number): Promise<HistoryEntry[]> {
    return this.#read(env, () => readHistory(env, flag, limit));
  }

  /**
   * Resolves once every write applied to memory so far is durable: what evaluations from memory
   * (OFREP, the overview) answer after. On shared storage, at once unless a batch of writes is
   * being committed; rejects with `UNAVAILABLE` if one that memory held failed to commit.
   */
  settled(): Promise<void> {
    return this.#storage.barrier();
  }

  listWebhooks(env: Environment): Promise<Webhook[]> {
    return this.#read(env, () => [...env.webhooks.values()].sort(byCreation).map(toWebhook));
  }

  getWebhook(env: Environment, id: string): Promise<Webhook> {
    return this.#read(env, () => {
      const hook = env.webhooks.get(id);
      if (!hook) throw webhookNotFound(id);
      return toWebhook(hook);
    });
  }

  async createWebhook(env: Environment, input: CreateWebhookInput): Promise<CreatedWebhook> {
    const hook: StoredWebhook = {
      id: newWebhookId(),
      url: input.url,
      events: input.events,
      secret: newWebhookSecret(),
      active: true,
      createdAt: new Date().toISOString(),
    };
    await this.#write(env.id, () => ({ ops: [{ t: 'webhook', env: env.id, webhook: hook }], result: hook }));
    return toCreatedWebhook(hook);
  }

  async updateWebhook(env: Environment, id: string, patch: UpdateWebhookInput): Promise<Webhook> {
    const hook = await this.#write(env.id, () => {
      const before = env.webhooks.get(id);
      if (!before) throw webhookNotFound(id);
      const after: StoredWebhook = { ...before };
      if (patch.active !== undefined) after.active = patch.active;
      if (patch.events !== undefined) after.events = patch.events;
      if (patch.url !== undefined) after.url = patch.url;
      const same =
        after.active === before.active &&
        after.url === before.url &&
        after.events.length === before.events.length &&
        after.events.every((kind, i) => kind === before.events[i]);
      return { ops: same ? [] : [{ t: 'webhook', env: env.id, webhook: after }], result: after };
    });
    return toWebhook(hook);
  }

  /** The deliveries of a webhook, newest first. */
  listDeliveries(env: Environment, id: string): Promise<Record<string, unknown>[]> {
    return this.#read(env, () => {
      if (!env.webhooks.has(id)) throw webhookNotFound(id);
      return [...env.deliveries.values()]
        .filter((d) => d.webhookId === id)
        .sort((a, b) =>
          a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.id < b.id ? 1 : -1,
        )
        .map(toDelivery);
    });
  }

  /**
   * Replaces the webhook's secret; the secret signing until now keeps signing for `graceMs`
   * so receivers can accept both meanwhile. Answers the new secret, shown this once.
   */
  async rotateSecret(env: Environment, id: string, graceMs: number): Promise<Record<string, unknown>> {
    const after = await this.#write(env.id, () => {
      const before = env.webhooks.get(id);
      if (!before) throw webhookNotFound(id);
      const now = Date.now();
      const rotated: StoredWebhook = {
        ...before,
        secret: newWebhookSecret(),
        previousSecret: signingSecret(before, now),
        previousSecretExpiresAt: now + graceMs,
      };
      return { ops: [{ t: 'webhook', env: env.id, webhook: rotated }], result: rotated };
    });
    return {
      ...toWebhook(after),
      secret: after.secret,
      previousSecretExpiresAt: new Date(after.previousSecretExpiresAt!).toISOString(),
    };
  }

  async deleteWebhook(env: Environment, id: string): Promise<void> {
    await this.#write(env.id, () => {
      if (!env.webhooks.has(id)) throw webhookNotFound(id);
      return { ops: [{ t: 'webhook-del', env: env.id, id }], result: undefined };
    });
  }

  /**
   * Runs a read of memory so that it answers only what is durable: with a storage of its own,
   * the read sees pending writes and is answered once they are durable; on shared storage,
   * memory first catches up with every instance's commits to the environment.
   */
  async #read<T>(env: Environment, read: () => T): Promise<T> {
    if (this.#shared) {
      await this.#shared.sync(env.id);
      return read();
    }
    const result = read();
    await this.#storage.barrier();
    return result;
  }

  /**
   * Decides a write with `plan` and commits its ops as one entry; resolves with the plan's
   * result once durable. With a storage of its own, the plan runs now against memory and its
   * ops are applied at once (racing writes see each other). On shared storage it runs inside
   * the database transaction that holds `scope`, and memory
   * learns the ops when the entry is applied, like any other instance's.
   */
  async #write<T>(scope: string, plan: () => Plan<T>, onDurable?: () => void): Promise<T> {
    if (this.#shared) {
      let result: T | undefined;
      await this.#shared.transact(scope, () => {
        const planned = plan();
        result = planned.result;
        return planned.ops;
      });
      onDurable?.();
      return result as T;
    }
    const { ops, result, change } = plan();
    if (ops.length === 0) {
      await this.#storage.barrier();
      return result;
    }
    for (const op of ops) applyOp(this.#db, op);
    await this.#storage.append(ops, () => {
      onDurable?.();
      if (change) this.#publish(change);
    });
    return result;
  }

  /** The op of a flag change and what commits with it (its webhook deliveries). */
  #flagPlan(
    env: Environment,
    before: StoredFlag | null,
    after: StoredFlag | null,
    at: string,
    actor: Actor,
  ): { ops: Op[]; change: FlagChange } {
    const revision = env.revision + 1;
    let op: Op;
    if (after) {
      after.version = revision;
      op = { t: 'flag', env: env.id, rev: revision, flag: after, by: actor };
    } else {
      op = { t: 'flag-del', env: env.id, rev: revision, key: before!.key, at, by: actor };
    }
    const change: FlagChange = { env, revision, before, after, at, deliveries: [], actor };
    const planned = this.#planner?.(change) ?? [];
    return { ops: [op, ...planned], change };
  }

  #publish(change: FlagChange): void {
    for (const listener of this.#listeners) {
      try {
        listener(change);
      } catch (error) {
        this.#onListenerError(error);
      }
    }
  }

  /**
   * Applies one entry of shared storage (by this instance or another) to memory, and answers
   * the function that publishes the flag changes it makes, with the deliveries committed
   * alongside each: called at once for a committed entry, after `COMMIT` for a batch.
   */
  #applyCommitted(ops: Op[]): () => void {
    const changes: FlagChange[] = [];
    for (const op of ops) {
      if (op.t === 'flag' || op.t === 'flag-del') {
        const env = this.#db.get(op.env);
        const key = op.t === 'flag' ? op.flag.key : op.key;
        const before = env?.flags.get(key) ?? null;
        const fresh = env !== undefined && op.rev > env.revision;
        applyOp(this.#db, op);
        if (env && fresh) {
          const after = op.t === 'flag' ? op.flag : null;
          const at = op.t === 'flag' ? op.flag.updatedAt : (op.at ?? new Date().toISOString());
          const actor = op.by ?? UNKNOWN_ACTOR;
          changes.push({ env, revision: op.rev, before, after, at, deliveries: [], actor });
        }
      } else {
        applyOp(this.#db, op);
        if (op.t === 'delivery' && changes.length > 0 && op.delivery.attempts === 0)
          changes[changes.length - 1]!.deliveries.push(op.delivery);
      }
    }
    return () => {
      for (const change of changes) this.#publish(change);
      for (const op of ops) {
        for (const listener of this.#entryListeners) {
          try {
            listener(op);
          } catch (error) {
            this.#onListenerError(error);
          }
        }
      }
    };
  }
}

const byKey = (a: StoredFlag, b: StoredFlag) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
const byCreation = (a: StoredWebhook, b: StoredWebhook) =>
  a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1;
