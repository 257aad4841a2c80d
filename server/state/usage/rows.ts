/**
 * Adding count rows under the caps of `docs/protocol.md` §13.4: per hour of an environment at
 * most `rowsPerHour` rows, among them at most `appsPerHour` distinct SDK and app pairs; per day
 * at most `rowsPerDay`. A row already held always grows; a new row past a cap is not stored, and
 * its count goes to `dropped`. Counts stop at 2^53 - 1.
 */
import { addCount, type EnvUsage, entryOf, USAGE_LIMITS as L } from './model.js';

/**
 * The SDK and app pairs of an hour's rows, built from the rows when first needed: derived, never
 * stored, so a restored or replayed state holds the same.
 */
const appsOfHour = new WeakMap<Map<string, number>, Set<string>>();

/** A row key's SDK and app (its last two fields, `model.ts` `rowKey`). */
const appOf = (row: string): string => row.slice(row.lastIndexOf('\t', row.lastIndexOf('\t') - 1) + 1);

function appsOf(rows: Map<string, number>): Set<string> {
  let apps = appsOfHour.get(rows);
  if (!apps) {
    apps = new Set();
    for (const row of rows.keys()) apps.add(appOf(row));
    appsOfHour.set(rows, apps);
  }
  return apps;
}

/** Adds `count` to `row` of hour `hour`, within the hour's caps. */
export function addHourRow(usage: EnvUsage, hour: number, row: string, count: number): void {
  const rows = entryOf(usage.hours, hour, () => new Map<string, number>());
  const held = rows.get(row);
  if (held !== undefined) {
    rows.set(row, addCount(held, count));
    return;
  }
  const apps = appsOf(rows);
  const app = appOf(row);
  if (rows.size >= L.rowsPerHour || (!apps.has(app) && apps.size >= L.appsPerHour)) {
    usage.dropped = addCount(usage.dropped, count);
    return;
  }
  apps.add(app);
  rows.set(row, count);
}

/** Adds `count` to `row` of day `day` (an hour rolled up), within the day's cap. */
export function addDayRow(usage: EnvUsage, day: number, row: string, count: number): void {
  const rows = entryOf(usage.days, day, () => new Map<string, number>());
  const held = rows.get(row);
  if (held !== undefined) rows.set(row, addCount(held, count));
  else if (rows.size < L.rowsPerDay) rows.set(row, count);
  else usage.dropped = addCount(usage.dropped, count);
}
