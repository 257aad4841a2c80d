/**
 * A large list's change as the history records it (`docs/protocol.md` §12.5): a segment's
 * `included` or `excluded`, or a flag's `targets` (compared as `(variant, key)` pairs), with
 * more than `WHOLE_LIST_MAX` entries on either side is recorded as the keys added and removed,
 * counted, with at most `SAMPLE` of each shown, never as two whole copies. Linear: one set per
 * side, one pass over each.
 */
import type { Target } from '../../src/core/targeting/types.js';
import type { HistoryChange } from './model.js';

/** A list of at most this many entries on both sides keeps `{field, from, to}`. */
export const WHOLE_LIST_MAX = 100;
/** At most this many added and this many removed keys are shown. */
export const SAMPLE = 20;

/** Keys by variant: a segment's list is one group (`''`), a flag's targets one per variant. */
type Groups = Map<string, Set<string>>;
type Counted = Extract<HistoryChange, { addedCount: number }>;

const KEY_LISTS = new Set(['included', 'excluded']);

const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** Entries as the list holds them (duplicates too), and the distinct keys by group. */
function groupsOf(field: string, value: unknown): { entries: number; groups: Groups } {
  const groups: Groups = new Map();
  let entries = 0;
  const add = (group: string, keys: unknown[]) => {
    let set = groups.get(group);
    if (!set) {
      set = new Set();
      groups.set(group, set);
    }
    for (const key of keys) if (typeof key === 'string') set.add(key);
    entries += keys.length;
  };
  if (KEY_LISTS.has(field)) add('', asArray(value));
  else for (const target of asArray(value) as Target[]) add(target.variant, asArray(target.keys));
  return { entries, groups };
}

/** The keys of `a` not in `b`: how many, and the first `SAMPLE` of them. */
function difference(field: string, a: Groups, b: Groups): { sample: Counted['added']; count: number } {
  const sample: Counted['added'] = [];
  let count = 0;
  for (const [variant, keys] of a) {
    const other = b.get(variant);
    for (const key of keys) {
      if (other?.has(key)) continue;
      count++;
      if (sample.length < SAMPLE) sample.push(field === 'targets' ? { variant, key } : key);
    }
  }
  return { sample, count };
}

/**
 * The change of `field` from `from` to `to` counted (§12.5), when it is a list of keys with more
 * than `WHOLE_LIST_MAX` entries on either side; `undefined` otherwise (recorded whole).
 */
export function countedChange(field: string, from: unknown, to: unknown): HistoryChange | undefined {
  if (!KEY_LISTS.has(field) && field !== 'targets') return undefined;
  const before = groupsOf(field, from);
  const after = groupsOf(field, to);
  if (before.entries <= WHOLE_LIST_MAX && after.entries <= WHOLE_LIST_MAX) return undefined;
  const added = difference(field, after.groups, before.groups);
  const removed = difference(field, before.groups, after.groups);
  return {
    field,
    added: added.sample,
    removed: removed.sample,
    addedCount: added.count,
    removedCount: removed.count,
  };
}
