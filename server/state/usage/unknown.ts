/**
 * The unknown-keys table (`docs/protocol.md` §13.4): keys evaluated that are no flag of the
 * environment. Two budgets, so that what OFREP counts (any client key can ask OFREP for any key)
 * never pushes out what SDK reports say: `unknownKeys` keys an SDK reported, `ofrepUnknownKeys`
 * keys only OFREP reported. A new key in a full budget takes the place of the key with the lowest
 * count among that budget's `unknownEvictWindow` least recently reported (the least recent on a
 * tie), so a flood of keys evaluated once replaces keys evaluated once, not one still counted.
 */
import { addCount, type EnvUsage, USAGE_LIMITS as L, type UnknownKey } from './model.js';

/** How many keys of the table are OFREP's only: derived when first needed, never stored. */
const ofrepKeys = new WeakMap<Map<string, UnknownKey>, number>();

function ofrepCount(table: Map<string, UnknownKey>): number {
  let count = ofrepKeys.get(table);
  if (count === undefined) {
    count = 0;
    for (const entry of table.values()) if (entry.ofrep) count++;
    ofrepKeys.set(table, count);
  }
  return count;
}

function remove(table: Map<string, UnknownKey>, key: string, entry: UnknownKey): void {
  const ofrepHeld = ofrepCount(table);
  table.delete(key);
  if (entry.ofrep) ofrepKeys.set(table, ofrepHeld - 1);
}

/** Makes room for one more key of the budget `ofrep` names. */
function makeRoom(table: Map<string, UnknownKey>, ofrep: boolean): void {
  const ofrepHeld = ofrepCount(table);
  const held = ofrep ? ofrepHeld : table.size - ofrepHeld;
  if (held < (ofrep ? L.ofrepUnknownKeys : L.unknownKeys)) return;
  let victim: [string, UnknownKey] | undefined;
  let seen = 0;
  for (const [key, entry] of table) {
    if (!entry.ofrep !== !ofrep) continue;
    if (!victim || entry.count < victim[1].count) victim = [key, entry];
    if (++seen >= L.unknownEvictWindow) break;
  }
  if (victim) remove(table, victim[0], victim[1]);
}

/** Counts `count` evaluations of `key`, which is no flag, at `at`; `ofrep`: OFREP's report. */
export function addUnknown(usage: EnvUsage, key: string, count: number, at: number, ofrep: boolean): void {
  const table = usage.unknown;
  const held = table.get(key);
  // Least recently reported first: it moves to the end.
  if (held) remove(table, key, held);
  const entry: UnknownKey = held
    ? { count: addCount(held.count, count), last: Math.max(held.last, at) }
    : { count, last: at };
  // A key an SDK reported too is the SDK's.
  const onlyOfrep = ofrep && (held === undefined || held.ofrep === true);
  if (onlyOfrep) entry.ofrep = true;
  makeRoom(table, onlyOfrep);
  const ofrepHeld = ofrepCount(table);
  table.set(key, entry);
  if (onlyOfrep) ofrepKeys.set(table, ofrepHeld + 1);
}

/** Forgets the keys last reported before `before`. */
export function forgetUnknownBefore(usage: EnvUsage, before: number): void {
  for (const [key, entry] of usage.unknown) if (entry.last < before) remove(usage.unknown, key, entry);
}
