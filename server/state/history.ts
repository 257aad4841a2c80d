/**
 * The history of flag changes (`docs/protocol.md` §10.3): one entry per committed change,
 * derived from the change itself when its op is applied, so it is as durable as the change
 * and replaying the journal rebuilds it.
 */
import { TARGETING_FIELDS } from '../../src/core/targeting/types.js';
import type { Actor, Environment, HistoryEntry, StoredFlag, StoredSegment } from './model.js';
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
    changes.push({ field, from: a, to: b });
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

/** Appends an entry, dropping the oldest past `limit`. */
export function recordHistory(env: Environment, entry: HistoryEntry, limit: number): void {
  env.history.push(entry);
  if (env.history.length > limit) env.history.splice(0, env.history.length - limit);
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
