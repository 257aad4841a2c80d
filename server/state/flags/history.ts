/**
 * The history of flag changes (`docs/protocol.md` §10.3): one entry per committed change,
 * derived from the change itself when its op is applied, so it is as durable as the change
 * and replaying the journal rebuilds it. A large list's change is counted, not copied
 * (`history-lists.ts`, §12.5); an environment keeps at most `historyLimit` entries and
 * `historyBytes` of their JSON, oldest pruned first (§3.4).
 */
import { TARGETING_FIELDS } from '../../../src/core/targeting/types.js';
import { boundList, pushCounted } from '../kernel/bounded-list.js';
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

/**
 * Drops the oldest entries past `historyLimit`, then past `historyBytes` of JSON; the newest
 * entry always stays (`../kernel/bounded-list.ts`).
 */
export function boundHistory(env: Environment, bounds: HistoryBounds): void {
  boundList(env.history, bounds.historyLimit, bounds.historyBytes);
}

/** Appends an entry, measured once, then drops the oldest past the bounds (`boundHistory`). */
export function recordHistory(env: Environment, entry: HistoryEntry, bounds: HistoryBounds): void {
  pushCounted(env.history, entry);
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
