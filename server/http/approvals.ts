/**
 * Environments whose changes need approvals (`docs/protocol.md` §2, §10.3): a direct write of a
 * flag or a segment there (a method marked `MethodSpec.approval`) is refused `403
 * APPROVAL_REQUIRED` unless the key bypasses approvals; the change is proposed as a change
 * request instead. Reads, webhooks and usage marks are not such writes.
 */
import { approvalRequired } from '../errors.js';
import type { Grant } from '../state/admin/key-ring.js';
import { requiredApprovals } from '../state/changes/representation.js';
import type { Environment } from '../state/kernel/model.js';
import type { Authenticated } from './router.js';

/** Refuses a direct write to `env` unless it needs no approvals, or `bypass` (the key bypasses them). */
export function refuseUnapproved(env: Environment, bypass: boolean): void {
  const approvals = requiredApprovals(env);
  if (approvals > 0 && !bypass) throw approvalRequired(env.project, env.environment, approvals);
}

/**
 * The check of a method marked `approval`, for a grant bound to an environment (an API key's, or
 * the admin API's for an environment's routes); a grant bound to none (the admin API's own
 * routes) checks in its handler.
 */
export function refuseUnapprovedGrant(grant: Authenticated): void {
  const { env, bypassApprovals } = grant as Partial<Grant>;
  if (env) refuseUnapproved(env, bypassApprovals === true);
}

/** What the OpenAPI documents add to a marked method's `403` (`./openapi.ts`). */
export const APPROVAL_WORDS =
  "`APPROVAL_REQUIRED`: the environment's changes need approvals and the caller does not bypass them (an API key with `bypassApprovals`): propose the change as a change request.";
