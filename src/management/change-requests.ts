/**
 * The management client's change requests (`docs/protocol.md` §10.7): changes of flags and
 * segments proposed for review, approved by someone other than their author, and applied all at
 * once, now or at a set time. They are the admin API's: the client's `baseUrl` must be an
 * environment of it (`http://HOST/admin/api/environments/PROJECT/ENVIRONMENT`) and its `apiKey`
 * a personal access token (`fw_pat_...`) of an editor there; with an `/api/v1` base these calls
 * answer `NOT_FOUND`.
 */

import type { Flag, UpdateFlagInput } from '../core/types.js';
import type {
  Change,
  ChangeAction,
  ChangeConflict,
  ChangeInput,
  ChangeKind,
  ChangePreview,
  ChangeRequest,
  ChangeRequestState,
  CreateChangeRequestInput,
  Review,
  ReviewInput,
  UpdateChangeRequestInput,
} from '../core/wire/changes.js';
import { type CallOptions, type ChangeConflictError, call, type RequestSettings } from './request.js';
import type { Versioned } from './versions.js';

export type {
  Change,
  ChangeAction,
  ChangeConflict,
  ChangeConflictError,
  ChangeInput,
  ChangeKind,
  ChangePreview,
  ChangeRequest,
  ChangeRequestState,
  CreateChangeRequestInput,
  Review,
  ReviewInput,
  UpdateChangeRequestInput,
};

/** Which requests `changeRequests.list` answers. */
export interface ChangeRequestFilter {
  state?: ChangeRequestState;
}

/** What `changeRequests.proposeFlagUpdate` proposes besides the change itself. */
export interface ProposalInput {
  /** What the request is for, in a line. */
  title: string;
  description?: string | null;
  /** Apply it at this time, once approved. */
  scheduledAt?: Date | string;
}

/**
 * Change requests of the client's environment. Each needs the admin API's environment as
 * `baseUrl` and a personal access token (see the module). Every call answers the request as it
 * is after it; a refusal rejects with a `FlagwireError`: `FORBIDDEN` (the author reviewing their
 * own request, someone else changing or withdrawing it, a role short of editor), `CONFLICT` (a
 * closed request; or a stale one, see `isChangeConflict`), `APPROVAL_REQUIRED` (applying it
 * without its approvals), `NOT_FOUND`, `VALIDATION_ERROR`.
 */
export interface ChangeRequestCalls {
  /** The environment's requests, newest first; only those in `filter.state` when given. */
  list(filter?: ChangeRequestFilter, options?: CallOptions): Promise<ChangeRequest[]>;
  /** One request, with what each change would do now (`preview`) and what moved (`conflicts`). */
  get(id: string, options?: CallOptions): Promise<ChangeRequest>;
  /**
   * Proposes changes. A change's `baseVersion` (the version `flags.read` answers) is the current
   * one when left out; a target past it rejects with `CONFLICT` and its `conflicts`.
   */
  create(input: CreateChangeRequestInput, options?: CallOptions): Promise<ChangeRequest>;
  /** Changes a request (its author only): its approvals are cleared and it is open again. */
  update(id: string, patch: UpdateChangeRequestInput, options?: CallOptions): Promise<ChangeRequest>;
  /**
   * Takes the current version of every target as its change's `baseVersion`, after a `CONFLICT`
   * once what moved is read (its author only): its approvals are cleared.
   */
  rebase(id: string, options?: CallOptions): Promise<ChangeRequest>;
  /** Approves or rejects a request (anyone but its author: `FORBIDDEN`). */
  review(id: string, review: ReviewInput, options?: CallOptions): Promise<ChangeRequest>;
  approve(id: string, comment?: string, options?: CallOptions): Promise<ChangeRequest>;
  reject(id: string, comment?: string, options?: CallOptions): Promise<ChangeRequest>;
  /**
   * Applies an approved request now, all or nothing: `APPROVAL_REQUIRED` without its approvals;
   * `CONFLICT` with `conflicts` (see `isChangeConflict`) when a target moved, writing nothing.
   */
  apply(id: string, options?: CallOptions): Promise<ChangeRequest>;
  /** Sets when the request is applied (a time past: at once, once approved); approved, it is `scheduled`. */
  schedule(id: string, at: Date | string, options?: CallOptions): Promise<ChangeRequest>;
  /** Withdraws a request (its author only). */
  withdraw(id: string, options?: CallOptions): Promise<ChangeRequest>;
  /**
   * Reads flag `key` (`flags.read`) and proposes `patch` against the version read, so the
   * request rejects with `CONFLICT` if the flag moves before it is applied.
   */
  proposeFlagUpdate(
    key: string,
    patch: UpdateFlagInput,
    request: ProposalInput,
    options?: CallOptions,
  ): Promise<ChangeRequest>;
}

/** Whether `error` is a change request refused because its targets moved (with their `conflicts`). */
export function isChangeConflict(error: unknown): error is ChangeConflictError {
  const { code, conflicts } = Object(error) as { code?: unknown; conflicts?: unknown };
  return code === 'CONFLICT' && Array.isArray(conflicts);
}

const iso = (at: Date | string) => (typeof at === 'string' ? at : at.toISOString());

export function changeRequestCalls(
  settings: RequestSettings,
  readFlag: (key: string, options?: CallOptions) => Promise<Versioned<Flag>>,
): ChangeRequestCalls {
  const send = <T>(method: string, path: string, body?: unknown, o?: CallOptions) =>
    call<T>(settings, method, path, body, o);
  const at = (id: string, tail = '') => `/change-requests/${encodeURIComponent(id)}${tail}`;
  const post = (id: string, tail: string, body: unknown, o?: CallOptions) =>
    send<ChangeRequest>('POST', at(id, tail), body, o);
  const decide =
    (decision: ReviewInput['decision']) =>
    (id: string, comment?: string, o?: CallOptions): Promise<ChangeRequest> =>
      calls.review(id, comment === undefined ? { decision } : { decision, comment }, o);
  const calls: ChangeRequestCalls = {
    list: (filter, o) =>
      send('GET', `/change-requests${filter?.state ? `?state=${filter.state}` : ''}`, undefined, o),
    get: (id, o) => send('GET', at(id), undefined, o),
    create: (input, o) => send('POST', '/change-requests', input, o),
    update: (id, patch, o) => send('PATCH', at(id), patch, o),
    rebase: (id, o) => send('PATCH', at(id), { rebase: true }, o),
    review: (id, review, o) => post(id, '/reviews', review, o),
    approve: decide('approve'),
    reject: decide('reject'),
    apply: (id, o) => post(id, '/apply', undefined, o),
    schedule: (id, when, o) => post(id, '/schedule', { at: iso(when) }, o),
    withdraw: (id, o) => send('DELETE', at(id), undefined, o),
    proposeFlagUpdate: async (key, patch, { scheduledAt, ...request }, o) =>
      calls.create(
        {
          ...request,
          ...(scheduledAt !== undefined && { scheduledAt: iso(scheduledAt) }),
          changes: [
            {
              kind: 'flag',
              key,
              action: 'update',
              body: patch as Record<string, unknown>,
              baseVersion: (await readFlag(key, o)).version,
            },
          ],
        },
        o,
      ),
  };
  return calls;
}
