/**
 * The SDK endpoints (`docs/protocol.md` §5, §12.6, §13): the snapshot of `GET /sdk/flags`, the
 * data of the stream's events, and the usage report of `POST /sdk/usage` with its answer.
 *
 * A report's `errorMessage`s are its reasons as §13.3 words them (`counts[3].count: must be an
 * integer from 1 to 9007199254740991`): one a field, for every keyword, so the first problem
 * reads the same whichever rule it breaks. Unknown fields of a report are ignored (§13.2).
 */
import { Type } from '@sinclair/typebox';
import { FLAG_KEY_MAX_LENGTH, FLAG_KEY_PATTERN } from '../limits.js';
import { COUNTED_REASONS, MAX_COUNT_ROWS, MAX_UNKNOWN_KEYS } from '../usage-limits.js';
import { Nullable } from './common.js';
import { AnyFlagType } from './flags.js';
import { Clause, Prerequisite, Rule, Serve, Target, Variants } from './targeting.js';

// ---- Flags and segments in the SDK form (§5.2, §12.6) ----

export const MatchesProgram = Type.Object(
  {
    code: Type.Array(Type.Integer(), {
      description: 'Instructions of three integers `op, x, y` (`docs/protocol.md` §12.6).',
    }),
    ranges: Type.Array(Type.Integer({ minimum: 0, maximum: 0x10ffff }), {
      description: 'Sorted `lo, hi` code point pairs.',
    }),
    sets: Type.Array(
      Type.Unsafe<[string, string]>({
        type: 'array',
        prefixItems: [Type.String(), Type.String()],
        minItems: 2,
        maxItems: 2,
      }),
      { description: '`[class, flags]` pairs (`["[\\p{L}]", "uy"]`), left to the runtime\'s own tables.' },
    ),
  },
  {
    $id: 'MatchesProgram',
    description:
      "A `matches` clause's pattern as the server parsed it (`docs/protocol.md` §12.6): SDKs run it and carry no parser.",
  },
);

export const SdkClause = Type.Object(
  {
    ...Clause.properties,
    program: Type.Optional(MatchesProgram),
  },
  {
    $id: 'SdkClause',
    description: 'A clause in the SDK form: a `matches` clause also carries its `program`.',
  },
);

export const SdkRule = Type.Object(
  { ...Rule.properties, clauses: Type.Array(SdkClause) },
  { $id: 'SdkRule', description: 'A rule in the SDK form (its clauses with their programs).' },
);

const sdkFlagFields = {
  key: Type.String(),
  type: AnyFlagType,
  enabled: Type.Boolean(),
  percentage: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 100, description: 'On `rollout` flags only.' }),
  ),
  version: Type.Integer({ minimum: 0, description: 'The environment revision of its last change.' }),
  variants: Type.Optional(Variants),
  offVariant: Type.Optional(Type.String()),
  fallthrough: Type.Optional(Serve),
  targets: Type.Optional(Type.Array(Target)),
  rules: Type.Optional(Type.Array(SdkRule)),
  prerequisites: Type.Optional(Type.Array(Prerequisite)),
  salt: Type.Optional(Type.String()),
};

export const SdkFlag = Type.Object(sdkFlagFields, {
  $id: 'SdkFlag',
  description:
    'A flag in the SDK representation (`GET /sdk/flags`, stream events): what local evaluation needs, and `version`. A plain flag (`boolean` or `rollout` without targeting) is `{key, type, enabled, percentage?, version}` exactly; to an SDK with the targeting capability, the targeting fields that are set follow (`docs/protocol.md` §12.6).',
});

export const SdkFlagUpdate = Type.Object(
  {
    ...sdkFlagFields,
    deleted: Type.Optional(
      Type.Literal(true, { description: 'Present and true when the flag was deleted.' }),
    ),
  },
  { $id: 'SdkFlagUpdate', description: 'Data of a `flags:updated` stream event.' },
);

export const SdkSegment = Type.Object(
  {
    key: Type.String(),
    included: Type.Array(Type.String()),
    excluded: Type.Array(Type.String()),
    rules: Type.Array(Type.Object({ clauses: Type.Array(SdkClause) })),
    version: Type.Integer({ minimum: 0, description: 'The environment revision of its last change.' }),
  },
  {
    $id: 'SdkSegment',
    description:
      'A segment in the SDK representation (`GET /sdk/flags` and `segments:updated` events, to SDKs with the targeting capability): what evaluation needs, no description.',
  },
);

export const SdkSegmentUpdate = Type.Union(
  [
    SdkSegment,
    Type.Object({ key: Type.String(), version: Type.Integer({ minimum: 0 }), deleted: Type.Literal(true) }),
  ],
  {
    $id: 'SdkSegmentUpdate',
    description: 'Data of a `segments:updated` stream event: the segment, or its deletion.',
  },
);

export const SdkSnapshot = Type.Object(
  {
    revision: Type.Integer({
      minimum: 0,
      description: 'Environment revision this snapshot reflects: every change up to it, none after.',
    }),
    epoch: Type.String({
      description: 'Identifies one history of the environment; revisions of different epochs are unrelated.',
    }),
    eventId: Type.String({
      description: 'Stream event id of this snapshot (`<epoch>:<revision>`), to resume the stream from.',
    }),
    flags: Type.Record(Type.String(), SdkFlag, { description: 'Every flag of the environment, by key.' }),
    segments: Type.Optional(
      Type.Record(Type.String(), SdkSegment, {
        description: 'Every segment, by key: sent only to SDKs with the targeting capability.',
      }),
    ),
  },
  {
    $id: 'SdkSnapshot',
    description:
      "Body of `GET /sdk/flags` and data of the stream's `flags:sync` event (`docs/protocol.md` §5.2).",
  },
);

// ---- The usage report (§13.2) ----

const SAFE = Number.MAX_SAFE_INTEGER;
const OBJECT = 'must be a JSON object';
/** Anything but control characters (C0, DEL, C1): a report's free text holds none. */
const NO_CONTROL_CLASS = '[^\\u0000-\\u001f\\u007f-\\u009f]';
const VARIANT = 'must be a variant name or null';
const EVENT_ID = 'must be <epoch>:<revision> of at most 128 characters, or null';

/** An integer from `minimum` to 2^53 - 1. */
const Count = (minimum: number, description?: string) =>
  Type.Integer({
    minimum,
    maximum: SAFE,
    errorMessage: `must be an integer from ${minimum} to ${SAFE}`,
    ...(description && { description }),
  });

const RandomId = (description: string) =>
  Type.String({
    pattern: '^[A-Za-z0-9_-]{16,64}$',
    errorMessage: 'must be 16 to 64 of [A-Za-z0-9_-]',
    description,
  });

/** 1 to 64 printable ASCII characters without spaces. */
const Token = (description: string) =>
  Type.String({
    pattern: '^[\\x21-\\x7e]{1,64}$',
    errorMessage: 'must be 1 to 64 printable characters without spaces',
    description,
  });

const Text = (max: number) =>
  Type.String({
    minLength: 1,
    maxLength: max,
    pattern: `^${NO_CONTROL_CLASS}*$`,
    errorMessage: `must be a string of 1 to ${max} characters without control characters`,
  });

export const UsageReportApp = Type.Object(
  {
    name: Text(100),
    version: Type.Optional(
      Nullable(Text(64), {
        errorMessage: 'must be a string of 1 to 64 characters without control characters',
      }),
    ),
  },
  {
    $id: 'UsageReportApp',
    description: "The application a report comes from, as it names itself (the SDK's `app` option).",
    errorMessage: OBJECT,
  },
);

export const UsageCountReason = Type.Union(
  COUNTED_REASONS.map((reason) => Type.Literal(reason)),
  {
    $id: 'UsageCountReason',
    description:
      'The reasons a count row may carry: an evaluation that read a flag (`docs/protocol.md` §9, §12.4).',
    errorMessage: `must be one of ${COUNTED_REASONS.join(', ')}`,
  },
);

export const UsageCountRow = Type.Object(
  {
    key: Type.String({
      maxLength: FLAG_KEY_MAX_LENGTH,
      pattern: FLAG_KEY_PATTERN.source,
      errorMessage: `must be a flag key of at most ${FLAG_KEY_MAX_LENGTH} characters`,
    }),
    version: Count(0, "The flag's version the evaluation read (`docs/protocol.md` §5.1)."),
    variant: Nullable(Type.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$', errorMessage: VARIANT }), {
      errorMessage: VARIANT,
      description: "The variant served; `null` when the caller's default was (`reason: ERROR`).",
    }),
    reason: UsageCountReason,
    count: Count(1),
  },
  {
    $id: 'UsageCountRow',
    description: 'Evaluations of one flag version, variant and reason in a usage report.',
    errorMessage: OBJECT,
  },
);

export const UsageUnknownRow = Type.Object(
  {
    key: Type.String({
      minLength: 1,
      maxLength: 256,
      errorMessage: 'must be a string of 1 to 256 characters',
    }),
    count: Count(1),
  },
  {
    $id: 'UsageUnknownRow',
    description:
      'Evaluations of a key the client holds no flag of; only a flag key is kept, any other is only counted.',
    errorMessage: OBJECT,
  },
);

export const SdkClientState = Type.Union(
  ['idle', 'connecting', 'connected', 'reconnecting', 'polling', 'stale', 'failed', 'closed'].map((s) =>
    Type.Literal(s),
  ),
  {
    $id: 'SdkClientState',
    description: "A client's `status().state` (`docs/protocol.md` §9).",
    errorMessage: 'must be one of idle, connecting, connected, reconnecting, polling, stale, failed, closed',
  },
);

export const UsageReport = Type.Object(
  {
    id: RandomId('Random per report, the same on every retry of it.'),
    sdk: Type.Object(
      {
        name: Type.String({
          pattern: '^[A-Za-z0-9@/._-]{1,64}$',
          errorMessage: 'must be 1 to 64 of [A-Za-z0-9@/._-]',
        }),
        version: Token("The SDK's version."),
      },
      { errorMessage: OBJECT },
    ),
    runtime: Token('`node/20.20.0`, `deno/2.1.4`, `bun/1.2.0`, `browser`, `workerd`, `unknown`.'),
    app: Type.Optional(Nullable(UsageReportApp, { errorMessage: `${OBJECT} or null` })),
    instance: RandomId('Random per client object, the same in all its reports.'),
    eventId: Type.Optional(
      Nullable(
        Type.String({ maxLength: 128, pattern: `^${NO_CONTROL_CLASS}+:\\d{1,15}$`, errorMessage: EVENT_ID }),
        {
          errorMessage: EVENT_ID,
          description: 'The `<epoch>:<revision>` the client holds; `null` when it holds none.',
        },
      ),
    ),
    state: SdkClientState,
    window: Type.Object(
      { start: Count(0), end: Count(0, 'At least `start`.') },
      { errorMessage: OBJECT, description: "The counting window, in the SDK's clock (informational)." },
    ),
    counts: Type.Array(UsageCountRow, {
      maxItems: MAX_COUNT_ROWS,
      errorMessage: `must be an array of at most ${MAX_COUNT_ROWS} rows`,
    }),
    unknown: Type.Optional(
      Type.Array(UsageUnknownRow, {
        maxItems: MAX_UNKNOWN_KEYS,
        errorMessage: `must be an array of at most ${MAX_UNKNOWN_KEYS} rows`,
      }),
    ),
    unknownDropped: Type.Optional(Count(0, 'Evaluations of further unknown keys, past those listed.')),
    notReady: Type.Optional(Count(0, 'Evaluations answered before any flag was loaded.')),
  },
  {
    $id: 'UsageReport',
    description:
      'Body of `POST /sdk/usage` (`docs/protocol.md` §13.2): what a client evaluated in a window. Fields it does not know are ignored.',
    errorMessage: OBJECT,
  },
);

export const UsageReportAnswer = Type.Object(
  {
    id: Type.String({ description: "The report's id." }),
    duplicate: Type.Boolean({ description: 'A report of this id was counted already: nothing was added.' }),
  },
  {
    $id: 'UsageReportAnswer',
    description: 'The answer to `POST /sdk/usage` (`202`): its counts are durable.',
  },
);
