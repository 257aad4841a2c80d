/**
 * The dashboard's admin API, its own shapes (`docs/protocol.md` §10): the session, projects,
 * environments, API keys, history, copying flags, "who gets what" and the event stream. What it
 * answers as `/api/v1` does (flags, segments, webhooks, usage) is those schemas themselves.
 */
import { Type } from '@sinclair/typebox';
import { FLAG_KEY_MAX_LENGTH, FLAG_KEY_PATTERN } from '../limits.js';
import { Json, Nullable, Timestamp } from './common.js';
import { Flag, UpdateFlagInput } from './flags.js';
import { PasswordSignIn, SessionUser, SignedInVia, TokenSignIn } from './people.js';
import { UsageCountReason } from './sdk.js';

/** A key as flags have them (§3.1): the key of a project, an environment, a flag. */
const Key = (description: string) =>
  Type.String({
    minLength: 1,
    maxLength: FLAG_KEY_MAX_LENGTH,
    pattern: FLAG_KEY_PATTERN.source,
    description,
    errorMessage: {
      pattern: 'may contain only letters, digits, ".", "_" and "-", and must start with a letter or digit',
    },
  });

/** One key of `PROJECT/ENVIRONMENT`, as `FLAG_KEY_PATTERN` and `FLAG_KEY_MAX_LENGTH` say. */
const KEY_PART = `[A-Za-z0-9][A-Za-z0-9._-]{0,${FLAG_KEY_MAX_LENGTH - 1}}`;

/** `PROJECT/ENVIRONMENT` (the route answers `404` when it names none). */
const EnvName = (description: string) =>
  Type.String({
    pattern: `^${KEY_PART}/${KEY_PART}$`,
    description: `${description}: \`PROJECT/ENVIRONMENT\`, e.g. \`acme/staging\`.`,
    errorMessage: 'must be "PROJECT/ENVIRONMENT", e.g. "acme/staging"',
  });

export const SessionInput = Type.Union([PasswordSignIn, TokenSignIn], {
  $id: 'SessionInput',
  description:
    '`POST /admin/api/session`: an e-mail address and password, or the admin token, exchanged for the session cookie.',
});

export const SessionAnswer = Type.Object(
  {
    signedIn: Type.Literal(true),
    user: Nullable(SessionUser, { description: 'The person; `null` for the admin token.' }),
    via: SignedInVia,
  },
  { $id: 'SessionAnswer', description: '`GET /admin/api/session` while signed in (else `401`).' },
);

export const EnvSource = Type.Union(
  [Type.Literal('config'), Type.Literal('default'), Type.Literal('dashboard')],
  {
    $id: 'EnvSource',
    description:
      'Where a project or environment comes from: the config file, the default set-up, the dashboard.',
  },
);

export const EnvView = Type.Object(
  {
    project: Type.String(),
    key: Type.String(),
    source: EnvSource,
    createdAt: Nullable(Timestamp),
    streams: Type.Integer({ minimum: 0, description: 'Open SDK event streams now (§10.4).' }),
    flags: Type.Integer({ minimum: 0 }),
    revision: Type.Integer({ minimum: 0 }),
    approvals: Type.Integer({
      minimum: 0,
      maximum: 10,
      description:
        'How many approvals a change of its flags and segments needs (`0`: none, written directly); `/api/v1` writes by a key without `bypassApprovals` are refused `403 APPROVAL_REQUIRED`.',
    }),
  },
  {
    $id: 'EnvView',
    description: 'An environment as the overview lists it (and a creation or rename answers it).',
  },
);

export const ProjectView = Type.Object(
  {
    key: Type.String(),
    source: EnvSource,
    createdAt: Nullable(Timestamp),
    environments: Type.Array(EnvView),
  },
  {
    $id: 'ProjectView',
    description: 'A project as the overview lists it, with its environments (a creation: none yet).',
  },
);

export const Overview = Type.Object(
  { projects: Type.Array(ProjectView) },
  { $id: 'Overview', description: '`GET /admin/api/overview`.' },
);

export const KeyInput = Type.Object(
  { key: Key('The new key.') },
  {
    $id: 'KeyInput',
    additionalProperties: false,
    description: '`{key}` of a new project or environment, or of a rename: the flag key rules (§3.1).',
  },
);

/** The most approvals an environment may require. */
export const MAX_APPROVALS = 10;

export const EnvApprovals = Type.Integer({
  $id: 'EnvApprovals',
  minimum: 0,
  maximum: MAX_APPROVALS,
  description: `How many approvals a change of the environment's flags and segments needs: 0 (off) to ${MAX_APPROVALS}.`,
  errorMessage: `must be an integer from 0 (off) to ${MAX_APPROVALS}`,
});

export const EnvPatchInput = Type.Object(
  {
    key: Type.Optional(Key('The new key (a rename).')),
    approvals: Type.Optional(EnvApprovals),
  },
  {
    $id: 'EnvPatchInput',
    additionalProperties: false,
    minProperties: 1,
    description:
      '`PATCH /admin/api/environments/:project/:env`: a rename (`key`, the flag key rules, §3.1; one the dashboard made), the approvals its changes need (`approvals`), or both.',
    errorMessage: { minProperties: 'must name "key", "approvals" or both' },
  },
);

export const KeyAccess = Type.Union(
  [Type.Literal('full'), Type.Literal('read-only'), Type.Literal('client')],
  {
    $id: 'KeyAccess',
    description:
      'What a key opens (§2): `full` writes, `read-only` reads, `client` only evaluates through OFREP.',
    errorMessage: 'must be "full", "read-only" or "client"',
  },
);

export const KeySource = Type.Union(
  [Type.Literal('config'), Type.Literal('generated'), Type.Literal('dashboard')],
  {
    $id: 'KeySource',
    description:
      "Where a key comes from: the config file (not revocable here), the default project's printed keys, the dashboard.",
  },
);

export const ApiKeyView = Type.Object(
  {
    id: Type.String({ description: "`key_` + 16 hex characters of the key's SHA-256 digest." }),
    name: Nullable(Type.String()),
    access: KeyAccess,
    hint: Type.String({ description: "`fw_live_…` + the key's last four characters." }),
    source: KeySource,
    createdAt: Nullable(Timestamp),
    revocable: Type.Boolean(),
    bypassApprovals: Type.Boolean({
      description:
        "Whether its writes skip the environment's approvals (a `full` key only): what automation that cannot wait for a review uses.",
    }),
  },
  { $id: 'ApiKeyView', description: 'An API key as the keys list shows it (never its value).' },
);

export const NewApiKeyInput = Type.Object(
  {
    access: KeyAccess,
    name: Type.Optional(
      Nullable(Type.String({ maxLength: 100 }), {
        description: 'Its name, trimmed; empty or `null`: none.',
        errorMessage: 'must be a string of at most 100 characters, or null',
      }),
    ),
    bypassApprovals: Type.Optional(
      Type.Boolean({
        description:
          "Its writes skip the environment's approvals (default `false`); a `full` key only (`400` on another access).",
        errorMessage: 'must be true or false',
      }),
    ),
  },
  {
    $id: 'NewApiKeyInput',
    additionalProperties: false,
    description:
      "`POST .../keys`: a new key's access, name (at most 100 characters) and whether it bypasses approvals.",
  },
);

export const CreatedApiKey = Type.Composite(
  [ApiKeyView, Type.Object({ key: Type.String({ description: 'The key, shown this once.' }) })],
  {
    $id: 'CreatedApiKey',
    description: 'The `201` of `POST .../keys`: the key with its full value, shown this once.',
  },
);

export const ActorType = Type.Union(
  [
    Type.Literal('user'),
    Type.Literal('token'),
    Type.Literal('apiKey'),
    Type.Literal('adminToken'),
    Type.Literal('system'),
  ],
  {
    $id: 'ActorType',
    description:
      'Who made a change: a signed-in `user`, a personal access `token` (acting as its user), an environment `apiKey`, the `adminToken`, or the `system` (the config file, a scheduled change).',
  },
);

export const Actor = Type.Object(
  {
    type: ActorType,
    id: Type.String({
      description:
        "The actor's id: a user's or a token's id, an API key's hint, `admin-token`, or what the system acted as (`config`).",
    }),
    name: Type.String({ description: 'How the actor reads on screen: a display name, a key or token name.' }),
    hint: Type.Optional(
      Type.String({ description: "An API key's hint (`fw_live_…` and its last four characters)." }),
    ),
    user: Type.Optional(
      Type.Object(
        { id: Type.String(), name: Type.String() },
        { description: 'The user a personal access token acts as.' },
      ),
    ),
  },
  {
    $id: 'Actor',
    description:
      'Who made a change (`docs/protocol.md` §10.6): a user, a personal token and its user, an API key, the admin token, or the system.',
  },
);

/** A field that is never there (a `HistoryChange` of added and removed keys has no `from`, `to`). */
const Absent = Type.Optional(Type.Unsafe<undefined>({ not: {}, 'x-ts': 'undefined' }));

const ListedKey = Type.Union([Type.String(), Type.Object({ variant: Type.String(), key: Type.String() })]);

export const HistoryChange = Type.Union(
  [
    Type.Object({ field: Type.String(), from: Type.Unknown(), to: Type.Unknown() }),
    Type.Object({
      field: Type.String(),
      added: Type.Array(ListedKey),
      removed: Type.Array(ListedKey),
      addedCount: Type.Integer({ minimum: 0 }),
      removedCount: Type.Integer({ minimum: 0 }),
      from: Absent,
      to: Absent,
    }),
  ],
  {
    $id: 'HistoryChange',
    description:
      "One field of a history entry: its old and new values whole; or, for a list of keys (`included`, `excluded`, `targets`, a rule's long clause values) with more than 100 entries on either side, the keys added and removed, counted, with at most 20 of each shown (§12.5).",
  },
);

export const ChangeRequestRef = Type.Object(
  {
    id: Type.String(),
    title: Type.String(),
    approvedBy: Type.Array(Actor, { description: 'The people who approved it (the `actor` is its author).' }),
  },
  {
    $id: 'ChangeRequestRef',
    description: 'The change request a change was applied from (`docs/protocol.md` §10.7).',
  },
);

export const HistoryEntry = Type.Object(
  {
    revision: Type.Integer({ minimum: 0 }),
    at: Timestamp,
    flag: Type.String({ description: "The flag's key; for a segment change, `segment:<key>`." }),
    action: Type.Union(
      [Type.Literal('created'), Type.Literal('updated'), Type.Literal('deleted'), Type.Literal('copied')],
      {
        description:
          '`copied`: the flag was copied to another environment (`copiedTo`); nothing changed here.',
      },
    ),
    changes: Type.Array(HistoryChange),
    actor: Actor,
    copiedFrom: Type.Optional(
      Type.String({ description: 'The change came from copying flags: from `PROJECT/ENVIRONMENT`.' }),
    ),
    copiedTo: Type.Optional(Type.String({ description: 'The flag was copied to `PROJECT/ENVIRONMENT`.' })),
    changeRequest: Type.Optional(ChangeRequestRef),
  },
  {
    $id: 'HistoryEntry',
    description: 'One committed flag or segment change (`GET .../history`, newest first).',
  },
);

export const HistoryLimit = Type.Integer({
  $id: 'HistoryLimit',
  minimum: 1,
  maximum: 1000,
  default: 200,
  description: 'How many entries `GET .../history` answers at most (`?limit=`).',
  errorMessage: 'must be an integer from 1 to 1000',
});

/** The most flags one copy names. */
export const COPY_MAX_FLAGS = 10_000;

const copyFields = {
  from: EnvName('The environment copied from'),
  to: EnvName('The environment copied to'),
  flags: Type.Optional(
    Type.Array(Type.String(), {
      minItems: 1,
      maxItems: COPY_MAX_FLAGS,
      uniqueItems: true,
      description: 'The flags to copy; left out, every flag.',
      'x-ts': 'readonly string[]',
      errorMessage: `must be a list of 1 to ${COPY_MAX_FLAGS} distinct flag keys, or left out (every flag)`,
    }),
  ),
};

/** A revision a preview answered. */
const Revision = (description: string) =>
  Type.Integer({
    minimum: 0,
    maximum: Number.MAX_SAFE_INTEGER,
    description,
    errorMessage: 'must be the revision the preview answered (an integer from 0)',
  });

export const CopyFlagsInput = Type.Object(copyFields, {
  $id: 'CopyFlagsInput',
  additionalProperties: false,
  description:
    '`POST /admin/api/copy-flags/preview`: from and to `PROJECT/ENVIRONMENT`; no `flags`, every flag.',
});

export const CopyFlagsApplyInput = Type.Object(
  {
    ...copyFields,
    expectedRevision: Revision("The target's revision the preview answered."),
    expectedSourceRevision: Type.Optional(Revision("The source's revision the preview answered.")),
  },
  {
    $id: 'CopyFlagsApplyInput',
    additionalProperties: false,
    description: '`POST /admin/api/copy-flags`: with the revisions the preview answered.',
  },
);

export const CopyEnvRef = Type.Object(
  { project: Type.String(), environment: Type.String(), revision: Type.Integer({ minimum: 0 }) },
  {
    $id: 'CopyEnvRef',
    description: 'An environment of a copy, at its revision (after the copy, for `to` of its answer).',
  },
);

export const FlagCopy = Type.Object(
  {
    key: Type.String(),
    status: Type.Union([
      Type.Literal('created'),
      Type.Literal('changed'),
      Type.Literal('unchanged'),
      Type.Literal('conflict'),
    ]),
    changes: Type.Array(HistoryChange, {
      description:
        'What the copy changes in the target, as the history would record it; a creation: every field, `from: null`.',
    }),
    reason: Type.Optional(Type.String({ description: 'Why the flag cannot be copied (`conflict` only).' })),
  },
  { $id: 'FlagCopy', description: 'What a copy does to one flag.' },
);

export const SegmentCopy = Type.Object(
  {
    key: Type.String(),
    status: Type.Union([Type.Literal('created'), Type.Literal('kept')]),
    differs: Type.Boolean({ description: 'Whether a kept segment is defined otherwise in the source.' }),
  },
  {
    $id: 'SegmentCopy',
    description:
      "A segment the copied rules name: `created` with them, or `kept` (the target's own, never overwritten).",
  },
);

export const CopyPreview = Type.Object(
  {
    from: CopyEnvRef,
    to: CopyEnvRef,
    flags: Type.Array(FlagCopy),
    segments: Type.Array(SegmentCopy),
  },
  { $id: 'CopyPreview', description: 'The answer of the preview, and of the copy (what was done).' },
);

export const VersionedFlag = Type.Intersect(
  [Flag, Type.Object({ version: Type.Integer({ minimum: 0, description: "The flag's `ETag`." }) })],
  {
    $id: 'VersionedFlag',
    description: '`GET /admin/api/environments/:env/flags`: each flag with its `version` (its `ETag`, §3.3).',
  },
);

/** The most attributes a user of `POST /admin/api/evaluate` has. */
export const EVALUATE_MAX_ATTRIBUTES = 1000;

export const EvaluateInput = Type.Object(
  {
    environment: EnvName('The environment'),
    flag: Type.String({ description: "The flag's key.", errorMessage: 'must be a flag key' }),
    user: Type.Object(
      { key: Type.Optional(Nullable(Type.String(), { errorMessage: 'must be a string' })) },
      {
        maxProperties: EVALUATE_MAX_ATTRIBUTES,
        description: `\`{key?, ...attributes}\`: at most ${EVALUATE_MAX_ATTRIBUTES} attributes, \`key\` a string.`,
        errorMessage: { maxProperties: `may have at most ${EVALUATE_MAX_ATTRIBUTES} attributes` },
        'x-ts': 'Record<string, unknown>',
      },
    ),
    draft: Type.Optional(UpdateFlagInput),
  },
  {
    $id: 'EvaluateInput',
    additionalProperties: false,
    description:
      '`POST /admin/api/evaluate`: one flag of `PROJECT/ENVIRONMENT` for a user, as saved and as `draft`.',
  },
);

export const Served = Type.Object(
  {
    value: Nullable(Json),
    variant: Type.Optional(Type.String()),
    reason: UsageCountReason,
    ruleIndex: Type.Optional(Type.Integer({ minimum: 0 })),
    ruleId: Type.Optional(Type.String()),
    prerequisiteKey: Type.Optional(Type.String()),
    bucket: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    split: Type.Optional(Type.Literal(true)),
    static: Type.Optional(Type.Literal(true)),
    errorCode: Type.Optional(Type.Literal('MALFORMED_FLAG')),
    error: Type.Optional(Type.String({ description: '`ERROR`: what the evaluator could not do.' })),
  },
  {
    $id: 'Served',
    description: "What a flag serves a user, as the SDK's `getDetail` says it (§9, §12.4).",
  },
);

export const Refused = Type.Object(
  {
    error: Type.Union([Type.Literal('VALIDATION_ERROR'), Type.Literal('CONFLICT')]),
    message: Type.String(),
  },
  {
    $id: 'Refused',
    description:
      'The draft could not be saved as it is: why, as a `PATCH` would say it (`CONFLICT`: it removes a variant still in use).',
  },
);

export const EvaluateAnswer = Type.Object(
  { saved: Served, draft: Type.Optional(Type.Union([Served, Refused])) },
  { $id: 'EvaluateAnswer', description: "The answer: the saved flag's, and the draft's when one was sent." },
);

export const AdminChangeEvent = Type.Object(
  {
    env: Type.String({ description: '`PROJECT/ENVIRONMENT`.' }),
    revision: Type.Integer({ minimum: 0 }),
    flag: Type.Optional(Type.String({ description: "The flag's key." })),
  },
  {
    $id: 'AdminChangeEvent',
    description: '`event: change`: a committed flag change in environment `env` (`PROJECT/ENVIRONMENT`).',
  },
);

export const StreamCounts = Type.Record(Type.String(), Type.Integer({ minimum: 0 }), {
  $id: 'StreamCounts',
  description: '`event: streams`: the open SDK streams per environment (`PROJECT/ENVIRONMENT`).',
});
