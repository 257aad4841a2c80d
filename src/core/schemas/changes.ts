/**
 * Change requests' schemas (`docs/protocol.md` §10.7): changes of flags and segments proposed,
 * reviewed by other people, and applied all at once, now or at a set time, each checked against
 * the version it was written against.
 */
import { Type } from '@sinclair/typebox';
import { Actor, HistoryChange } from './admin.js';
import { Nullable, Timestamp } from './common.js';

/** At most this many changes in one request. */
export const CHANGE_REQUEST_MAX_CHANGES = 100;

export const ChangeKind = Type.Union([Type.Literal('flag'), Type.Literal('segment')], {
  $id: 'ChangeKind',
  description: 'What a change is of.',
  errorMessage: 'must be "flag" or "segment"',
});

export const ChangeAction = Type.Union(
  [Type.Literal('create'), Type.Literal('update'), Type.Literal('delete')],
  {
    $id: 'ChangeAction',
    description: 'What a change does.',
    errorMessage: 'must be "create", "update" or "delete"',
  },
);

export const ChangeRequestState = Type.Union(
  [
    Type.Literal('open'),
    Type.Literal('approved'),
    Type.Literal('scheduled'),
    Type.Literal('applied'),
    Type.Literal('rejected'),
    Type.Literal('withdrawn'),
    Type.Literal('failed'),
  ],
  {
    $id: 'ChangeRequestState',
    description:
      '`open`: waiting for approvals; `approved`: may be applied; `scheduled`: approved, to be applied at `scheduledAt`; `applied`, `rejected`, `withdrawn`; `failed`: a scheduled request whose targets moved (`failure` says which).',
    errorMessage:
      'must be one of "open", "approved", "scheduled", "applied", "rejected", "withdrawn", "failed"',
  },
);

const Version = Type.Integer({
  minimum: 0,
  description:
    'The version of the flag or segment the change was written against (its `ETag`, §3.3); set to the current one when left out.',
  errorMessage: 'must be a whole number from 0',
});

export const ChangeInput = Type.Object(
  {
    kind: ChangeKind,
    key: Type.String({ minLength: 1, maxLength: 128, description: "The flag's or segment's key." }),
    action: ChangeAction,
    body: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          'For `create`, the body of `POST /flags` or `/segments` (its `key` may be left out); for `update`, the body of the `PATCH`; none for `delete`.',
        'x-ts': 'Record<string, unknown>',
      }),
    ),
    baseVersion: Type.Optional(Version),
  },
  {
    $id: 'ChangeInput',
    additionalProperties: false,
    description: 'One change of a request.',
  },
);

const Title = Type.String({
  minLength: 1,
  maxLength: 200,
  description: 'What the request is for, in a line.',
  errorMessage: 'must be 1 to 200 characters',
});

const RequestDescription = Type.String({
  maxLength: 4000,
  description: 'Why, at more length.',
  errorMessage: 'must be at most 4000 characters',
});

const Changes = Type.Array(ChangeInput, {
  minItems: 1,
  maxItems: CHANGE_REQUEST_MAX_CHANGES,
  description: 'The changes, applied in this order, all or none.',
  errorMessage: `must hold 1 to ${CHANGE_REQUEST_MAX_CHANGES} changes`,
});

export const CreateChangeRequestInput = Type.Object(
  {
    title: Title,
    description: Type.Optional(Nullable(RequestDescription)),
    changes: Changes,
    scheduledAt: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'Apply at this time (ISO 8601), once approved.',
        errorMessage: 'must be an ISO 8601 date and time',
      }),
    ),
  },
  {
    $id: 'CreateChangeRequestInput',
    additionalProperties: false,
    description: '`POST .../change-requests`.',
  },
);

export const UpdateChangeRequestInput = Type.Object(
  {
    title: Type.Optional(Title),
    description: Type.Optional(Nullable(RequestDescription)),
    changes: Type.Optional(Changes),
    rebase: Type.Optional(
      Type.Boolean({
        description:
          "Takes the current version of every target as each change's `baseVersion` (after a `409 CONFLICT`): the author has read what moved.",
      }),
    ),
  },
  {
    $id: 'UpdateChangeRequestInput',
    additionalProperties: false,
    'x-fixed': ['id', 'state', 'author', 'reviews'],
    description:
      '`PATCH .../change-requests/:id`, by its author: any change of it (or a rebase) clears its approvals and opens it again.',
  },
);

export const ReviewInput = Type.Object(
  {
    decision: Type.Union([Type.Literal('approve'), Type.Literal('reject')], {
      errorMessage: 'must be "approve" or "reject"',
    }),
    comment: Type.Optional(Type.String({ maxLength: 4000, errorMessage: 'must be at most 4000 characters' })),
  },
  { $id: 'ReviewInput', additionalProperties: false, description: '`POST .../change-requests/:id/reviews`.' },
);

export const ScheduleInput = Type.Object(
  {
    at: Type.String({
      format: 'date-time',
      description: 'When to apply it (ISO 8601); a time past applies it at once.',
      errorMessage: 'must be an ISO 8601 date and time',
    }),
  },
  {
    $id: 'ScheduleInput',
    additionalProperties: false,
    description: '`POST .../change-requests/:id/schedule`.',
  },
);

export const Change = Type.Object(
  {
    kind: ChangeKind,
    key: Type.String(),
    action: ChangeAction,
    body: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { 'x-ts': 'Record<string, unknown>' })),
    baseVersion: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { $id: 'Change', description: 'One change of a request, as stored.' },
);

export const Review = Type.Object(
  {
    actor: Actor,
    decision: Type.Union([Type.Literal('approve'), Type.Literal('reject')]),
    comment: Type.Optional(Type.String()),
    at: Timestamp,
  },
  { $id: 'Review', description: "One person's review: their latest decision." },
);

export const ChangeConflict = Type.Object(
  {
    kind: ChangeKind,
    key: Type.String(),
    baseVersion: Nullable(Type.Integer({ minimum: 0 }), {
      description: '`null`: the change creates it, so it was written expecting none.',
    }),
    currentVersion: Nullable(Type.Integer({ minimum: 0 }), {
      description: '`null`: there is none now (deleted since).',
    }),
  },
  {
    $id: 'ChangeConflict',
    description:
      'A target that moved since the change was written: the version it expected and the one it is at.',
  },
);

export const ChangePreview = Type.Object(
  {
    kind: ChangeKind,
    key: Type.String(),
    action: ChangeAction,
    changes: Type.Array(HistoryChange, {
      description:
        'What it would change, field by field, against the target as it is now (as the history would record it).',
    }),
  },
  { $id: 'ChangePreview', description: 'What one change would do now.' },
);

export const ChangeRequest = Type.Object(
  {
    id: Type.String({ description: '`cr_` and 16 hex characters.' }),
    title: Type.String(),
    description: Type.Optional(Nullable(Type.String())),
    state: ChangeRequestState,
    author: Actor,
    changes: Type.Array(Change),
    reviews: Type.Array(Review),
    approvals: Type.Object(
      {
        required: Type.Integer({ minimum: 0, description: "The environment's setting now." }),
        received: Type.Integer({ minimum: 0, description: 'Approvals from people other than the author.' }),
      },
      { description: 'How many approvals it needs and has.' },
    ),
    scheduledAt: Type.Optional(Timestamp),
    appliedAt: Type.Optional(Timestamp),
    appliedBy: Type.Optional(Actor),
    late: Type.Optional(
      Type.Boolean({
        description: 'Applied after its `scheduledAt` by more than a minute (the server was down then).',
      }),
    ),
    failure: Type.Optional(Type.String({ description: 'Why a scheduled request was not applied.' })),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    conflicts: Type.Optional(
      Type.Array(ChangeConflict, {
        description: 'While it is not applied: the targets that moved since it was written (none: left out).',
      }),
    ),
    problem: Type.Optional(
      Type.String({
        description:
          '`GET .../change-requests/:id` only: why it cannot be applied as it stands, besides `conflicts` (a segment its rules name is gone, say).',
      }),
    ),
    preview: Type.Optional(
      Type.Array(ChangePreview, {
        description: '`GET .../change-requests/:id` only, while not applied: what each change would do now.',
      }),
    ),
  },
  {
    $id: 'ChangeRequest',
    description: 'A change request (`docs/protocol.md` §10.7).',
  },
);

export const ConflictBody = Type.Object(
  {
    error: Type.Literal('CONFLICT'),
    message: Type.String(),
    conflicts: Type.Optional(
      Type.Array(ChangeConflict, {
        description: 'The targets that moved since the request was written (then nothing was written).',
      }),
    ),
  },
  {
    $id: 'ConflictBody',
    description:
      '`409 CONFLICT`: targets moved since the request was written (`conflicts`), the request is closed, or the environment holds the most requests under way.',
  },
);
