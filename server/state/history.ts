/**
 * The history of flag changes (`docs/protocol.md` §10.3): one entry per committed change,
 * derived from the change itself when its op is applied, so it is as durable as the change
 * and replaying the journal rebuilds it.
 */
import type { Actor, Environment, HistoryEntry, StoredFlag } from './model.js';

/** The fields a change can touch, in the order the history lists them. */
const FIELDS = ['type', 'enabled', 'percentage', 'description'] as const;

function fieldsOf(flag: StoredFlag): Record<string, unknown> {
  const out: Record<string, unknown> = { type: flag.type, enabled: flag.enabled };
  if (flag.type === 'rollout') out.percentage = flag.percentage ?? 0;
  out.description = flag.description;
  return out;
}

export function historyEntry(
  revision: number,
  at: string,
  before: StoredFlag | undefined,
  after: StoredFlag | undefined,
  actor: Actor,
): HistoryEntry {
  const from = before ? fieldsOf(before) : {};
  const to = after ? fieldsOf(after) : {};
  const changes: HistoryEntry['changes'] = [];
  for (const field of FIELDS) {
    const a = field in from ? from[field] : null;
    const b = field in to ? to[field] : null;
    if (!(field in from) && !(field in to)) continue;
    if (before && after && a === b) continue;
    if ((!before || !after) && a === null && b === null) continue; // no description to speak of
    changes.push({ field, from: before ? a : null, to: after ? b : null });
  }
  const flag = (after ?? before)!.key;
  const action = !before ? 'created' : !after ? 'deleted' : 'updated';
  return { revision, at, flag, action, changes, actor };
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
