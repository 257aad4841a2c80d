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
  UpdateFlagInput,
  UpdateWebhookInput,
  Webhook,
} from '../../src/core/types.js';
import { ApiError, flagNotFound, webhookNotFound } from '../errors.js';
import type { Storage } from '../store/storage.js';
import { signingSecret } from '../webhooks/events.js';
import { readHistory } from './history.js';
import { newApiKey, newEpoch, newWebhookId, newWebhookSecret } from './ids.js';
import type {
  Actor,
  ApiKeyGrant,
  Environment,
  FlagChange,
  HistoryEntry,
  Source,
  StoredFlag,
  StoredWebhook,
} from './model.js';
import { applyOp, type Database, type Op } from './ops.js';
import { toCreatedWebhook, toDelivery, toFlag, toWebhook } from './representation.js';

export type ChangeListener = (change: FlagChange) => void;

/** Plans what a change commits besides itself (webhook deliveries), atomically with it. */
export type CommitPlanner = (change: FlagChange) => Op[];

export class FlagService {
  readonly #db: Database;
  readonly #storage: Storage;
  readonly #listeners: ChangeListener[] = [];
  #planner: CommitPlanner | undefined;

  readonly #onListenerError: (error: unknown) => void;

  constructor(db: Database, storage: Storage, onListenerError: (error: unknown) => void) {
    this.#db = db;
    this.#storage = storage;
    this.#onListenerError = onListenerError;
  }

  /** Sets the planner of ops committed with every flag change (webhook deliveries). */
  setPlanner(planner: CommitPlanner): void {
    this.#planner = planner;
  }

  /** Commits ops that are not a flag change (delivery bookkeeping); resolves once durable. */
  commitOps(ops: Op[], onDurable?: () => void): Promise<void> {
    return this.#commit(ops, onDurable);
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
    const existing = this.#db.get(id);
    if (existing) return existing;
    const keys: ApiKeyGrant[] = generateKeys
      ? [
          { key: newApiKey(), access: 'full' },
          { key: newApiKey(), access: 'read-only' },
        ]
      : [];
    const createdAt = new Date().toISOString();
    await this.#commit([{ t: 'env', id, project, environment, epoch: newEpoch(), keys, source, createdAt }]);
    return this.#db.get(id)!;
  }

  /** Records where an environment now comes from (the dashboard took it back, or the config names it). */
  setEnvironmentSource(env: Environment, source: Source): Promise<void> {
    const { id, project, environment, epoch, generatedKeys: keys } = env;
    return this.#commit([{ t: 'env', id, project, environment, epoch, keys, source }]);
  }

  async listFlags(env: Environment): Promise<Flag[]> {
    const flags = [...env.flags.values()].sort(byKey).map(toFlag);
    await this.#storage.barrier();
    return flags;
  }

  async getFlag(env: Environment, key: string): Promise<Flag> {
    const flag = env.flags.get(key);
    if (!flag) throw flagNotFound(key);
    const result = toFlag(flag);
    await this.#storage.barrier();
    return result;
  }

  /** The stored flag or 404; for validating a PATCH against the flag's type. */
  requireFlag(env: Environment, key: string): StoredFlag {
    const flag = env.flags.get(key);
    if (!flag) throw flagNotFound(key);
    return flag;
  }

  async createFlag(env: Environment, input: CreateFlagInput, actor: Actor): Promise<Flag> {
    if (env.flags.has(input.key)) {
      throw new ApiError(409, 'CONFLICT', `flag ${JSON.stringify(input.key)} already exists`);
    }
    return toFlag(await this.#insertFlag(env, input, false, actor));
  }

  /** Seeds a flag from the config: only where no flag of that key exists, and `enabled` is kept. */
  async seedFlag(env: Environment, input: CreateFlagInput & { enabled: boolean }): Promise<void> {
    if (!env.flags.has(input.key)) await this.#insertFlag(env, input, input.enabled, { type: 'config' });
  }

  async #insertFlag(
    env: Environment,
    input: CreateFlagInput,
    enabled: boolean,
    actor: Actor,
  ): Promise<StoredFlag> {
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
    await this.#commitFlag(env, null, flag, now, actor);
    return flag;
  }

  async updateFlag(env: Environment, key: string, patch: UpdateFlagInput, actor: Actor): Promise<Flag> {
    const before = this.requireFlag(env, key);
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
      await this.#storage.barrier();
      return toFlag(before);
    }
    const now = new Date().toISOString();
    after.updatedAt = now;
    await this.#commitFlag(env, before, after, now, actor);
    return toFlag(after);
  }

  async deleteFlag(env: Environment, key: string, actor: Actor): Promise<void> {
    const before = this.requireFlag(env, key);
    await this.#commitFlag(env, before, null, new Date().toISOString(), actor);
  }

  /** The environment's flag changes, newest first (`docs/protocol.md` §10.3). */
  async history(env: Environment, flag: string | undefined, limit: number): Promise<HistoryEntry[]> {
    const entries = readHistory(env, flag, limit);
    await this.#storage.barrier();
    return entries;
  }

  /** Resolves once every write so far is durable: what a read answers after. */
  settled(): Promise<void> {
    return this.#storage.barrier();
  }

  async listWebhooks(env: Environment): Promise<Webhook[]> {
    const hooks = [...env.webhooks.values()].sort(byCreation).map(toWebhook);
    await this.#storage.barrier();
    return hooks;
  }

  async getWebhook(env: Environment, id: string): Promise<Webhook> {
    const hook = env.webhooks.get(id);
    if (!hook) throw webhookNotFound(id);
    const result = toWebhook(hook);
    await this.#storage.barrier();
    return result;
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
    await this.#commit([{ t: 'webhook', env: env.id, webhook: hook }]);
    return toCreatedWebhook(hook);
  }

  async updateWebhook(env: Environment, id: string, patch: UpdateWebhookInput): Promise<Webhook> {
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
    if (same) await this.#storage.barrier();
    else await this.#commit([{ t: 'webhook', env: env.id, webhook: after }]);
    return toWebhook(after);
  }

  /** The deliveries of a webhook, newest first. */
  async listDeliveries(env: Environment, id: string): Promise<Record<string, unknown>[]> {
    if (!env.webhooks.has(id)) throw webhookNotFound(id);
    const list = [...env.deliveries.values()]
      .filter((d) => d.webhookId === id)
      .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.id < b.id ? 1 : -1))
      .map(toDelivery);
    await this.#storage.barrier();
    return list;
  }

  /**
   * Replaces the webhook's secret; the secret signing until now keeps signing for `graceMs`
   * so receivers can accept both meanwhile. Answers the new secret, shown this once.
   */
  async rotateSecret(env: Environment, id: string, graceMs: number): Promise<Record<string, unknown>> {
    const before = env.webhooks.get(id);
    if (!before) throw webhookNotFound(id);
    const now = Date.now();
    const after: StoredWebhook = {
      ...before,
      secret: newWebhookSecret(),
      previousSecret: signingSecret(before, now),
      previousSecretExpiresAt: now + graceMs,
    };
    await this.#commit([{ t: 'webhook', env: env.id, webhook: after }]);
    return {
      ...toWebhook(after),
      secret: after.secret,
      previousSecretExpiresAt: new Date(after.previousSecretExpiresAt!).toISOString(),
    };
  }

  async deleteWebhook(env: Environment, id: string): Promise<void> {
    if (!env.webhooks.has(id)) throw webhookNotFound(id);
    await this.#commit([{ t: 'webhook-del', env: env.id, id }]);
  }

  /** Applies `ops` to memory and makes them durable; `onDurable` publishes. */
  #commit(ops: Op[], onDurable?: () => void): Promise<void> {
    for (const op of ops) applyOp(this.#db, op);
    return this.#storage.append(ops, onDurable);
  }

  #commitFlag(
    env: Environment,
    before: StoredFlag | null,
    after: StoredFlag | null,
    at: string,
    actor: Actor,
  ): Promise<void> {
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
    return this.#commit([op, ...planned], () => {
      for (const listener of this.#listeners) {
        try {
          listener(change);
        } catch (error) {
          this.#onListenerError(error);
        }
      }
    });
  }
}

const byKey = (a: StoredFlag, b: StoredFlag) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
const byCreation = (a: StoredWebhook, b: StoredWebhook) =>
  a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1;
