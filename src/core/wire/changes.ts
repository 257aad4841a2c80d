/**
 * The types of `../schemas/changes.ts`, written by `npm run wire-types`: do not edit; change
 * the schema and run it again.
 */

import type { Actor, HistoryChange } from './admin.js';

/** One change of a request, as stored. */
export interface Change {
  /** What a change is of. */
  kind: ChangeKind;
  key: string;
  /** What a change does. */
  action: ChangeAction;
  body?: Record<string, unknown>;
  baseVersion?: number;
}

/** What a change does. */
export type ChangeAction = 'create' | 'update' | 'delete';

/** A target that moved since the change was written: the version it expected and the one it is at. */
export interface ChangeConflict {
  /** What a change is of. */
  kind: ChangeKind;
  key: string;
  /** `null`: the change creates it, so it was written expecting none. */
  baseVersion: number | null;
  /** `null`: there is none now (deleted since). */
  currentVersion: number | null;
}

/** One change of a request. */
export interface ChangeInput {
  /** What a change is of. */
  kind: ChangeKind;
  /** The flag's or segment's key. */
  key: string;
  /** What a change does. */
  action: ChangeAction;
  /** For `create`, the body of `POST /flags` or `/segments` (its `key` may be left out); for `update`, the body of the `PATCH`; none for `delete`. */
  body?: Record<string, unknown>;
  /** The version of the flag or segment the change was written against (its `ETag`, §3.3); set to the current one when left out. */
  baseVersion?: number;
}

/** What a change is of. */
export type ChangeKind = 'flag' | 'segment';

/** What one change would do now. */
export interface ChangePreview {
  /** What a change is of. */
  kind: ChangeKind;
  key: string;
  /** What a change does. */
  action: ChangeAction;
  /** What it would change, field by field, against the target as it is now (as the history would record it). */
  changes: HistoryChange[];
}

/** A change request (`docs/protocol.md` §10.7). */
export interface ChangeRequest {
  /** `cr_` and 16 hex characters. */
  id: string;
  title: string;
  description?: string | null;
  /** `open`: waiting for approvals; `approved`: may be applied; `scheduled`: approved, to be applied at `scheduledAt`; `applied`, `rejected`, `withdrawn`; `failed`: a scheduled request whose targets moved (`failure` says which). */
  state: ChangeRequestState;
  /** Who made a change (`docs/protocol.md` §10.6): a user, a personal token and its user, an API key, the admin token, or the system. */
  author: Actor;
  changes: Change[];
  reviews: Review[];
  /** How many approvals it needs and has. */
  approvals: {
    /** The environment's setting now. */
    required: number;
    /** Approvals from people other than the author. */
    received: number;
  };
  /** ISO 8601 date and time, UTC */
  scheduledAt?: string;
  /** ISO 8601 date and time, UTC */
  appliedAt?: string;
  /** Who made a change (`docs/protocol.md` §10.6): a user, a personal token and its user, an API key, the admin token, or the system. */
  appliedBy?: Actor;
  /** Applied after its `scheduledAt` by more than a minute (the server was down then). */
  late?: boolean;
  /** Why a scheduled request was not applied. */
  failure?: string;
  /** ISO 8601 date and time, UTC */
  createdAt: string;
  /** ISO 8601 date and time, UTC */
  updatedAt: string;
  /** While it is not applied: the targets that moved since it was written (none: left out). */
  conflicts?: ChangeConflict[];
  /** `GET .../change-requests/:id` only: why it cannot be applied as it stands, besides `conflicts` (a segment its rules name is gone, say). */
  problem?: string;
  /** `GET .../change-requests/:id` only, while not applied: what each change would do now. */
  preview?: ChangePreview[];
}

/** `open`: waiting for approvals; `approved`: may be applied; `scheduled`: approved, to be applied at `scheduledAt`; `applied`, `rejected`, `withdrawn`; `failed`: a scheduled request whose targets moved (`failure` says which). */
export type ChangeRequestState =
  | 'open'
  | 'approved'
  | 'scheduled'
  | 'applied'
  | 'rejected'
  | 'withdrawn'
  | 'failed';

/** `409 CONFLICT`: targets moved since the request was written (`conflicts`), the request is closed, or the environment holds the most requests under way. */
export interface ConflictBody {
  error: 'CONFLICT';
  message: string;
  /** The targets that moved since the request was written (then nothing was written). */
  conflicts?: ChangeConflict[];
}

/** `POST .../change-requests`. */
export interface CreateChangeRequestInput {
  /** What the request is for, in a line. */
  title: string;
  description?: string | null;
  /** The changes, applied in this order, all or none. */
  changes: ChangeInput[];
  /** Apply at this time (ISO 8601), once approved. */
  scheduledAt?: string;
}

/** One person's review: their latest decision. */
export interface Review {
  /** Who made a change (`docs/protocol.md` §10.6): a user, a personal token and its user, an API key, the admin token, or the system. */
  actor: Actor;
  decision: 'approve' | 'reject';
  comment?: string;
  /** ISO 8601 date and time, UTC */
  at: string;
}

/** `POST .../change-requests/:id/reviews`. */
export interface ReviewInput {
  decision: 'approve' | 'reject';
  comment?: string;
}

/** `POST .../change-requests/:id/schedule`. */
export interface ScheduleInput {
  /** When to apply it (ISO 8601); a time past applies it at once. */
  at: string;
}

/** `PATCH .../change-requests/:id`, by its author: any change of it (or a rebase) clears its approvals and opens it again. */
export interface UpdateChangeRequestInput {
  /** What the request is for, in a line. */
  title?: string;
  description?: string | null;
  /** The changes, applied in this order, all or none. */
  changes?: ChangeInput[];
  /** Takes the current version of every target as each change's `baseVersion` (after a `409 CONFLICT`): the author has read what moved. */
  rebase?: boolean;
}
