/**
 * How usage ops change memory (`docs/protocol.md` §13.3, §13.4), and usage in snapshots. Every
 * instance applies the same committed ops in the same order, and ages are measured against the
 * newest commit time seen (`clock`), never the wall clock, so every instance, and a replay of the
 * log, holds exactly the same rows.
 */
import type { Environment, MemoryState } from './model.js';
import {
  type ClientRecord,
  DAY,
  type EnvUsage,
  emptyUsage,
  entryOf,
  HOUR,
  USAGE_LIMITS as L,
  rowKey,
  type UsageMark,
  type UsageOp,
  type UsageRecord,
} from './usage-model.js';

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
  if (op.at > usage.clock) usage.clock = op.at;
  for (const report of op.reports) {
    // Counted already (a retry whose first answer was lost, or an entry replayed): nothing.
    if (usage.ids.has(report.id)) continue;
    usage.ids.set(report.id, op.at);
    addReport(usage, report, op.at);
  }
  prune(usage);
}

function addReport(usage: EnvUsage, report: UsageRecord, at: number): void {
  const hour = Math.floor(at / HOUR);
  if (report.counts.length > 0) {
    const rows = entryOf(usage.hours, hour, () => new Map<string, number>());
    for (const [key, version, variant, reason, count] of report.counts) {
      const row = rowKey(key, version, variant, reason, report.sdk, report.app);
      rows.set(row, (rows.get(row) ?? 0) + count);
      seen(usage.last, key, at);
    }
  }
  for (const [key, count] of report.unknown) {
    const known = usage.unknown.get(key);
    if (known) {
      usage.unknown.delete(key);
      usage.unknown.set(key, { count: known.count + count, last: Math.max(known.last, at) });
    } else if (usage.unknown.size < L.unknownKeys) {
      usage.unknown.set(key, { count, last: at });
    } else continue;
    seen(usage.last, key, at);
  }
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

function seen(last: Map<string, number>, key: string, at: number): void {
  if ((last.get(key) ?? -1) < at) last.set(key, at);
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
    const target = entryOf(usage.days, day, () => new Map<string, number>());
    for (const [row, count] of rows) target.set(row, (target.get(row) ?? 0) + count);
    usage.hours.delete(h);
  }
  const firstDay = Math.floor(clock / DAY) - L.dailyDays;
  for (const day of usage.days.keys()) if (day < firstDay) usage.days.delete(day);
  dropOlder(usage.last, (at) => at, clock - L.lastEvaluatedDays * DAY);
  dropOlder(usage.unknown, (u) => u.last, clock - L.unknownDays * DAY);
  dropOlder(usage.clients, (c) => c.lastSeen, clock - L.clientDays * DAY);
}

function dropOlder<V>(map: Map<string, V>, timeOf: (value: V) => number, before: number): void {
  for (const [key, value] of map) if (timeOf(value) < before) map.delete(key);
}

/** An environment's usage in a snapshot: its maps as arrays, in their order. */
export interface UsageSnapshot {
  clock: number;
  prunedAt: number;
  hours: Array<[number, Array<[string, number]>]>;
  days: Array<[number, Array<[string, number]>]>;
  last: Array<[string, number]>;
  unknown: Array<[string, number, number]>;
  clients: ClientRecord[];
  ids: Array<[string, number]>;
  marks: Array<[string, boolean, number | null]>;
}

export function usageSnapshot(env: Environment): UsageSnapshot | undefined {
  const usage = env.usage;
  if (!usage) return undefined;
  const rows = (map: Map<number, Map<string, number>>) =>
    [...map].map(([at, r]): [number, Array<[string, number]>] => [at, [...r]]);
  return {
    clock: usage.clock,
    prunedAt: usage.prunedAt,
    hours: rows(usage.hours),
    days: rows(usage.days),
    last: [...usage.last],
    unknown: [...usage.unknown].map(([key, u]): [string, number, number] => [key, u.count, u.last]),
    clients: [...usage.clients.values()],
    ids: [...usage.ids],
    marks: [...usage.marks].map(([key, m]): [string, boolean, number | null] => [
      key,
      m.permanent,
      m.snoozedUntil,
    ]),
  };
}

export function usageFromSnapshot(data: UsageSnapshot | undefined): EnvUsage | undefined {
  if (!data) return undefined;
  const rows = (list: Array<[number, Array<[string, number]>]>) =>
    new Map(list.map(([at, r]) => [at, new Map(r)]));
  return {
    clock: data.clock,
    prunedAt: data.prunedAt,
    hours: rows(data.hours),
    days: rows(data.days),
    last: new Map(data.last),
    unknown: new Map(data.unknown.map(([key, count, last]) => [key, { count, last }])),
    clients: new Map(data.clients.map((c) => [c.instance, c])),
    ids: new Map(data.ids),
    marks: new Map(
      data.marks.map(([key, permanent, snoozedUntil]): [string, UsageMark] => [
        key,
        { permanent, snoozedUntil },
      ]),
    ),
  };
}
