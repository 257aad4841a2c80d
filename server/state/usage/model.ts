/**
 * Usage insights' model (`docs/protocol.md` §13): the ops a usage report and a stale mark commit,
 * and the retention and caps of what an environment keeps of them in memory (and in snapshots;
 * its shape, `EnvUsage`, is storage schema: the kernel's model). The ops are deltas made
 * idempotent by the report id: applying an entry a second time adds nothing while its ids are
 * remembered (§13.3), so a replayed suffix of the log changes nothing, as with every other op.
 */
import type { Actor, EnvUsage, UsageRow } from '../kernel/model.js';

export type { ClientRecord, EnvUsage, UnknownKey, UsageMark, UsageRow, UsageRows } from '../kernel/model.js';

/** A count row of a report: flag key, flag version, variant (`null`: the default), reason, count. */
export type CountRow = [key: string, version: number, variant: string | null, reason: string, count: number];

/** One report as committed: what the SDK sent (§13.2), checked, and nothing the server does not keep. */
export interface UsageRecord {
  id: string;
  sdk: string;
  sdkVersion: string;
  runtime: string;
  /** The app's name, `null` when the SDK gave none (and for OFREP's own reports). */
  app: string | null;
  appVersion: string | null;
  /** The client object's random id; `null` for OFREP's reports (no client record). */
  instance: string | null;
  eventId: string | null;
  state: string | null;
  counts: CountRow[];
  /** Keys evaluated that the client holds no flag of, with their counts. */
  unknown: Array<[key: string, count: number]>;
  /**
   * Evaluations of unknown keys not listed: the report's own `unknownDropped`, and keys that are
   * no flag key (§13.2). Absent when 0 (and in ops committed before it existed).
   */
  unknownDropped?: number;
}

export type UsageOp =
  /** Reports committed together at `at` (epoch ms, the committing instance's clock), in order. */
  | { t: 'usage'; env: string; at: number; reports: UsageRecord[] }
  /** Flag `key`'s stale mark is now this (both at their defaults: no mark); who set it and when (its audit record). */
  | {
      t: 'usage-mark';
      env: string;
      key: string;
      permanent: boolean;
      snoozedUntil: number | null;
      by?: Actor;
      at?: string;
    };

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** Retention and caps (§13.3, §13.4). */
export const USAGE_LIMITS = {
  hourlyDays: 35,
  dailyDays: 400,
  lastEvaluatedDays: 400,
  unknownDays: 30,
  /** Unknown keys an SDK reported; OFREP's own keys have a budget of their own. */
  unknownKeys: 1000,
  ofrepUnknownKeys: 100,
  /** When full, the lowest count among this many least recently reported keys makes room. */
  unknownEvictWindow: 16,
  clientDays: 7,
  clients: 10_000,
  idsMs: 2 * HOUR,
  ids: 500_000,
  /** A client is connected when it reported this recently. */
  connectedMs: 10 * MINUTE,
  /** Rows per hour of an environment, distinct SDK and app pairs among them, rows per day. */
  rowsPerHour: 10_000,
  appsPerHour: 50,
  rowsPerDay: 20_000,
  /** A commit time this far past the clock is not believed at once (§13.4)... */
  skewMs: 5 * MINUTE,
  /** ...until reports have kept coming past it for this long. */
  confirmMs: 10 * MINUTE,
} as const;

/**
 * `a + b` (both from 0 to 2^53 - 1), at most 2^53 - 1: the one saturating add of usage. Every
 * count kept and every sum a read answers goes through it, so no figure passes 2^53 - 1 (exact:
 * below 2^53 a sum is exact, past it the rounded sum stays past it).
 */
export const addCount = (a: number, b: number): number => Math.min(Number.MAX_SAFE_INTEGER, a + b);

/**
 * A row's identity in its hour's or day's map (`UsageRows`): its fields but the count, joined by
 * tabs (no field can hold one: keys, variants, reasons and SDK names are restricted, app names have
 * no control characters; a variant or an app is never empty, so empty stands for `null`). Only
 * looked up: the row holds its fields.
 */
export const rowId = (row: RowFields): string =>
  `${row.key}\t${row.version}\t${row.variant ?? ''}\t${row.reason}\t${row.sdk}\t${row.app ?? ''}`;

/** What tells one row from another: every field but its count. */
export type RowFields = Omit<UsageRow, 'count'>;

/** `map`'s value of `key`, made by `make` and set when there is none. */
export function entryOf<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}

export function emptyUsage(): EnvUsage {
  return {
    clock: 0,
    ahead: 0,
    prunedAt: 0,
    hours: new Map(),
    days: new Map(),
    last: new Map(),
    unknown: new Map(),
    clients: new Map(),
    ids: new Map(),
    marks: new Map(),
    dropped: 0,
    unknownDropped: 0,
  };
}
