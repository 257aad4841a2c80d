/**
 * The flags of an environment (`docs/protocol.md` §3.1): their rules, revisions, versions and
 * history. Every write is a plan committed through the ledger (`../kernel/ledger.ts`): the flag's
 * op, and the webhook deliveries it commits with it (`events.ts`), decided together under the
 * environment's lock; every read a settled read.
 */
import type { PatternCheck } from '../../../src/core/targeting/validate.js';
import type { AnyFlagType, CreateFlagInput, Flag, UpdateFlagInput } from '../../../src/core/types.js';
import { ApiError, flagNotFound } from '../../errors.js';
import { CONFIG_ACTOR } from '../kernel/actors.js';
import { decide, type Ledger, type Plan } from '../kernel/ledger.js';
import type { Actor, Environment, HistoryEntry, StoredFlag } from '../kernel/model.js';
import { type Expected, requireVersion, type Versioned } from '../kernel/preconditions.js';
import type { WebhookOp } from '../webhooks/ops.js';
import { flagDeliveries } from './events.js';
import { checkFlagGraph } from './graph-check.js';
import { readHistory } from './history.js';
import { type FlagOp, flagCommitOf } from './ops.js';
import { toFlag } from './representation.js';
import { checkSize } from './size-check.js';
import { applyTargeting, CHANGEABLE_FIELDS, dependentsOf, sameJson } from './targeting.js';

/** The ops the flag service commits: a flag's, with its deliveries. */
export type FlagServiceOp = FlagOp | WebhookOp;

export class FlagService {
  readonly #ledger: Ledger<FlagServiceOp>;
  readonly #patterns: PatternCheck | undefined;

  /** `patterns` refuses the `matches` patterns the SDK's matcher cannot run. */
  constructor(ledger: Ledger<FlagServiceOp>, patterns?: PatternCheck) {
    this.#ledger = ledger;
    this.#patterns = patterns;
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
    const flag = await this.#write(env.id, () => this.planCreate(env, input, actor));
    return versioned(flag);
  }

  /**
   * What creating a flag commits, decided against `env` as it is (the environment, or a change
   * request's view of it as its earlier changes leave it: `../changes/plan.ts`); throws to refuse.
   */
  planCreate(env: Environment, input: CreateFlagInput, actor: Actor): Plan<StoredFlag, FlagServiceOp> {
    if (env.flags.has(input.key)) {
      throw new ApiError(409, 'CONFLICT', `flag ${JSON.stringify(input.key)} already exists`);
    }
    return this.#insertFlag(env, input, false, actor);
  }

  /** Seeds a flag from the config: only where no flag of that key exists, and `enabled` is kept. */
  async seedFlag(env: Environment, input: CreateFlagInput & { enabled: boolean }): Promise<void> {
    await this.#write(env.id, () =>
      env.flags.has(input.key)
        ? { ops: [], result: undefined }
        : this.#insertFlag(env, input, input.enabled, CONFIG_ACTOR),
    );
  }

  #insertFlag(
    env: Environment,
    input: CreateFlagInput,
    enabled: boolean,
    actor: Actor,
  ): Plan<StoredFlag, FlagServiceOp> {
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
    const flag = await this.#write(env.id, () => this.planUpdate(env, key, patchOrOf, actor, expected));
    return versioned(flag);
  }

  /** What `updateFlagVersioned` commits, decided against `env` as it is (`planCreate`). */
  planUpdate(
    env: Environment,
    key: string,
    patchOrOf: UpdateFlagInput | ((type: AnyFlagType) => UpdateFlagInput),
    actor: Actor,
    expected?: Expected,
  ): Plan<StoredFlag, FlagServiceOp> {
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
  }

  /**
   * Deletes a flag; 409 while other flags list it as a prerequisite, 412 when `expected` names
   * versions it is not at.
   */
  async deleteFlag(env: Environment, key: string, actor: Actor, expected?: Expected): Promise<void> {
    await this.#write(env.id, () => this.planDelete(env, key, actor, expected));
  }

  /** What `deleteFlag` commits, decided against `env` as it is (`planCreate`). */
  planDelete(
    env: Environment,
    key: string,
    actor: Actor,
    expected?: Expected,
  ): Plan<undefined, FlagServiceOp> {
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
  }

  /** The environment's flag changes, newest first (`docs/protocol.md` §10.3). */
  history(env: Environment, flag: string | undefined, limit: number): Promise<HistoryEntry[]> {
    return this.#read(env, () => readHistory(env, flag, limit));
  }

  #read<T>(env: Environment, read: () => T): Promise<T> {
    return this.#ledger.readSettled(env.id, read);
  }

  #write<T>(scope: string, plan: () => Plan<T, FlagServiceOp>): Promise<T> {
    return decide(this.#ledger, scope, plan);
  }

  /** The op of a flag change and what commits with it (its webhook deliveries). */
  #flagPlan(
    env: Environment,
    before: StoredFlag | null,
    after: StoredFlag | null,
    at: string,
    actor: Actor,
  ): { ops: FlagServiceOp[] } {
    const revision = env.revision + 1;
    let op: FlagOp;
    if (after) {
      after.version = revision;
      op = { t: 'flag', env: env.id, rev: revision, flag: after, by: actor };
    } else {
      op = { t: 'flag-del', env: env.id, rev: revision, key: before!.key, at, by: actor };
    }
    return { ops: [op, ...flagDeliveries(flagCommitOf(env, op, before))] };
  }
}

const versioned = (flag: StoredFlag): Versioned<Flag> => ({ body: toFlag(flag), version: flag.version });

const byKey = (a: StoredFlag, b: StoredFlag) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
