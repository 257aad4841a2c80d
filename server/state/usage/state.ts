/**
 * How usage ops change memory (`docs/protocol.md` §13.3, §13.4), and usage in snapshots: the
 * usage domain (`usageDomain`). Every instance applies the same committed ops in the same order,
 * and ages are measured against the environment's usage clock (`clock.ts`), never the wall clock,
 * so every instance, and a replay of the log, holds exactly the same rows. What one report can
 * add is bounded: rows only for flags of the environment (other keys go to the capped
 * unknown-keys table), at most the flag's current version, within the hour's caps (`rows.ts`).
 */
import { stampedRecord } from '../kernel/audit.js';
import type { Domain, Piece } from '../kernel/domain.js';
import type { Environment, MemoryState } from '../kernel/model.js';
import { advanceClock, idTime } from './clock.js';
import {
  addCount,
  type ClientRecord,
  DAY,
  type EnvUsage,
  emptyUsage,
  HOUR,
  USAGE_LIMITS as L,
  type RowFields,
  rowId,
  type UnknownKey,
  type UsageMark,
  type UsageOp,
  type UsageRecord,
  type UsageRow,
  type UsageRows,
} from './model.js';
import { addDayRow, addHourRow } from './rows.js';
import { addUnknown, forgetUnknownBefore } from './unknown.js';

/** Applies a usage op; one for an environment no longer in memory changes nothing. */
export function applyUsageOp(db: MemoryState, op: UsageOp): void {
  const env = db.get(op.env);
  if (!env) return;
  env.usage ??= emptyUsage();
  const usage = env.usage;
  if (op.t === 'usage-mark') {
    if (!op.permanent && op.snoozedUntil === null) usage.marks.delete(op.key);
    else usage.marks.set(op.key, { permanent: op.permanent, snoozedUntil: op.snoozedUntil });
    return;
  }
  // Counted already (a retry whose first answer was lost, or an entry replayed): nothing. An
  // entry applied before changes nothing at all, the clock included: every report of an entry
  // is new when committed (the plan leaves out ids counted), and known when replayed.
  const reports = op.reports.filter((report) => !usage.ids.has(report.id));
  if (reports.length === 0) return;
  advanceClock(usage, op.at);
  for (const report of reports) {
    if (usage.ids.has(report.id)) continue;
    usage.ids.set(report.id, idTime(usage, op.at));
    addReport(env, usage, report, op.at);
  }
  prune(usage);
}

function addReport(env: Environment, usage: EnvUsage, report: UsageRecord, at: number): void {
  const hour = Math.floor(at / HOUR);
  // OFREP's own reports name no client (§13.5): their unknown keys have a budget of their own.
  const ofrep = report.instance === null;
  // The fields of each count row in turn (`addHourRow` copies them into a row it adds).
  const row: RowFields = { key: '', version: 0, variant: null, reason: '', sdk: report.sdk, app: report.app };
  for (const [key, version, variant, reason, count] of report.counts) {
    const flag = env.flags.get(key);
    if (!flag) {
      addUnknown(usage, key, count, at, ofrep);
      continue;
    }
    row.key = key;
    // A version the flag never had yet counts as the one it has.
    row.version = Math.min(version, flag.version);
    row.variant = variant;
    row.reason = reason;
    addHourRow(usage, hour, row, count);
    if ((usage.last.get(key) ?? -1) < at) usage.last.set(key, at);
  }
  for (const [key, count] of report.unknown) addUnknown(usage, key, count, at, ofrep);
  if (report.unknownDropped) usage.unknownDropped = addCount(usage.unknownDropped, report.unknownDropped);
  if (report.instance !== null) {
    const before = usage.clients.get(report.instance);
    const record: ClientRecord = {
      instance: report.instance,
      sdk: report.sdk,
      sdkVersion: report.sdkVersion,
      runtime: report.runtime,
      app: report.app,
      appVersion: report.appVersion,
      eventId: report.eventId,
      state: report.state,
      firstSeen: Math.min(before?.firstSeen ?? at, at),
      lastSeen: Math.max(before?.lastSeen ?? at, at),
    };
    // Least recently seen first: the cap forgets those.
    usage.clients.delete(report.instance);
    usage.clients.set(report.instance, record);
    while (usage.clients.size > L.clients) usage.clients.delete(usage.clients.keys().next().value!);
  }
}

/** Drops what is past its retention; hours past theirs are added into days first (the rollup). */
function prune(usage: EnvUsage): void {
  const { clock, ids } = usage;
  for (const [id, at] of ids) {
    if (at >= clock - L.idsMs && ids.size <= L.ids) break;
    ids.delete(id);
  }
  // The rest changes at most hourly: checked once per hour of the clock.
  const hour = Math.floor(clock / HOUR);
  if (hour <= usage.prunedAt) return;
  usage.prunedAt = hour;
  const firstHour = hour - L.hourlyDays * 24;
  for (const [h, rows] of usage.hours) {
    if (h >= firstHour) continue;
    const day = Math.floor(h / 24);
    for (const row of rows.values()) addDayRow(usage, day, row, row.count);
    usage.hours.delete(h);
  }
  const firstDay = Math.floor(clock / DAY) - L.dailyDays;
  for (const day of usage.days.keys()) if (day < firstDay) usage.days.delete(day);
  dropOlder(usage.last, (at) => at, clock - L.lastEvaluatedDays * DAY);
  forgetUnknownBefore(usage, clock - L.unknownDays * DAY);
  dropOlder(usage.clients, (c) => c.lastSeen, clock - L.clientDays * DAY);
}

function dropOlder<V>(map: Map<string, V>, timeOf: (value: V) => number, before: number): void {
  for (const [key, value] of map) if (timeOf(value) < before) map.delete(key);
}

/**
 * A count row in a snapshot: its fields in `UsageRow`'s order, then its count. Snapshots written
 * before rows were kept with their fields hold `JoinedRow`s instead: read as well.
 */
export type RowTuple = [
  key: string,
  version: number,
  variant: string | null,
  reason: string,
  sdk: string,
  app: string | null,
  count: number,
];

/** A row as older snapshots hold it: its fields joined by tabs (`rowId`), then its count. */
export type JoinedRow = [id: string, count: number];

/**
 * An environment's usage in a snapshot: its maps as arrays, in their order. `ahead`, `dropped`,
 * `unknownDropped` and an unknown key's fourth element (`1`: only OFREP reported it) are absent
 * when 0 or false, as in snapshots written before they existed, which load as they were; so do
 * their rows (`JoinedRow`).
 */
export interface UsageSnapshot {
  clock: number;
  ahead?: number;
  prunedAt: number;
  hours: Array<[number, Array<RowTuple | JoinedRow>]>;
  days: Array<[number, Array<RowTuple | JoinedRow>]>;
  last: Array<[string, number]>;
  unknown: Array<[string, number, number] | [string, number, number, 1]>;
  clients: ClientRecord[];
  ids: Array<[string, number]>;
  marks: Array<[string, boolean, number | null]>;
  dropped?: number;
  unknownDropped?: number;
}

const rowTuple = (r: UsageRow): RowTuple => [r.key, r.version, r.variant, r.reason, r.sdk, r.app, r.count];

/** A row of a snapshot, either form. */
function rowOf(row: RowTuple | JoinedRow): UsageRow {
  if (row.length === 7) {
    const [key, version, variant, reason, sdk, app, count] = row;
    return { key, version, variant, reason, sdk, app, count };
  }
  // An older snapshot's row: the one place a row's fields come out of a string.
  const [key, version, variant, reason, sdk, app] = row[0].split('\t');
  return {
    key: key!,
    version: Number(version),
    variant: variant || null,
    reason: reason!,
    sdk: sdk!,
    app: app || null,
    count: row[1],
  };
}

export function usageSnapshot(env: Environment): UsageSnapshot | undefined {
  const usage = env.usage;
  if (!usage) return undefined;
  const rows = (map: Map<number, UsageRows>) =>
    [...map].map(([at, r]): [number, RowTuple[]] => [at, [...r.values()].map(rowTuple)]);
  const snapshot: UsageSnapshot = {
    clock: usage.clock,
    prunedAt: usage.prunedAt,
    hours: rows(usage.hours),
    days: rows(usage.days),
    last: [...usage.last],
    unknown: [...usage.unknown].map(([key, u]) =>
      u.ofrep ? [key, u.count, u.last, 1] : [key, u.count, u.last],
    ),
    // Copies: the rewind of the clock changes records in place.
    clients: [...usage.clients.values()].map((c) => ({ ...c })),
    ids: [...usage.ids],
    marks: [...usage.marks].map(([key, m]): [string, boolean, number | null] => [
      key,
      m.permanent,
      m.snoozedUntil,
    ]),
  };
  if (usage.ahead !== 0) snapshot.ahead = usage.ahead;
  if (usage.dropped !== 0) snapshot.dropped = usage.dropped;
  if (usage.unknownDropped !== 0) snapshot.unknownDropped = usage.unknownDropped;
  return snapshot;
}

export function usageFromSnapshot(data: UsageSnapshot | undefined): EnvUsage | undefined {
  if (!data) return undefined;
  const rows = (list: UsageSnapshot['hours']) =>
    new Map(
      list.map(([at, r]): [number, UsageRows] => [
        at,
        new Map(r.map((tuple) => rowOf(tuple)).map((row) => [rowId(row), row])),
      ]),
    );
  return {
    clock: data.clock,
    ahead: data.ahead ?? 0,
    prunedAt: data.prunedAt,
    hours: rows(data.hours),
    days: rows(data.days),
    last: new Map(data.last),
    unknown: new Map(
      data.unknown.map(([key, count, last, ofrep]): [string, UnknownKey] => [
        key,
        ofrep === 1 ? { count, last, ofrep: true } : { count, last },
      ]),
    ),
    clients: new Map(data.clients.map((c) => [c.instance, { ...c }])),
    ids: new Map(data.ids),
    marks: new Map(
      data.marks.map(([key, permanent, snoozedUntil]): [string, UsageMark] => [
        key,
        { permanent, snoozedUntil },
      ]),
    ),
    dropped: data.dropped ?? 0,
    unknownDropped: data.unknownDropped ?? 0,
  };
}

/** An environment's usage, as a snapshot holds it: absent when nothing was reported (§13.4). */
export interface UsageSnapshotPart {
  usage?: UsageSnapshot;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export const usageDomain: Domain<UsageOp> = {
  kinds: ['usage', 'usage-mark'],

  apply: applyUsageOp,

  // Usage counts reach memory once durable, when the entry is published: a group commit that
  // fails (`capture`) then has no counts to take back, and nothing reads usage before it is
  // durable (`docs/protocol.md` §13.3; a retry of a report still being committed is held by the
  // usage service). A mark (§13.7) is a write like a flag's: in memory at once, so the next
  // mark's plan sees it, and put back by `capture` should its commit fail.
  whenDurable: (op) => op.t === 'usage',

  // A mark set by someone is audited (`../kernel/audit.ts`); reports are not.
  auditOf(db, op) {
    if (op.t !== 'usage-mark' || op.at === undefined) return undefined;
    const held = db.get(op.env)?.usage?.marks.get(op.key);
    const was = { permanent: held?.permanent ?? false, snoozedUntil: iso(held?.snoozedUntil ?? null) };
    const now = { permanent: op.permanent, snoozedUntil: iso(op.snoozedUntil) };
    if (was.permanent === now.permanent && was.snoozedUntil === now.snoozedUntil) return undefined;
    return stampedRecord(op, {
      action: 'flag.marked',
      target: { kind: 'flag', key: op.key },
      before: was,
      after: now,
    });
  },

  capture(db, scope) {
    // The scope's stale marks (they reach memory at once); its counts wait for publishing.
    const env = scope === '' ? undefined : db.get(scope);
    const marks = new Map(env?.usage?.marks);
    return () => {
      const usage = env?.usage;
      if (!usage) return;
      usage.marks.clear();
      for (const [key, mark] of marks) usage.marks.set(key, mark);
    };
  },

  envPart(env): UsageSnapshotPart {
    const usage = usageSnapshot(env);
    return usage ? { usage } : {};
  },

  envFromPart(env, piece: Piece) {
    const usage = usageFromSnapshot((piece as UsageSnapshotPart).usage);
    if (usage) env.usage = usage;
  },
};
