/**
 * The history of flag changes (`docs/protocol.md` §10.3): one entry per committed change,
 * derived from the change itself when its op is applied, so it is as durable as the change
 * and replaying the journal rebuilds it. A large list's change is counted, not copied
 * (`history-lists.ts`, §12.5); an environment keeps at most `historyLimit` entries and
 * `historyBytes` of their JSON, oldest pruned first (§3.4).
 */
import { TARGETING_FIELDS } from '../../../src/core/targeting/types.js';
import { jsonBytes } from '../kernel/json-bytes.js';
import type {
  Actor,
  Environment,
  HistoryEntry,
  MemoryState,
  StoredFlag,
  StoredSegment,
} from '../kernel/model.js';
import { countedChange, countedRulesChange } from './history-lists.js';
import { sameJson } from './targeting.js';

/** The fields a change can touch, in the order the history lists them. */
const FIELDS = ['type', 'enabled', 'percentage', 'description', ...TARGETING_FIELDS] as const;

const SEGMENT_FIELDS = ['description', 'included', 'excluded', 'rules'] as const;

function fieldsOf(flag: StoredFlag): Record<string, unknown> {
  const out: Record<string, unknown> = { type: flag.type, enabled: flag.enabled };
  if (flag.type === 'rollout') out.percentage = flag.percentage ?? 0;
  out.description = flag.description;
  for (const field of TARGETING_FIELDS) if (flag[field] !== undefined) out[field] = flag[field];
  return out;
}

function changesOf(
  fields: readonly string[],
  from: Record<string, unknown> | undefined,
  to: Record<string, unknown> | undefined,
): HistoryEntry['changes'] {
  const changes: HistoryEntry['changes'] = [];
  for (const field of fields) {
    const inFrom = from !== undefined && field in from;
    const inTo = to !== undefined && field in to;
    if (!inFrom && !inTo) continue;
    const a = inFrom ? from[field] : null;
    const b = inTo ? to[field] : null;
    if (from && to && sameJson(a, b)) continue;
    if ((!from || !to) && a === null && b === null) continue; // no description to speak of
    const rules = field === 'rules' ? countedRulesChange(a, b) : undefined;
    if (rules) changes.push(...rules);
    else changes.push(countedChange(field, a, b) ?? { field, from: a, to: b });
  }
  return changes;
}

export function historyEntry(
  revision: number,
  at: string,
  before: StoredFlag | undefined,
  after: StoredFlag | undefined,
  actor: Actor,
): HistoryEntry {
  const changes = changesOf(FIELDS, before && fieldsOf(before), after && fieldsOf(after));
  const flag = (after ?? before)!.key;
  const action = !before ? 'created' : !after ? 'deleted' : 'updated';
  return { revision, at, flag, action, changes, actor };
}

/** A segment's change, in the history as `segment:<key>` (`docs/protocol.md` §12.3). */
export function segmentHistoryEntry(
  revision: number,
  at: string,
  before: StoredSegment | undefined,
  after: StoredSegment | undefined,
  actor: Actor,
): HistoryEntry {
  const fields = (s: StoredSegment) => Object.fromEntries(SEGMENT_FIELDS.map((f) => [f, s[f]]));
  const changes = changesOf(SEGMENT_FIELDS, before && fields(before), after && fields(after));
  const action = !before ? 'created' : !after ? 'deleted' : 'updated';
  return { revision, at, flag: `segment:${(after ?? before)!.key}`, action, changes, actor };
}

/** The bounds of an environment's history: entries, and bytes of their JSON (§3.4). */
export type HistoryBounds = Pick<MemoryState, 'historyLimit' | 'historyBytes'>;

/** The running total of a history array, with what it was counted for. */
interface Tally {
  bytes: number;
  length: number;
  first: HistoryEntry | undefined;
  last: HistoryEntry | undefined;
}

const tallies = new WeakMap<HistoryEntry[], Tally>();

/**
 * The running total of `history`. Entries only join at the end and leave from the front, so a
 * tally whose length, first and last entries still match is right; one that does not (a history
 * restored from a snapshot, or put back after a failed commit: `../kernel/snapshot.ts` `captureScope`) is
 * counted again from the sizes already measured.
 */
function tallyOf(history: HistoryEntry[]): Tally {
  const tally = tallies.get(history);
  if (tally && tally.length === history.length && tally.first === history[0] && tally.last === history.at(-1))
    return tally;
  let bytes = 0;
  for (const entry of history) bytes += jsonBytes(entry);
  const fresh = { bytes, length: history.length, first: history[0], last: history.at(-1) };
  tallies.set(history, fresh);
  return fresh;
}

/**
 * Drops the oldest entries past `historyLimit`, then past `historyBytes` of JSON; the newest
 * entry always stays. Live, on replay and on restore alike, so a restart rebuilds the same history.
 */
export function boundHistory(env: Environment, bounds: HistoryBounds): void {
  const history = env.history;
  const tally = tallyOf(history);
  let drop = Math.max(0, history.length - bounds.historyLimit);
  for (let i = 0; i < drop; i++) tally.bytes -= jsonBytes(history[i]!);
  while (tally.bytes > bounds.historyBytes && history.length - drop > 1)
    tally.bytes -= jsonBytes(history[drop++]!);
  if (drop > 0) history.splice(0, drop);
  tally.length = history.length;
  tally.first = history[0];
  tally.last = history.at(-1);
}

/** Appends an entry, measured once, then drops the oldest past the bounds (`boundHistory`). */
export function recordHistory(env: Environment, entry: HistoryEntry, bounds: HistoryBounds): void {
  const tally = tallyOf(env.history);
  env.history.push(entry);
  tally.bytes += jsonBytes(entry);
  tally.length = env.history.length;
  tally.first = env.history[0];
  tally.last = entry;
  boundHistory(env, bounds);
}

/** Newest first, optionally of one flag, at most `limit`. */
export function readHistory(env: Environment, flag: string | undefined, limit: number): HistoryEntry[] {
  const out: HistoryEntry[] = [];
  for (let i = env.history.length - 1; i >= 0 && out.length < limit; i--) {
    const entry = env.history[i]!;
    if (flag === undefined || entry.flag === flag) out.push(entry);
  }
  return out;
}
