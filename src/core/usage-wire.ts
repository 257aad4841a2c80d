/**
 * Usage reads as the server answers them (`docs/protocol.md` §13.7): one shape for the server
 * that answers and the management client and the dashboard that read (the admin API forwards
 * them, `./admin-wire.ts`). Types only.
 */
import type { JsonValue } from './targeting/types.js';

/** Why a flag is stale (§13.7). */
export type StaleReason = 'UNUSED' | 'NEVER_EVALUATED' | 'SINGLE_VALUE';

export interface StaleFlag {
  key: string;
  reason: StaleReason;
  /** Says why in words, e.g. `not evaluated for 52 days`. */
  message: string;
  /** `UNUSED` and `SINGLE_VALUE`. */
  lastEvaluatedAt?: string;
  /** `NEVER_EVALUATED`. */
  createdAt?: string;
  /** `SINGLE_VALUE`: the value to hard-code, and its variant. */
  value?: JsonValue;
  variant?: string;
}

/** One flag in `GET /usage/flags`. */
export interface FlagUsage {
  key: string;
  lastEvaluatedAt: string | null;
  /** Evaluations in each of the last 24 hours up to the current one, oldest first. */
  last24h: number[];
  stale: StaleFlag | null;
  permanent: boolean;
  snoozedUntil: string | null;
}

/** `GET /usage/stale`: every stale flag, sorted by key; none when `flags` is empty. */
export interface StaleReport {
  at: string;
  rules: { unusedDays: number; neverEvaluatedDays: number; singleValueDays: number };
  flags: StaleFlag[];
}

export type UsageRange = '24h' | '7d' | '30d' | '90d';

/** `GET /usage/flags/:key`: evaluations per variant and reason over a range. */
export interface FlagUsageSeries {
  key: string;
  range: UsageRange;
  step: 'hour' | 'day';
  from: string;
  to: string;
  lastEvaluatedAt: string | null;
  total: number;
  series: Array<{ variant: string | null; value: JsonValue | null; reason: string; points: number[] }>;
  apps: Array<{ app: string | null; sdk: string; count: number }>;
}

/** A client that reported usage (`GET /usage/clients`). */
export interface UsageClient {
  instance: string;
  sdk: { name: string; version: string };
  runtime: string;
  app: { name: string; version: string | null } | null;
  eventId: string | null;
  /** The revision it holds (`null`: none, or another epoch's) and how many it is behind. */
  revision: number | null;
  behind: number | null;
  state: string | null;
  /** Reported in the last 10 minutes. */
  connected: boolean;
  firstSeenAt: string;
  lastSeenAt: string;
}

/** `GET /usage/clients`: most recently seen first; `revision` the environment's now, `at` the server's time of the read. */
export interface UsageClients {
  clients: UsageClient[];
  revision: number;
  at: string;
}

/** A key evaluated that is not a flag (`GET /usage/unknown`). */
export interface UnknownKeyUsage {
  key: string;
  count: number;
  lastEvaluatedAt: string;
  /** When the history knows the flag was deleted. */
  deletedAt: string | null;
}

/** A flag's stale mark: `permanent` never stale; `snoozedUntil` hidden until then (`null` clears). */
export interface UsageMarkInput {
  permanent?: boolean;
  snoozedUntil?: string | null;
}

/** The answer to `PATCH /usage/flags/:key`: the flag's mark as it now is. */
export interface UsageMarkAnswer {
  key: string;
  permanent: boolean;
  snoozedUntil: string | null;
}

/**
 * The body of the `404` every usage path answers on a server that keeps no usage (`--no-usage`,
 * §13.1): `NOT_FOUND`, as an unknown route (what SDKs read), and `usage: false`, which says so.
 */
export interface UsageOffAnswer {
  error: 'NOT_FOUND';
  message: string;
  usage: false;
}
