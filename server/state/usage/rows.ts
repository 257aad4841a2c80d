/**
 * Adding count rows under the caps of `docs/protocol.md` §13.4: per hour of an environment at
 * most `rowsPerHour` rows, among them at most `appsPerHour` distinct SDK and app pairs; per day
 * at most `rowsPerDay`. A row already held always grows; a new row past a cap is not stored, and
 * its count goes to `dropped`. Counts stop at 2^53 - 1.
 */
import {
  addCount,
  type EnvUsage,
  entryOf,
  USAGE_LIMITS as L,
  type RowFields,
  rowId,
  type UsageRows,
} from './model.js';

/**
 * The SDK and app pairs of an hour's rows, built from the rows when first needed: derived, never
 * stored, so a restored or replayed state holds the same.
 */
const appsOfHour = new WeakMap<UsageRows, Set<string>>();

/** The identity of a row's SDK and app pair (tab-joined, as `rowId`: only compared). */
const pairOf = (row: RowFields): string => `${row.sdk}\t${row.app ?? ''}`;

function appsOf(rows: UsageRows): Set<string> {
  let apps = appsOfHour.get(rows);
  if (!apps) {
    apps = new Set();
    for (const row of rows.values()) apps.add(pairOf(row));
    appsOfHour.set(rows, apps);
  }
  return apps;
}

/** Adds `count` to `row` of hour `hour`, within the hour's caps. */
export function addHourRow(usage: EnvUsage, hour: number, row: RowFields, count: number): void {
  const rows = entryOf(usage.hours, hour, (): UsageRows => new Map());
  const id = rowId(row);
  const held = rows.get(id);
  if (held !== undefined) {
    held.count = addCount(held.count, count);
    return;
  }
  const apps = appsOf(rows);
  const pair = pairOf(row);
  if (rows.size >= L.rowsPerHour || (!apps.has(pair) && apps.size >= L.appsPerHour)) {
    usage.dropped = addCount(usage.dropped, count);
    return;
  }
  apps.add(pair);
  rows.set(id, newRow(row, count));
}

/** Adds `count` to `row` of day `day` (an hour rolled up), within the day's cap. */
export function addDayRow(usage: EnvUsage, day: number, row: RowFields, count: number): void {
  const rows = entryOf(usage.days, day, (): UsageRows => new Map());
  const id = rowId(row);
  const held = rows.get(id);
  if (held !== undefined) held.count = addCount(held.count, count);
  else if (rows.size < L.rowsPerDay) rows.set(id, newRow(row, count));
  else usage.dropped = addCount(usage.dropped, count);
}

/** A row of its own (rows are counted in place: none is shared by two hours or days). */
const newRow = ({ key, version, variant, reason, sdk, app }: RowFields, count: number) => ({
  key,
  version,
  variant,
  reason,
  sdk,
  app,
  count,
});
