/**
 * The management client's usage calls (`docs/protocol.md` §13.7): stale flags for CI, per-flag
 * usage and its series, marks, connected clients and unknown keys. Reads take a full or read-only
 * key; `mark` a full-access key.
 */
import type { JsonValue } from '../core/targeting/types.js';
import type { FlagUsage, StaleFlag, StaleReason } from '../core/usage-wire.js';
import { type CallOptions, call, type RequestSettings } from './request.js';

export type { FlagUsage, StaleFlag, StaleReason };

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

export interface UsageCalls {
  /** Stale flags, for CI: fail a build when `flags` is not empty. */
  stale(options?: CallOptions): Promise<StaleReport>;
  flags(options?: CallOptions): Promise<FlagUsage[]>;
  flag(key: string, options?: CallOptions & { range?: UsageRange }): Promise<FlagUsageSeries>;
  mark(
    key: string,
    mark: UsageMarkInput,
    options?: CallOptions,
  ): Promise<{ key: string; permanent: boolean; snoozedUntil: string | null }>;
  /** The clients, most recently seen first; `revision` the environment's now, `at` the server's time of the read. */
  clients(options?: CallOptions): Promise<{ clients: UsageClient[]; revision: number; at: string }>;
  unknown(options?: CallOptions): Promise<UnknownKeyUsage[]>;
}

export function usageCalls(settings: RequestSettings): UsageCalls {
  const get = <T>(path: string, o?: CallOptions) => call<T>(settings, 'GET', path, undefined, o);
  const segment = (value: string) => encodeURIComponent(value);
  return {
    stale: (o) => get('/usage/stale', o),
    flags: (o) => get('/usage/flags', o),
    flag: (key, o) => get(`/usage/flags/${segment(key)}?range=${o?.range ?? '24h'}`, o),
    mark: (key, mark, o) => call(settings, 'PATCH', `/usage/flags/${segment(key)}`, mark, o),
    clients: (o) => get('/usage/clients', o),
    unknown: (o) => get('/usage/unknown', o),
  };
}
