/**
 * The flags of an environment (`docs/protocol.md` §3.1), and the one write protocol's entry
 * point for the state layer (`commit`, `readSettled`; `docs/architecture.md`). A write is a plan, decided by the storage under its scope's
 * lock against memory holding every committed entry (so of racing writes, one 201 and one 409);
 * its ops reach memory through the applier, and it is answered once durable. Reads are settled
 * reads: they answer nothing a crash or a failed commit could take back.
 */
import type { PatternCheck } from '../../src/core/targeting/validate.js';
import type { AnyFlagType, CreateFlagInput, Flag, UpdateFlagInput } from '../../src/core/types.js';
import { ApiError, flagNotFound } from '../errors.js';
import type { Storage } from '../store/storage.js';
import { flagCommitOf } from './applier.js';
import { findByName, idFor } from './env-names.js';
import { checkFlagGraph } from './graph-check.js';
import { readHistory } from './history.js';
import { newApiKey, newEpoch } from './ids.js';
import type {
  Actor,
  ApiKeyGrant,
  Environment,
  FlagCommit,
  HistoryEntry,
  MemoryState,
  Source,
  StoredFlag,
} from './model.js';
import { type Op, refuseDeleted } from './ops.js';
import { type Expected, requireVersion, type Versioned } from './preconditions.js';
import { toFlag } from './representation.js';
import { checkSize } from './size-check.js';
import { applyTargeting, CHANGEABLE_FIELDS, dependentsOf, sameJson } from './targeting.js';

/** What a write decides against the current state: the ops to commit and the answer. */
export interface Plan<T> {
  ops: Op[];
  result: T;
}

/** Commits what `plan` decides as one entry of `scope`; resolves with its answer once durable. */
export async function decide<T>(
  flags: Pick<FlagService, 'commit'>,
  scope: string,
  plan: () => Plan<T>,
): Promise<T> {
  let result: T | undefined;
  await flags.commit(scope, () => {
    const planned = plan();
    result = planned.result;
    return planned.ops;
  });
  return result as T;
}

/** Plans what a flag change commits besides itself (webhook deliveries), atomically with it. */
export type CommitPlanner = (change: FlagCommit) => Op[];

export class FlagService {
  readonly #db: MemoryState;
  readonly #storage: Storage<Op>;
  #planner: CommitPlanner | undefined;
  readonly #patterns: PatternCheck | undefined;

  /** `patterns` refuses the `matches` patterns the SDK's matcher cannot run. */
  constructor(db: MemoryState, storage: Storage<Op>, patterns?: PatternCheck) {
    this.#db = db;
    this.#storage = storage;
    this.#patterns = patterns;
  }

  /** What commits with `change` besides it (its webhook deliveries), for a segment's write. */
  planWith(change: FlagCommit): Op[] {
    return this.#planner?.(change) ?? [];
  }

  /** Sets the planner of ops committed with every flag change (webhook deliveries). */
  setPlanner(planner: CommitPlanner): void {
    this.#planner = planner;
  }

  /**
   * Commits what `plan` answers as one entry of `scope` (an environment's id, or `''` for what
   * spans them), decided under the scope's lock against memory holding every entry committed to
   * it (by any instance); `[]` commits nothing, a throw refuses. Resolves once durable.
   */
  async commit(scope: string, plan: () => Op[]): Promise<void> {
    // Nothing is written to an environment deleted meanwhile (a request or a delivery under way).
    await this.#storage.commit(scope, () => refuseDeleted(this.#db, plan()));
  }

  /**
   * A settled read (`Storage.readSettled`): runs `read` against memory holding every entry
   * committed to `scope` (`null`: memory as it stands), and answers once all it could see is durable.
   */
  readSettled<T>(scope: string | null, read: () => T): Promise<T> {
    return this.#storage.readSettled(scope, read);
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
    const existing = findByName(this.#db.values(), project, environment);
    if (existing) return existing;
    const id = idFor(this.#db, project, environment);
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
    return findByName(this.#db.values(), project, environment) ?? this.#db.get(id)!;
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

  /** The flag with its version (its `ETag`, `docs/protocol.md` §3.3). */
  readFlag(env: Environment, key: string): Promise<Versioned<Flag>> {
    return this.#read(env, () => versioned(this.requireFlag(env, key)));
  }

  /** The stored flag or 404; for validating a PATCH against the flag's type. */
  requireFlag(env: Environment, key: string): StoredFlag {
    const flag = env.flags.get(key);
    if (!flag) throw flagNotFound(key);
    return flag;
  }

  async createFlag(env: Environment, input: CreateFlagInput, actor: Actor): Promise<Flag> {
    return (await this.createFlagVersioned(env, input, actor)).body;
  }

  /** `createFlag`, answering the new flag's version too. */
  async createFlagVersioned(
    env: Environment,
    input: CreateFlagInput,
    actor: Actor,
  ): Promise<Versioned<Flag>> {
    const flag = await this.#write(env.id, () => {
      if (env.flags.has(input.key)) {
        throw new ApiError(409, 'CONFLICT', `flag ${JSON.stringify(input.key)} already exists`);
      }
      return this.#insertFlag(env, input, false, actor);
    });
    return versioned(flag);
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
    applyTargeting(env, flag, input, this.#patterns);
    checkSize(env, 'flag', flag);
    checkFlagGraph(env, flag);
    return { ...this.#flagPlan(env, null, flag, now, actor), result: flag };
  }

  /**
   * Applies a patch to a flag. `patch` may be a function of the flag's type, called against the
   * state the write is decided on (it validates there, and throws to refuse).
   */
  async updateFlag(
    env: Environment,
    key: string,
    patchOrOf: UpdateFlagInput | ((type: AnyFlagType) => UpdateFlagInput),
    actor: Actor,
  ): Promise<Flag> {
    return (await this.updateFlagVersioned(env, key, patchOrOf, actor)).body;
  }

  /**
   * `updateFlag`, refused with `412` when `expected` names versions the flag is not at (decided
   * under the write's lock), answering the flag's version after it.
   */
  async updateFlagVersioned(
    env: Environment,
    key: string,
    patchOrOf: UpdateFlagInput | ((type: AnyFlagType) => UpdateFlagInput),
    actor: Actor,
    expected?: Expected,
  ): Promise<Versioned<Flag>> {
    const flag = await this.#write(env.id, () => {
      const before = this.requireFlag(env, key);
      requireVersion(expected, 'flag', key, before.version, () => toFlag(before));
      const patch = typeof patchOrOf === 'function' ? patchOrOf(before.type) : patchOrOf;
      const after: StoredFlag = { ...before };
      if (patch.enabled !== undefined) after.enabled = patch.enabled;
      if (patch.percentage !== undefined && before.type === 'rollout') after.percentage = patch.percentage;
      if (patch.description !== undefined) after.description = patch.description;
      applyTargeting(env, after, patch, this.#patterns);
      // Unchanged, the patch commits nothing.
      if (CHANGEABLE_FIELDS.every((field) => sameJson(after[field], before[field]))) {
        // A change that changes nothing commits nothing and emits nothing.
        return { ops: [], result: before };
      }
      const now = new Date().toISOString();
      after.updatedAt = now;
      checkSize(env, 'flag', after);
      checkFlagGraph(env, after);
      return { ...this.#flagPlan(env, before, after, now, actor), result: after };
    });
    return versioned(flag);
  }

  /**
   * Deletes a flag; 409 while other flags list it as a prerequisite, 412 when `expected` names
   * versions it is not at.
   */
  async deleteFlag(env: Environment, key: string, actor: Actor, expected?: Expected): Promise<void> {
    await this.#write(env.id, () => {
      const flag = this.requireFlag(env, key);
      requireVersion(expected, 'flag', key, flag.version, () => toFlag(flag));
      const dependents = dependentsOf(env, key);
      if (dependents.length > 0)
        throw new ApiError(
          409,
          'CONFLICT',
          `flag ${JSON.stringify(key)} is a prerequisite of ${dependents.map((k) => JSON.stringify(k)).join(', ')}: remove it there first`,
        );
      return { ...this.#flagPlan(env, flag, null, new Date().toISOString(), actor), result: undefined };
    });
  }

  /** The environment's flag changes, newest first (`docs/protocol.md` §10.3). */
  history(env: Environment, flag: string | undefined, limit: number): Promise<HistoryEntry[]> {
    return this.#read(env, () => readHistory(env, flag, limit));
  }

  #read<T>(env: Environment, read: () => T): Promise<T> {
    return this.#storage.readSettled(env.id, read);
  }

  #write<T>(scope: string, plan: () => Plan<T>): Promise<T> {
    return decide(this, scope, plan);
  }

  /** The op of a flag change and what commits with it (its webhook deliveries). */
  #flagPlan(
    env: Environment,
    before: StoredFlag | null,
    after: StoredFlag | null,
    at: string,
    actor: Actor,
  ): { ops: Op[] } {
    const revision = env.revision + 1;
    let op: Extract<Op, { t: 'flag' | 'flag-del' }>;
    if (after) {
      after.version = revision;
      op = { t: 'flag', env: env.id, rev: revision, flag: after, by: actor };
    } else {
      op = { t: 'flag-del', env: env.id, rev: revision, key: before!.key, at, by: actor };
    }
    return { ops: [op, ...(this.#planner?.(flagCommitOf(env, op, before)) ?? [])] };
  }
}

const versioned = (flag: StoredFlag): Versioned<Flag> => ({ body: toFlag(flag), version: flag.version });

const byKey = (a: StoredFlag, b: StoredFlag) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
