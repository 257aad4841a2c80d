/**
 * The types of `../schemas/audit.ts`, written by `npm run wire-types`: do not edit; change
 * the schema and run it again.
 */

import type { Actor } from './admin.js';

/** How many records `GET /admin/api/audit` answers at most (`?limit=`): up to 1000 as JSON, up to 100000 as JSON lines. */
export type AuditLimit = number;

/** The filters of `GET /admin/api/audit`, all optional: project, actor, since (inclusive), limit. */
export interface AuditQuery {
  /** Only this project's records. */
  project?: string;
  /** Only this actor's records, by id (`usr_…`, `pat_…`, `key_…`, `admin-token`, `config`); a user's id also finds what their tokens did. */
  actor?: string;
  /** ISO 8601 date and time, UTC */
  since?: string;
  /** How many records `GET /admin/api/audit` answers at most (`?limit=`): up to 1000 as JSON, up to 100000 as JSON lines. */
  limit?: AuditLimit;
}

/** One committed change (`GET /admin/api/audit`, newest first): when, who, where, what, and the changed fields before and after. Never a secret. */
export interface AuditRecord {
  /** The record's id: the same on every instance and after restarts (an export read twice can be merged by it). */
  id: string;
  /** ISO 8601 date and time, UTC */
  at: string;
  /** Who made a change (`docs/protocol.md` §10.6): a user, a personal token and its user, an API key, the admin token, or the system. */
  actor: Actor;
  /** The project's key, when the change is a project's. */
  project?: string;
  /** The environment's key, when the change is an environment's. */
  environment?: string;
  /** What was done: `flag.created`, `flag.updated`, `flag.deleted`, `flag.copied`, `flag.marked`, `segment.created`, `segment.updated`, `segment.deleted`, `project.created`, `project.deleted`, `environment.created`, `environment.renamed`, `environment.deleted` `environment.approvalsChanged`, `apiKey.created`, `apiKey.revoked`, `webhook.created`, `webhook.updated`, `webhook.secretRotated`, `webhook.deleted`, `user.invited`, `user.created`, `user.reinvited`, `user.updated`, `user.removed`, `user.linked`, `invitation.accepted`, `password.changed`, `token.created`, `token.revoked`, `session.revoked`, `changeRequest.created`, `changeRequest.updated`, `changeRequest.rebased`, `changeRequest.approved`, `changeRequest.rejected`, `changeRequest.scheduled`, `changeRequest.applied`, `changeRequest.failed`, `changeRequest.withdrawn`. */
  action: string;
  /** What an audit record changed. */
  target?: AuditTarget;
  /** The changed fields as they were (a counted list: `{addedCount, removedCount}`; a value over 4 KiB of JSON: `{truncated: true, bytes}`). */
  before?: Record<string, unknown>;
  /** The changed fields as they are now (counted and truncated as `before` is). */
  after?: Record<string, unknown>;
}

/** What an audit record changed. */
export interface AuditTarget {
  /** `flag`, `segment`, `project`, `environment`, `apiKey`, `webhook`, `user`, `token`, `session` or `changeRequest`. */
  kind: string;
  /** The target's key or id: a flag's or segment's key, `PROJECT/ENVIRONMENT`, an API key's, webhook's, user's or token's id. */
  key: string;
}
