/**
 * Change requests (`docs/protocol.md` §10.7): changes of flags and segments proposed by one
 * person, reviewed by others, and applied all at once, now or at a set time. Every transition is
 * a plan committed through the ledger under the environment's lock (so of two instances applying
 * one scheduled request, one applies it and the other finds it applied), with the request's
 * webhook deliveries in the same entry; applying commits the flag and segment ops of its changes
 * in that entry too, after checking that no target moved since its change was written.
 */
import type {
  ChangeRequest,
  CreateChangeRequestInput,
  ReviewInput,
  UpdateChangeRequestInput,
} from '../../../src/core/wire/changes.js';
import { ApiError } from '../../errors.js';
import { personOf, SCHEDULER_ACTOR } from '../kernel/actors.js';
import { newChangeRequestId } from '../kernel/ids.js';
import { decide, type Ledger, type Plan } from '../kernel/ledger.js';
import type { Actor, ChangeRequestEventType, Environment, StoredChangeRequest } from '../kernel/model.js';
import { planDeliveries } from '../webhooks/deliveries.js';
import type { WebhookOp } from '../webhooks/ops.js';
import { type ChangeOp, type ChangeRequestEvent, isClosed } from './ops.js';
import {
  type ChangePlanOp,
  conflictError,
  conflictsOf,
  type Planners,
  planChanges,
  rebased,
  versionOf,
} from './plan.js';
import { approvalsOf, isApproved, requiredApprovals, summaryOf, toChangeRequest } from './representation.js';

/** The ops the service commits. */
export type ChangeServiceOp = ChangeOp | ChangePlanOp | WebhookOp;

/** Requests under way (not closed) an environment may hold at once. */
export const OPEN_LIMIT = 1000;

/** Applied later than this after its time, a scheduled request says it was late. */
export const LATE_AFTER_MS = 60_000;

type Change = StoredChangeRequest['changes'][number];

export class ChangeRequestService {
  readonly #ledger: Ledger<ChangeServiceOp>;
  readonly #planners: Planners;
  readonly #now: () => number;
  constructor(ledger: Ledger<ChangeServiceOp>, planners: Planners, now: () => number = Date.now) {
    this.#ledger = ledger;
    this.#planners = planners;
    this.#now = now;
  }

  /** The environment's requests, newest first; of one state when given. */
  list(env: Environment, state?: string): Promise<ChangeRequest[]> {
    return this.#ledger.readSettled(env.id, () =>
      [...(env.changeRequests?.values() ?? [])]
        .filter((cr) => state === undefined || cr.state === state)
        .sort((a, b) =>
          a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.id < b.id ? 1 : -1,
        )
        .map((cr) => toChangeRequest(env, cr)),
    );
  }

  /** One request, with what each change would do now. */
  get(env: Environment, id: string): Promise<ChangeRequest> {
    return this.#ledger.readSettled(env.id, () =>
      toChangeRequest(env, this.#require(env, id), this.#planners),
    );
  }

  /** Opens a request; `409` when a target moved since its change was written. */
  create(env: Environment, input: CreateChangeRequestInput, actor: Actor): Promise<ChangeRequest> {
    return this.#write(env, () => {
      let open = 0;
      for (const cr of env.changeRequests?.values() ?? []) if (!isClosed(cr)) open++;
      if (open >= OPEN_LIMIT)
        throw new ApiError(
          409,
          'CONFLICT',
          `this environment has ${open} change requests under way, the most it may hold: apply, reject or withdraw some first`,
        );
      const changes = this.#checkedChanges(env, input.changes, actor);
      const at = this.#iso();
      const cr: StoredChangeRequest = {
        id: newChangeRequestId(),
        title: input.title,
        ...(input.description !== undefined && { description: input.description }),
        state: 'open',
        author: actor,
        changes,
        reviews: [],
        ...(input.scheduledAt !== undefined && { scheduledAt: isoOf(input.scheduledAt) }),
        createdAt: at,
        updatedAt: at,
      };
      return this.#transition(env, settled(env, cr), 'created', actor, at);
    });
  }

  /** Changes a request (its author only): its approvals are cleared, and it is open again. */
  update(
    env: Environment,
    id: string,
    patch: UpdateChangeRequestInput,
    actor: Actor,
  ): Promise<ChangeRequest> {
    return this.#write(env, () => {
      const before = this.#require(env, id);
      requireAuthor(before, actor, 'change');
      refuseClosedFor(before, 'changed', ['rejected', 'failed']);
      let changes = patch.changes ? this.#checkedChanges(env, patch.changes, actor) : before.changes;
      if (patch.rebase) changes = rebased(env, changes);
      if (!patch.changes && patch.rebase) this.#plan(env, changes, before.author);
      const at = this.#iso();
      const after: StoredChangeRequest = { ...before, changes, reviews: [], updatedAt: at };
      if (patch.title !== undefined) after.title = patch.title;
      if (patch.description !== undefined) after.description = patch.description;
      delete after.failure;
      // A time that passed is no schedule: scheduled again, it is applied then.
      if (after.scheduledAt !== undefined && Date.parse(after.scheduledAt) <= this.#now())
        delete after.scheduledAt;
      after.state = 'open';
      return this.#transition(env, settled(env, after), patch.rebase ? 'rebased' : 'updated', actor, at);
    });
  }

  /** A review by someone other than the author: their latest decision counts. */
  review(env: Environment, id: string, input: ReviewInput, actor: Actor): Promise<ChangeRequest> {
    return this.#write(env, () => {
      const before = this.#require(env, id);
      if (personOf(before.author) === personOf(actor))
        throw new ApiError(
          403,
          'FORBIDDEN',
          `cannot review your own change request ${JSON.stringify(id)}: another person must approve it`,
        );
      refuseClosedFor(before, 'reviewed', []);
      const at = this.#iso();
      const review = {
        actor,
        decision: input.decision,
        ...(input.comment !== undefined && { comment: input.comment }),
        at,
      };
      const reviews = before.reviews.filter((r) => personOf(r.actor) !== personOf(actor));
      reviews.push(review);
      const after: StoredChangeRequest = { ...before, reviews, updatedAt: at };
      if (input.decision === 'reject') {
        after.state = 'rejected';
        return this.#transition(env, after, 'rejected', actor, at, review);
      }
      return this.#transition(env, settled(env, after), 'approved', actor, at, review);
    });
  }

  /** Sets when the request is applied (approved, or when it is); from `failed`, again. */
  schedule(env: Environment, id: string, when: string, actor: Actor): Promise<ChangeRequest> {
    return this.#write(env, () => {
      const before = this.#require(env, id);
      refuseClosedFor(before, 'scheduled', ['failed']);
      const at = this.#iso();
      const after: StoredChangeRequest = { ...before, scheduledAt: isoOf(when), updatedAt: at };
      delete after.failure;
      if (after.state === 'failed') after.state = 'open';
      return this.#transition(env, settled(env, after), 'scheduled', actor, at);
    });
  }

  /** Withdraws the request (its author only). */
  withdraw(env: Environment, id: string, actor: Actor): Promise<ChangeRequest> {
    return this.#write(env, () => {
      const before = this.#require(env, id);
      requireAuthor(before, actor, 'withdraw');
      refuseClosedFor(before, 'withdrawn', ['rejected', 'failed']);
      const at = this.#iso();
      return this.#transition(env, { ...before, state: 'withdrawn', updatedAt: at }, 'withdrawn', actor, at);
    });
  }

  /**
   * Applies the request now, all or nothing: `403 APPROVAL_REQUIRED` without its approvals, `409
   * CONFLICT` (with the list) when a target moved since its change was written, and nothing is
   * written; its changes are credited to its author.
   */
  apply(env: Environment, id: string, actor: Actor): Promise<ChangeRequest> {
    return this.#write(env, () => {
      const cr = this.#require(env, id);
      refuseClosedFor(cr, 'applied', ['failed']);
      if (!isApproved(env, cr))
        throw new ApiError(
          403,
          'APPROVAL_REQUIRED',
          `change request ${JSON.stringify(id)} has ${approvalsOf(cr)} of the ${requiredApprovals(env)} approvals this environment needs`,
        );
      const conflicts = conflictsOf(env, cr.changes);
      if (conflicts.length > 0) throw conflictError(conflicts);
      return this.#applied(env, cr, actor, false);
    });
  }

  /**
   * Applies a scheduled request whose time has come, exactly once whichever instances try:
   * decided under the environment's lock against every committed entry, so a request found
   * applied (or changed) meanwhile commits nothing. A target that moved, a change now refused,
   * or approvals missing: `failed`, with the reason, and nothing else is written.
   * Answers whether it committed anything.
   */
  async applyDue(env: Environment, id: string): Promise<boolean> {
    let committed = false;
    await this.#ledger.commit(env.id, () => {
      const cr = env.changeRequests?.get(id);
      const now = this.#now();
      if (cr?.state !== 'scheduled' || cr.scheduledAt === undefined || Date.parse(cr.scheduledAt) > now)
        return [];
      committed = true;
      const at = this.#iso();
      const fail = (failure: string) =>
        this.#transition(
          env,
          { ...cr, state: 'failed', failure, updatedAt: at },
          'failed',
          SCHEDULER_ACTOR,
          at,
        ).ops;
      if (!isApproved(env, cr))
        return fail(
          `it has ${approvalsOf(cr)} of the ${requiredApprovals(env)} approvals the environment needs now`,
        );
      const conflicts = conflictsOf(env, cr.changes);
      if (conflicts.length > 0) return fail(conflictError(conflicts).message);
      try {
        return this.#applied(env, cr, SCHEDULER_ACTOR, now - Date.parse(cr.scheduledAt) > LATE_AFTER_MS).ops;
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        return fail(error.message);
      }
    });
    return committed;
  }

  /** The scheduled requests of `env`: their ids and times (epoch ms). */
  scheduledOf(env: Environment): Array<{ id: string; at: number }> {
    const out: Array<{ id: string; at: number }> = [];
    for (const cr of env.changeRequests?.values() ?? [])
      if (cr.state === 'scheduled' && cr.scheduledAt !== undefined)
        out.push({ id: cr.id, at: Date.parse(cr.scheduledAt) });
    return out;
  }

  /** The plan that applies `cr`: its changes, credited to its author, and the request applied. */
  #applied(
    env: Environment,
    cr: StoredChangeRequest,
    actor: Actor,
    late: boolean,
  ): Plan<ChangeRequest, ChangeServiceOp> {
    const approvedBy = cr.reviews.filter((r) => r.decision === 'approve').map((r) => r.actor);
    const ref = { id: cr.id, title: cr.title, approvedBy };
    const { ops } = this.#plan(env, cr.changes, cr.author, ref);
    const at = this.#iso();
    const after: StoredChangeRequest = {
      ...cr,
      state: 'applied',
      appliedAt: at,
      appliedBy: actor,
      updatedAt: at,
    };
    if (late) after.late = true;
    const done = this.#transition(env, after, 'applied', actor, at);
    return { ops: [...ops, ...done.ops], result: done.result };
  }

  /** Plans the changes (`plan.ts`) through the flag and segment services' own checks. */
  #plan(
    env: Environment,
    changes: readonly Change[],
    author: Actor,
    ref?: { id: string; title: string; approvedBy: Actor[] },
  ) {
    return planChanges(env, changes, author, this.#planners, ref);
  }

  /**
   * The changes as they are kept: each update's and deletion's `baseVersion` the current one when
   * not given; one change per target; refused (`409`, the list) when a target moved already, or
   * (`4xx`, naming the change) when the flag or segment service would refuse it now.
   */
  #checkedChanges(env: Environment, input: CreateChangeRequestInput['changes'], author: Actor): Change[] {
    const seen = new Set<string>();
    const changes = input.map((change, i): Change => {
      const target = `${change.kind}:${change.key}`;
      if (seen.has(target))
        throw new ApiError(
          400,
          'VALIDATION_ERROR',
          `"changes[${i}]": ${change.kind} ${JSON.stringify(change.key)} is changed twice: one change per flag or segment`,
        );
      seen.add(target);
      if (change.action === 'create' && change.baseVersion !== undefined)
        throw new ApiError(400, 'VALIDATION_ERROR', `"changes[${i}].baseVersion": a creation has none`);
      const current = versionOf(env, change);
      if (change.action === 'create' || change.baseVersion !== undefined || current === null)
        return { ...change };
      return { ...change, baseVersion: current };
    });
    const conflicts = conflictsOf(env, changes);
    if (conflicts.length > 0) throw conflictError(conflicts);
    this.#plan(env, changes, author);
    return changes;
  }

  /**
   * The plan that records `cr` after `event` by `actor`, with the webhook deliveries of what it
   * became (`change_request.*`), answered as the API shows it.
   */
  #transition(
    env: Environment,
    cr: StoredChangeRequest,
    event: ChangeRequestEvent,
    actor: Actor,
    at: string,
    review?: { decision: 'approve' | 'reject'; comment?: string },
  ): Plan<ChangeRequest, ChangeServiceOp> {
    const was = env.changeRequests?.get(cr.id)?.state;
    const ops: ChangeServiceOp[] = [{ t: 'cr', env: env.id, cr, event, by: actor, at }];
    for (const type of eventsOf(event, was, cr)) {
      const action = type.slice('change_request.'.length) as 'created';
      const data = {
        action,
        changeRequest: summaryOf(cr),
        actor,
        ...(review && { review: pickReview(review) }),
      };
      ops.push(...planDeliveries(env, { type, data }, at));
    }
    return { ops, result: toChangeRequest(env, cr) };
  }

  #write(env: Environment, plan: () => Plan<ChangeRequest, ChangeServiceOp>): Promise<ChangeRequest> {
    return decide(this.#ledger, env.id, plan);
  }

  #require(env: Environment, id: string): StoredChangeRequest {
    const cr = env.changeRequests?.get(id);
    if (!cr) throw new ApiError(404, 'NOT_FOUND', `change request ${JSON.stringify(id)} not found`);
    return cr;
  }

  #iso(): string {
    return new Date(this.#now()).toISOString();
  }
}

/** `cr` with the state its approvals and schedule give it: open, approved, or scheduled. */
function settled(env: Environment, cr: StoredChangeRequest): StoredChangeRequest {
  if (!isApproved(env, cr)) return { ...cr, state: 'open' };
  return { ...cr, state: cr.scheduledAt === undefined ? 'approved' : 'scheduled' };
}

/**
 * The webhook events of a transition from state `was` (none: created): what the request became.
 * `approved` once it has the approvals it needs; `scheduled` when it becomes so, or is given a new time.
 */
function eventsOf(
  event: ChangeRequestEvent,
  was: StoredChangeRequest['state'] | undefined,
  cr: StoredChangeRequest,
): ChangeRequestEventType[] {
  const events: ChangeRequestEventType[] = [];
  if (event === 'created') events.push('change_request.created');
  if (event === 'approved' && was === 'open' && cr.state !== 'open') events.push('change_request.approved');
  if (event === 'rejected') events.push('change_request.rejected');
  if (event === 'applied') events.push('change_request.applied');
  if (event === 'failed') events.push('change_request.failed');
  if (cr.state === 'scheduled' && (was !== 'scheduled' || event === 'scheduled'))
    events.push('change_request.scheduled');
  return events;
}

const pickReview = (review: { decision: 'approve' | 'reject'; comment?: string }) =>
  review.comment === undefined
    ? { decision: review.decision }
    : { decision: review.decision, comment: review.comment };

/** `403` unless `actor` is the request's author. */
function requireAuthor(cr: StoredChangeRequest, actor: Actor, what: string): void {
  if (personOf(cr.author) !== personOf(actor))
    throw new ApiError(
      403,
      'FORBIDDEN',
      `cannot ${what} change request ${JSON.stringify(cr.id)}: only its author (${cr.author.name}) may`,
    );
}

/** `409` when the request is closed, but in one of the states `allowed`. */
function refuseClosedFor(cr: StoredChangeRequest, what: string, allowed: readonly string[]): void {
  if (!isClosed(cr) || allowed.includes(cr.state)) return;
  throw new ApiError(
    409,
    'CONFLICT',
    `change request ${JSON.stringify(cr.id)} is ${cr.state}: it cannot be ${what} any more`,
  );
}

/** An ISO 8601 time as UTC with milliseconds, the form every time is stored in. */
const isoOf = (text: string): string => new Date(Date.parse(text)).toISOString();
