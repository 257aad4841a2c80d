/**
 * The audit log's schemas (`docs/protocol.md` §10.6): one record per committed change, who made
 * it and what it changed, across projects (`GET /admin/api/audit`). A record never carries a
 * secret: no API key or its digest, no token, no webhook secret, no password or its hash.
 */
import { Type } from '@sinclair/typebox';
import { Actor } from './admin.js';
import { Timestamp } from './common.js';

export const AuditTarget = Type.Object(
  {
    kind: Type.String({
      description:
        '`flag`, `segment`, `project`, `environment`, `apiKey`, `webhook`, `user`, `token`, `session` or `changeRequest`.',
    }),
    key: Type.String({
      description:
        "The target's key or id: a flag's or segment's key, `PROJECT/ENVIRONMENT`, an API key's, webhook's, user's or token's id.",
    }),
  },
  { $id: 'AuditTarget', description: 'What an audit record changed.' },
);

export const AuditRecord = Type.Object(
  {
    id: Type.String({
      description:
        "The record's id: the same on every instance and after restarts (an export read twice can be merged by it).",
    }),
    at: Timestamp,
    actor: Actor,
    project: Type.Optional(
      Type.String({ description: "The project's key, when the change is a project's." }),
    ),
    environment: Type.Optional(
      Type.String({ description: "The environment's key, when the change is an environment's." }),
    ),
    action: Type.String({
      description:
        'What was done: `flag.created`, `flag.updated`, `flag.deleted`, `flag.copied`, `flag.marked`, `segment.created`, `segment.updated`, `segment.deleted`, `project.created`, `project.deleted`, `environment.created`, `environment.renamed`, `environment.deleted` `environment.approvalsChanged`, `apiKey.created`, `apiKey.revoked`, `webhook.created`, `webhook.updated`, `webhook.secretRotated`, `webhook.deleted`, `user.invited`, `user.created`, `user.reinvited`, `user.updated`, `user.removed`, `user.linked`, `invitation.accepted`, `password.changed`, `token.created`, `token.revoked`, `session.revoked`, `changeRequest.created`, `changeRequest.updated`, `changeRequest.rebased`, `changeRequest.approved`, `changeRequest.rejected`, `changeRequest.scheduled`, `changeRequest.applied`, `changeRequest.failed`, `changeRequest.withdrawn`.',
    }),
    target: Type.Optional(AuditTarget),
    before: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          'The changed fields as they were (a counted list: `{addedCount, removedCount}`; a value over 4 KiB of JSON: `{truncated: true, bytes}`).',
      }),
    ),
    after: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'The changed fields as they are now (counted and truncated as `before` is).',
      }),
    ),
  },
  {
    $id: 'AuditRecord',
    description:
      'One committed change (`GET /admin/api/audit`, newest first): when, who, where, what, and the changed fields before and after. Never a secret.',
  },
);

export const AuditLimit = Type.Integer({
  $id: 'AuditLimit',
  minimum: 1,
  maximum: 100_000,
  default: 200,
  description:
    'How many records `GET /admin/api/audit` answers at most (`?limit=`): up to 1000 as JSON, up to 100000 as JSON lines.',
  errorMessage: 'must be an integer from 1 to 100000',
});

export const AuditQuery = Type.Object(
  {
    project: Type.Optional(Type.String({ minLength: 1, description: "Only this project's records." })),
    actor: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "Only this actor's records, by id (`usr_…`, `pat_…`, `key_…`, `admin-token`, `config`); a user's id also finds what their tokens did.",
      }),
    ),
    since: Type.Optional(Timestamp),
    limit: Type.Optional(AuditLimit),
  },
  {
    $id: 'AuditQuery',
    description:
      'The filters of `GET /admin/api/audit`, all optional: project, actor, since (inclusive), limit.',
  },
);
