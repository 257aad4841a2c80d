/**
 * The types of `../schemas/usage.ts`, written by `npm run wire-types`: do not edit; change
 * the schema and run it again.
 */

import type { JsonValue } from '../json-value.js';

/** One flag in `GET /usage/flags`. */
export interface FlagUsage {
  key: string;
  lastEvaluatedAt: string | null;
  /** Evaluations in each of the last 24 hours up to the current one, oldest first. */
  last24h: number[];
  stale: StaleFlag | null;
  /** Marked to stay (a kill switch): never stale. */
  permanent: boolean;
  /** Left out of stale lists until then. */
  snoozedUntil: string | null;
}

/** `GET /usage/flags/:key`: evaluations per variant and reason over a range. */
export interface FlagUsageSeries {
  key: string;
  /** The range of a flag's series: hourly steps for `24h` and `7d`, daily for `30d` and `90d`. */
  range: UsageRange;
  step: 'hour' | 'day';
  /** ISO 8601 date and time, UTC */
  from: string;
  /** ISO 8601 date and time, UTC */
  to: string;
  lastEvaluatedAt: string | null;
  total: number;
  /** One per variant and reason. */
  series: {
    /** `null`: the caller's default was served. */
    variant: string | null;
    /** The variant's value; `null` for the default. */
    value: JsonValue;
    reason: string;
    /** One count per step, oldest first. */
    points: number[];
  }[];
  apps: {
    app: string | null;
    sdk: string;
    count: number;
  }[];
}

/** A stale flag, and why (`docs/protocol.md` §13.7). */
export interface StaleFlag {
  key: string;
  /** Why a flag is stale (`docs/protocol.md` §13.7). */
  reason: StaleReason;
  /** Says why in words, e.g. `not evaluated for 52 days`. */
  message: string;
  /** `UNUSED` and `SINGLE_VALUE`. */
  lastEvaluatedAt?: string;
  /** `NEVER_EVALUATED`. */
  createdAt?: string;
  /** `SINGLE_VALUE`: the value to hard-code. */
  value?: JsonValue;
  /** `SINGLE_VALUE`: the variant that serves it. */
  variant?: string;
}

/** Why a flag is stale (`docs/protocol.md` §13.7). */
export type StaleReason = 'UNUSED' | 'NEVER_EVALUATED' | 'SINGLE_VALUE';

/** `GET /usage/stale`: every stale flag, sorted by key. */
export interface StaleReport {
  /** ISO 8601 date and time, UTC */
  at: string;
  rules: {
    unusedDays: number;
    neverEvaluatedDays: number;
    singleValueDays: number;
  };
  /** Sorted by key; empty when nothing is stale. */
  flags: StaleFlag[];
}

/** A key evaluated that is not a flag (`GET /usage/unknown`). */
export interface UnknownKeyUsage {
  key: string;
  count: number;
  /** ISO 8601 date and time, UTC */
  lastEvaluatedAt: string;
  /** When the history knows the flag was deleted. */
  deletedAt: string | null;
}

/** A client that reported usage (`GET /usage/clients`). */
export interface UsageClient {
  instance: string;
  sdk: {
    name: string;
    version: string;
  };
  runtime: string;
  app: {
    name: string;
    version: string | null;
  } | null;
  eventId: string | null;
  /** The revision it holds (`null`: none, or another epoch's). */
  revision: number | null;
  /** How many revisions it is behind. */
  behind: number | null;
  state: string | null;
  /** Reported in the last 10 minutes. */
  connected: boolean;
  /** ISO 8601 date and time, UTC */
  firstSeenAt: string;
  /** ISO 8601 date and time, UTC */
  lastSeenAt: string;
}

/** `GET /usage/clients`; `at` is the server's time of the read. */
export interface UsageClients {
  /** Most recently seen first. */
  clients: UsageClient[];
  /** The environment's revision now. */
  revision: number;
  /** ISO 8601 date and time, UTC */
  at: string;
}

/** The answer to `PATCH /usage/flags/:key`: the flag's mark as it now is. */
export interface UsageMarkAnswer {
  key: string;
  permanent: boolean;
  snoozedUntil: string | null;
}

/** Body of `PATCH /usage/flags/:key`: a flag's stale mark; every field optional. */
export interface UsageMarkInput {
  /** `true`: meant to stay (a kill switch), never stale. */
  permanent?: boolean;
  /** A future time, at most 400 days ahead: hidden from stale lists until then; `null` clears it. */
  snoozedUntil?: string | null;
}

/** The body of the `404` every usage path answers on a server that keeps no usage (`--no-usage`, `docs/protocol.md` §13.1): `NOT_FOUND`, as an unknown route, and `usage: false`, which says so. */
export interface UsageOffAnswer {
  error: 'NOT_FOUND';
  message: string;
  /** Says that usage is off. */
  usage: false;
}

/** The range of a flag's series: hourly steps for `24h` and `7d`, daily for `30d` and `90d`. */
export type UsageRange = '24h' | '7d' | '30d' | '90d';
