/**
 * An environment's usage clock (`docs/protocol.md` §13.4). A `usage` op carries the committing
 * instance's clock; every age (retention, report ids) is measured against the environment's
 * clock, so one instance's clock far ahead must not move it: that would age out every row, client
 * and id at once.
 *
 * - A commit time up to `skewMs` past the clock moves it.
 * - One further ahead counts at its own time, but the clock stays until reports have kept coming
 *   past it for `confirmMs` (a server that was quiet for a day, then busy again): then it moves.
 * - A report back within `skewMs` of the clock before that says the time ahead was wrong: what was
 *   counted later than now is moved back to now (rows to this hour, last-evaluated and last-seen
 *   times to now), so nothing stays in the future.
 *
 * Only the committed ops, in commit order, decide: every instance, and a replay, holds the same.
 */
import { type EnvUsage, HOUR, USAGE_LIMITS as L } from './model.js';
import { addHourRow } from './rows.js';

/** Moves `usage`'s clock for an op committed at `at` (which counts at `at`). */
export function advanceClock(usage: EnvUsage, at: number): void {
  const { clock, ahead } = usage;
  if (clock === 0) {
    usage.clock = at;
  } else if (at <= clock + L.skewMs) {
    if (ahead !== 0) {
      usage.ahead = 0;
      rewind(usage, Math.max(clock, at));
    }
    if (at > clock) usage.clock = at;
  } else if (ahead === 0) {
    usage.ahead = at;
  } else if (at < ahead - L.skewMs) {
    // Ahead of the clock, but well behind the time ahead: that one was wrong, this one may be.
    rewind(usage, at);
    usage.ahead = at;
  } else if (at >= ahead + L.confirmMs) {
    believe(usage, at);
  }
}

/** When a report id committed at `at` was counted, for its retention: never past the clock's bound. */
export function idTime(usage: EnvUsage, at: number): number {
  return Math.min(Math.max(at, usage.clock), usage.clock + L.skewMs);
}

/** The time ahead is believed: the clock moves to `at`. */
function believe(usage: EnvUsage, at: number): void {
  const before = usage.clock;
  usage.clock = at;
  usage.ahead = 0;
  // Ids counted while it was not were given the old clock's bound: they count from now on.
  for (const [id, time] of usage.ids) if (time > before) usage.ids.set(id, at);
}

/** Moves everything counted later than `to` back to `to`. */
function rewind(usage: EnvUsage, to: number): void {
  const hour = Math.floor(to / HOUR);
  for (const [h, rows] of usage.hours) {
    if (h <= hour) continue;
    usage.hours.delete(h);
    for (const row of rows.values()) addHourRow(usage, hour, row, row.count);
  }
  for (const [key, time] of usage.last) if (time > to) usage.last.set(key, to);
  for (const entry of usage.unknown.values()) if (entry.last > to) entry.last = to;
  for (const client of usage.clients.values()) {
    if (client.lastSeen > to) client.lastSeen = to;
    if (client.firstSeen > to) client.firstSeen = to;
  }
}
