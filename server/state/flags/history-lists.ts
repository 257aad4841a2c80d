/**
 * A large list's change as the history records it (`docs/protocol.md` §12.5): a segment's
 * `included` or `excluded`, or a flag's `targets` (compared as `(variant, key)` pairs), with
 * more than `WHOLE_LIST_MAX` entries on either side is recorded as the keys added and removed,
 * counted, with at most `SAMPLE` of each shown, never as two whole copies. Linear: one set per
 * side, one pass over each.
 */
import type { Target } from '../../../src/core/targeting/types.js';
import type { HistoryChange } from '../kernel/model.js';

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
    for (const key of keys) set.add(typeof key === 'string' ? key : JSON.stringify(key));
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

interface ClauseLike {
  values?: unknown;
  [field: string]: unknown;
}
interface RuleLike {
  id?: unknown;
  clauses?: unknown;
  [field: string]: unknown;
}

const clausesOf = (rule: unknown): ClauseLike[] =>
  asArray((rule as RuleLike | null)?.clauses).filter(
    (c): c is ClauseLike => typeof c === 'object' && c !== null,
  );

const longValues = (clause: ClauseLike): boolean => asArray(clause.values).length > WHOLE_LIST_MAX;

/** `rules` with every clause `values` list longer than `WHOLE_LIST_MAX` cut to its first `SAMPLE`, and `valuesCount` beside it. */
function sampledRules(rules: unknown): unknown {
  if (!Array.isArray(rules)) return rules;
  return rules.map((rule) => {
    if (!clausesOf(rule).some(longValues)) return rule;
    const clauses = asArray((rule as RuleLike).clauses).map((clause) => {
      if (typeof clause !== 'object' || clause === null || !longValues(clause as ClauseLike)) return clause;
      const values = asArray((clause as ClauseLike).values);
      return { ...(clause as ClauseLike), values: values.slice(0, SAMPLE), valuesCount: values.length };
    });
    return { ...(rule as RuleLike), clauses };
  });
}

/** The values of clause `j` of rule `rule` (matched by id, else by position `i`) in `rules`. */
function valuesAt(rules: unknown[], rule: unknown, i: number, j: number): unknown {
  const id = (rule as RuleLike | null)?.id;
  const match = typeof id === 'string' ? rules.find((r) => (r as RuleLike | null)?.id === id) : rules[i];
  return clausesOf(match)[j]?.values;
}

/**
 * A change of `rules` (a flag's or a segment's) where a clause holds more than `WHOLE_LIST_MAX`
 * values on either side (§12.5): the rules with those lists cut to their first `SAMPLE` values
 * and `valuesCount` beside them, then, per such clause whose values changed, the values added and
 * removed, counted (`field`: `rules[i].clauses[j].values`, `i` the rule's position after the
 * change, or before it for a rule removed). `undefined` when no clause is that long.
 */
export function countedRulesChange(from: unknown, to: unknown): HistoryChange[] | undefined {
  const before = asArray(from);
  const after = asArray(to);
  const long = (rules: unknown[]) => rules.some((rule) => clausesOf(rule).some(longValues));
  if (!long(before) && !long(after)) return undefined;
  const changes: HistoryChange[] = [{ field: 'rules', from: sampledRules(from), to: sampledRules(to) }];
  const seen = new Set<string>();
  const count = (rules: unknown[], others: unknown[], side: 'after' | 'before') => {
    rules.forEach((rule, i) => {
      clausesOf(rule).forEach((clause, j) => {
        const field = `rules[${i}].clauses[${j}].values`;
        const other = valuesAt(others, rule, i, j);
        if (!longValues(clause) && asArray(other).length <= WHOLE_LIST_MAX) return;
        const id = `${String((rule as RuleLike).id ?? i)}/${j}`;
        if (seen.has(id)) return;
        seen.add(id);
        const [a, b] = side === 'after' ? [other, clause.values] : [clause.values, other];
        const counted = countedChange('included', a, b) as Counted;
        if (counted.addedCount === 0 && counted.removedCount === 0) return;
        changes.push({ ...counted, field });
      });
    });
  };
  count(after, before, 'after');
  count(before, after, 'before');
  return changes;
}
