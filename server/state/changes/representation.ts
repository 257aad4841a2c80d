/**
 * A change request as the API answers it (`docs/protocol.md` §10.7): as stored, with what is read
 * against the environment now (the approvals it needs and has, the targets that moved, and on
 * its own page what each change would do), and as a webhook event carries it (`summaryOf`).
 */
import type { ChangeRequest } from '../../../src/core/wire/changes.js';
import { ApiError } from '../../errors.js';
import { personOf } from '../kernel/actors.js';
import type { ChangeRequestSummary, Environment, StoredChangeRequest } from '../kernel/model.js';
import { isClosed } from './ops.js';
import { conflictsOf, type Planners, planChanges } from './plan.js';

/** How many approvals a change of `env`'s flags and segments needs (0: none). */
export const requiredApprovals = (env: Pick<Environment, 'approvals'>): number => env.approvals ?? 0;

/** Approvals from people other than the request's author. */
export function approvalsOf(cr: StoredChangeRequest): number {
  const author = personOf(cr.author);
  let count = 0;
  for (const review of cr.reviews)
    if (review.decision === 'approve' && personOf(review.actor) !== author) count++;
  return count;
}

/** Whether the request has the approvals the environment asks for now. */
export const isApproved = (env: Environment, cr: StoredChangeRequest): boolean =>
  approvalsOf(cr) >= requiredApprovals(env);

/**
 * The request as the API answers it; with `planners`, what each change would do now (`preview`),
 * or why it cannot be applied as it stands (`problem`).
 */
export function toChangeRequest(
  env: Environment,
  cr: StoredChangeRequest,
  planners?: Planners,
): ChangeRequest {
  const view: ChangeRequest = {
    ...cr,
    approvals: { required: requiredApprovals(env), received: approvalsOf(cr) },
  };
  if (isClosed(cr) && cr.state !== 'failed') return view;
  const conflicts = conflictsOf(env, cr.changes);
  if (conflicts.length > 0) view.conflicts = conflicts;
  if (planners) {
    try {
      view.preview = planChanges(env, cr.changes, cr.author, planners).preview;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      view.problem = error.message;
    }
  }
  return view;
}

/** The request as a webhook event carries it: its changes without their bodies. */
export function summaryOf(cr: StoredChangeRequest): ChangeRequestSummary {
  return { ...cr, changes: cr.changes.map(({ body: _, ...change }) => change) };
}
