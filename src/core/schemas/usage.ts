/**
 * Usage reads and marks (`docs/protocol.md` §13.7) as `/usage/...` answers them, and as the admin
 * API forwards them (§10.3). The report SDKs send (`POST /sdk/usage`) is with the SDK's
 * endpoints: `./sdk.ts`.
 */
import { Type } from '@sinclair/typebox';
import type { JsonValue } from '../targeting/types.js';
import { Nullable, Timestamp } from './common.js';

/** Any JSON value (`./common.ts` `Json`), with its words. */
const JsonOf = (description: string) => Type.Unsafe<JsonValue>({ 'x-ts': 'JsonValue', description });

export const StaleReason = Type.Union(
  [Type.Literal('UNUSED'), Type.Literal('NEVER_EVALUATED'), Type.Literal('SINGLE_VALUE')],
  { $id: 'StaleReason', description: 'Why a flag is stale (`docs/protocol.md` §13.7).' },
);

export const StaleFlag = Type.Object(
  {
    key: Type.String(),
    reason: StaleReason,
    message: Type.String({ description: 'Says why in words, e.g. `not evaluated for 52 days`.' }),
    lastEvaluatedAt: Type.Optional(
      Type.String({ format: 'date-time', description: '`UNUSED` and `SINGLE_VALUE`.' }),
    ),
    createdAt: Type.Optional(Type.String({ format: 'date-time', description: '`NEVER_EVALUATED`.' })),
    value: Type.Optional(JsonOf('`SINGLE_VALUE`: the value to hard-code.')),
    variant: Type.Optional(Type.String({ description: '`SINGLE_VALUE`: the variant that serves it.' })),
  },
  { $id: 'StaleFlag', description: 'A stale flag, and why (`docs/protocol.md` §13.7).' },
);

export const FlagUsage = Type.Object(
  {
    key: Type.String(),
    lastEvaluatedAt: Nullable(Timestamp),
    last24h: Type.Array(Type.Integer({ minimum: 0 }), {
      description: 'Evaluations in each of the last 24 hours up to the current one, oldest first.',
    }),
    stale: Nullable(StaleFlag),
    permanent: Type.Boolean({ description: 'Marked to stay (a kill switch): never stale.' }),
    snoozedUntil: Nullable(Timestamp, { description: 'Left out of stale lists until then.' }),
  },
  { $id: 'FlagUsage', description: 'One flag in `GET /usage/flags`.' },
);

export const StaleReport = Type.Object(
  {
    at: Timestamp,
    rules: Type.Object({
      unusedDays: Type.Integer(),
      neverEvaluatedDays: Type.Integer(),
      singleValueDays: Type.Integer(),
    }),
    flags: Type.Array(StaleFlag, { description: 'Sorted by key; empty when nothing is stale.' }),
  },
  { $id: 'StaleReport', description: '`GET /usage/stale`: every stale flag, sorted by key.' },
);

export const UsageRange = Type.Union(
  [Type.Literal('24h'), Type.Literal('7d'), Type.Literal('30d'), Type.Literal('90d')],
  {
    $id: 'UsageRange',
    description: "The range of a flag's series: hourly steps for `24h` and `7d`, daily for `30d` and `90d`.",
    errorMessage: 'must be one of 24h, 7d, 30d, 90d',
  },
);

export const FlagUsageSeries = Type.Object(
  {
    key: Type.String(),
    range: UsageRange,
    step: Type.Union([Type.Literal('hour'), Type.Literal('day')]),
    from: Timestamp,
    to: Timestamp,
    lastEvaluatedAt: Nullable(Timestamp),
    total: Type.Integer({ minimum: 0 }),
    series: Type.Array(
      Type.Object({
        variant: Nullable(Type.String(), { description: "`null`: the caller's default was served." }),
        value: JsonOf("The variant's value; `null` for the default."),
        reason: Type.String(),
        points: Type.Array(Type.Integer({ minimum: 0 }), {
          description: 'One count per step, oldest first.',
        }),
      }),
      { description: 'One per variant and reason.' },
    ),
    apps: Type.Array(
      Type.Object({ app: Nullable(Type.String()), sdk: Type.String(), count: Type.Integer({ minimum: 0 }) }),
    ),
  },
  {
    $id: 'FlagUsageSeries',
    description: '`GET /usage/flags/:key`: evaluations per variant and reason over a range.',
  },
);

export const UsageClient = Type.Object(
  {
    instance: Type.String(),
    sdk: Type.Object({ name: Type.String(), version: Type.String() }),
    runtime: Type.String(),
    app: Nullable(Type.Object({ name: Type.String(), version: Nullable(Type.String()) })),
    eventId: Nullable(Type.String()),
    revision: Nullable(Type.Integer(), {
      description: "The revision it holds (`null`: none, or another epoch's).",
    }),
    behind: Nullable(Type.Integer(), { description: 'How many revisions it is behind.' }),
    state: Nullable(Type.String()),
    connected: Type.Boolean({ description: 'Reported in the last 10 minutes.' }),
    firstSeenAt: Timestamp,
    lastSeenAt: Timestamp,
  },
  { $id: 'UsageClient', description: 'A client that reported usage (`GET /usage/clients`).' },
);

export const UsageClients = Type.Object(
  {
    clients: Type.Array(UsageClient, { description: 'Most recently seen first.' }),
    revision: Type.Integer({ description: "The environment's revision now." }),
    at: Timestamp,
  },
  {
    $id: 'UsageClients',
    description: "`GET /usage/clients`; `at` is the server's time of the read.",
  },
);

export const UnknownKeyUsage = Type.Object(
  {
    key: Type.String(),
    count: Type.Integer({ minimum: 0 }),
    lastEvaluatedAt: Timestamp,
    deletedAt: Nullable(Timestamp, { description: 'When the history knows the flag was deleted.' }),
  },
  { $id: 'UnknownKeyUsage', description: 'A key evaluated that is not a flag (`GET /usage/unknown`).' },
);

export const UsageMarkInput = Type.Object(
  {
    permanent: Type.Optional(
      Type.Boolean({ description: '`true`: meant to stay (a kill switch), never stale.' }),
    ),
    snoozedUntil: Type.Optional(
      Nullable(Type.String({ format: 'date-time' }), {
        description:
          'A future time, at most 400 days ahead: hidden from stale lists until then; `null` clears it.',
        errorMessage: 'must be a future ISO 8601 date and time, or null',
      }),
    ),
  },
  {
    $id: 'UsageMarkInput',
    additionalProperties: false,
    description: "Body of `PATCH /usage/flags/:key`: a flag's stale mark; every field optional.",
  },
);

export const UsageMarkAnswer = Type.Object(
  { key: Type.String(), permanent: Type.Boolean(), snoozedUntil: Nullable(Timestamp) },
  {
    $id: 'UsageMarkAnswer',
    description: "The answer to `PATCH /usage/flags/:key`: the flag's mark as it now is.",
  },
);

export const UsageOffAnswer = Type.Object(
  {
    error: Type.Literal('NOT_FOUND'),
    message: Type.String(),
    usage: Type.Literal(false, { description: 'Says that usage is off.' }),
  },
  {
    $id: 'UsageOffAnswer',
    description:
      'The body of the `404` every usage path answers on a server that keeps no usage (`--no-usage`, `docs/protocol.md` §13.1): `NOT_FOUND`, as an unknown route, and `usage: false`, which says so.',
  },
);
