/**
 * Segments of an environment (`docs/protocol.md` §12.3): users by key or by rules, which flags'
 * `inSegment` clauses name. A segment change is an environment change like a flag's: it takes
 * the next revision and is in the history as `segment:<key>`. Deleting a segment a flag uses is
 * refused (409, naming the flags).
 */

import type { Segment } from '../../../src/core/targeting/types.js';
import {
  type PatternCheck,
  TargetingInvalid,
  validateSegment,
} from '../../../src/core/targeting/validate.js';
import { checkSegmentKeys } from '../../../src/core/targeting/validate-segment.js';
import { ApiError, validationError } from '../../errors.js';
import { checkSegmentGraph } from '../flags/graph-check.js';
import { checkSize } from '../flags/size-check.js';
import { refsOf, sameJson, segmentUsers } from '../flags/targeting.js';
import { decide, type Ledger, type Plan } from '../kernel/ledger.js';
import type { Actor, Environment, StoredSegment } from '../kernel/model.js';
import { type Expected, requireVersion, type Versioned } from '../kernel/preconditions.js';
import type { WebhookOp } from '../webhooks/ops.js';
import { segmentDeliveries } from './events.js';
import { type SegmentOp, segmentCommitOf } from './ops.js';
import { representSegment } from './representation.js';

/** The ops the segment service commits: a segment's, with its deliveries. */
export type SegmentServiceOp = SegmentOp | WebhookOp;

type SegmentView = ReturnType<typeof representSegment>;

const notFound = (key: string) => new ApiError(404, 'NOT_FOUND', `segment ${JSON.stringify(key)} not found`);

export class SegmentService {
  readonly #ledger: Ledger<SegmentServiceOp>;
  readonly #patterns: PatternCheck | undefined;

  constructor(ledger: Ledger<SegmentServiceOp>, patterns?: PatternCheck) {
    this.#ledger = ledger;
    this.#patterns = patterns;
  }

  list(env: Environment): Promise<SegmentView[]> {
    return this.#ledger.readSettled(env.id, () =>
      [...env.segments.values()].sort((a, b) => (a.key < b.key ? -1 : 1)).map(representSegment),
    );
  }

  get(env: Environment, key: string): Promise<SegmentView> {
    return this.read(env, key).then((segment) => segment.body);
  }

  /** The segment with its version (its `ETag`, `docs/protocol.md` §3.3). */
  read(env: Environment, key: string): Promise<Versioned<SegmentView>> {
    return this.#ledger.readSettled(env.id, () => {
      const segment = env.segments.get(key);
      if (!segment) throw notFound(key);
      return versioned(segment);
    });
  }

  async create(env: Environment, body: unknown, actor: Actor): Promise<SegmentView> {
    return (await this.createVersioned(env, body, actor)).body;
  }

  /** `create`, answering the new segment's version too. */
  async createVersioned(env: Environment, body: unknown, actor: Actor): Promise<Versioned<SegmentView>> {
    const segment = await decide(this.#ledger, env.id, () => this.planCreate(env, body, actor));
    return versioned(segment);
  }

  /**
   * What creating a segment commits, decided against `env` as it is (the environment, or a change
   * request's view of it as its earlier changes leave it: `../changes/plan.ts`); throws to refuse.
   */
  planCreate(env: Environment, body: unknown, actor: Actor): Plan<StoredSegment, SegmentServiceOp> {
    const input = this.#validate(env, body, false);
    if (env.segments.has(input.key!))
      throw new ApiError(409, 'CONFLICT', `segment ${JSON.stringify(input.key)} already exists`);
    const now = new Date().toISOString();
    const created: StoredSegment = {
      key: input.key!,
      description: input.description ?? null,
      included: input.included ?? [],
      excluded: input.excluded ?? [],
      rules: input.rules ?? [],
      version: env.revision + 1,
      createdAt: now,
      updatedAt: now,
    };
    checkSize(env, 'segment', created);
    return {
      ops: this.#ops(
        env,
        { t: 'segment', env: env.id, rev: created.version, segment: created, by: actor },
        null,
      ),
      result: created,
    };
  }

  async update(env: Environment, key: string, body: unknown, actor: Actor): Promise<SegmentView> {
    return (await this.updateVersioned(env, key, body, actor)).body;
  }

  /** `update`, refused with `412` when `expected` names versions the segment is not at. */
  async updateVersioned(
    env: Environment,
    key: string,
    body: unknown,
    actor: Actor,
    expected?: Expected,
  ): Promise<Versioned<SegmentView>> {
    const segment = await decide(this.#ledger, env.id, () =>
      this.planUpdate(env, key, body, actor, expected),
    );
    return versioned(segment);
  }

  /** What `updateVersioned` commits, decided against `env` as it is (`planCreate`). */
  planUpdate(
    env: Environment,
    key: string,
    body: unknown,
    actor: Actor,
    expected?: Expected,
  ): Plan<StoredSegment, SegmentServiceOp> {
    const before = env.segments.get(key);
    if (!before) throw notFound(key);
    requireVersion(expected, 'segment', key, before.version, () => representSegment(before));
    const patch = this.#validate(env, body, true);
    const after: StoredSegment = { ...before, ...patch } as StoredSegment;
    // The patch's lists are checked alone; the segment they make, whole.
    this.#checked(() => checkSegmentKeys(after.included.length + after.excluded.length));
    if (
      (['description', 'included', 'excluded', 'rules'] as const).every((f) => sameJson(after[f], before[f]))
    )
      return { ops: [], result: before };
    after.version = env.revision + 1;
    after.updatedAt = new Date().toISOString();
    checkSize(env, 'segment', after);
    checkSegmentGraph(env, after);
    return {
      ops: this.#ops(
        env,
        { t: 'segment', env: env.id, rev: after.version, segment: after, by: actor },
        before,
      ),
      result: after,
    };
  }

  /** Deletes a segment; 409 while flags use it, 412 when `expected` names versions it is not at. */
  async delete(env: Environment, key: string, actor: Actor, expected?: Expected): Promise<void> {
    await decide(this.#ledger, env.id, () => this.planDelete(env, key, actor, expected));
  }

  /** What `delete` commits, decided against `env` as it is (`planCreate`). */
  planDelete(
    env: Environment,
    key: string,
    actor: Actor,
    expected?: Expected,
  ): Plan<undefined, SegmentServiceOp> {
    const current = env.segments.get(key);
    if (!current) throw notFound(key);
    requireVersion(expected, 'segment', key, current.version, () => representSegment(current));
    const users = segmentUsers(env, key);
    if (users.length > 0)
      throw new ApiError(
        409,
        'CONFLICT',
        `segment ${JSON.stringify(key)} is used by ${users.map((k) => JSON.stringify(k)).join(', ')}: remove it from their rules first`,
      );
    const at = new Date().toISOString();
    const op = { t: 'segment-del', env: env.id, rev: env.revision + 1, key, at, by: actor } as const;
    return { ops: this.#ops(env, op, current), result: undefined };
  }

  /** The segment's op and what commits with it (its `segment.updated` deliveries). */
  #ops(env: Environment, op: SegmentOp, before: StoredSegment | null): SegmentServiceOp[] {
    return [op, ...segmentDeliveries(segmentCommitOf(env, op, before))];
  }

  #validate(env: Environment, body: unknown, partial: boolean): Partial<Segment> {
    return this.#checked(() => validateSegment(body, refsOf(env), this.#patterns, partial));
  }

  /** Runs a validation; its refusal is 400 `VALIDATION_ERROR` naming the path. */
  #checked<T>(validate: () => T): T {
    try {
      return validate();
    } catch (error) {
      if (error instanceof TargetingInvalid) throw validationError(error.message);
      throw error;
    }
  }
}

const versioned = (segment: StoredSegment): Versioned<SegmentView> => ({
  body: representSegment(segment),
  version: segment.version,
});
