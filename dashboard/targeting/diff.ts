/**
 * What changed in a targeting field, as sentences (`docs/protocol.md` §12.5: the history holds
 * each changed field whole, old and new, except a large list of keys, held as the keys added
 * and removed, counted, with a sample: `countedChanges`): rules matched by id (added, removed,
 * moved, their conditions or what they serve changed), keys added and removed per variant or
 * segment list, prerequisites, variants, serves. The review before saving and the history page
 * both say changes with it, never as a JSON blob.
 */
import { sameJson } from '../../src/core/canonical-json.js';
import type { Clause, Prerequisite, Rule, Serve, Target } from '../../src/core/targeting/types.js';
import type { HistoryChange } from '../types.js';
import { anyOf, conditionText, ruleText, serveText, valueText } from './words.js';

type SegmentRule = { clauses: Clause[] };

/** Whether two values are the same JSON, whatever the order of their objects' keys (the server may order a clause's fields otherwise than the page). */
export const same = sameJson;
const asList = <T>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : []);

/**
 * "3 keys: ann, bob and carl" / "5,000 keys: ann, bob, … and 4,997 more"; `total` when `keys` is
 * a sample of more (the history's counted form).
 */
export function keysText(keys: readonly string[], max = 5, total = keys.length, noun = 'key'): string {
  const count = `${total.toLocaleString()} ${noun}${total === 1 ? '' : 's'}`;
  const shown = keys.slice(0, max);
  const more = total - shown.length;
  return `${count}: ${more > 0 ? `${shown.join(', ')} and ${more.toLocaleString()} more` : anyOf(shown, 'and')}`;
}

/** A change the history counted (§12.5): keys added and removed, with a sample of each. */
export type CountedChange = Extract<HistoryChange, { addedCount: number }>;

/** Whether the history recorded this change counted rather than whole. */
export const isCounted = (change: HistoryChange): change is CountedChange =>
  typeof (change as CountedChange).addedCount === 'number';

/**
 * A counted change in sentences: "added 50,000 keys: a, b, … and 49,980 more", "removed 5 keys:
 * …"; a target's keys say their variant ("ann (on)"). Every key of the sample is shown.
 */
export function countedChanges(change: CountedChange): string[] {
  const text = (item: CountedChange['added'][number]) =>
    typeof item === 'string' ? item : `${item.key} (${item.variant})`;
  const out: string[] = [];
  const { added, removed, addedCount, removedCount } = change;
  // A rule's clause values (`rules[i].clauses[j].values`) are values, not user keys.
  const noun = change.field.startsWith('rules[') ? 'value' : 'key';
  if (addedCount > 0) out.push(`added ${keysText(added.map(text), added.length, addedCount, noun)}`);
  if (removedCount > 0)
    out.push(`removed ${keysText(removed.map(text), removed.length, removedCount, noun)}`);
  return out;
}

/** Keys added and removed between two lists. */
export function keyChanges(from: readonly string[], to: readonly string[]): string[] {
  const before = new Set(from);
  const after = new Set(to);
  const added = to.filter((k) => !before.has(k));
  const removed = from.filter((k) => !after.has(k));
  const out: string[] = [];
  if (added.length) out.push(`added ${keysText(added)}`);
  if (removed.length) out.push(`removed ${keysText(removed)}`);
  return out;
}

/**
 * The ids of the rules that moved: those outside a longest run of kept rules still in their old
 * order (a swap of two is one rule moved, not two; a rule shifted by an insertion did not move).
 */
function movedIds(fromRules: Rule[], toRules: Rule[]): Set<string> {
  const oldAt = new Map(fromRules.map((r, i) => [r.id, i]));
  const kept = toRules.filter((r) => oldAt.has(r.id));
  const old = kept.map((r) => oldAt.get(r.id)!);
  const length = old.map(() => 1);
  const before = old.map(() => -1);
  let end = -1;
  old.forEach((o, i) => {
    for (let j = 0; j < i; j++)
      if (old[j]! < o && length[j]! + 1 > length[i]!) {
        length[i] = length[j]! + 1;
        before[i] = j;
      }
    if (end < 0 || length[i]! >= length[end]!) end = i;
  });
  const inOrder = new Set<number>();
  for (let i = end; i >= 0; i = before[i]!) inOrder.add(i);
  return new Set(kept.filter((_, i) => !inOrder.has(i)).map((r) => r.id));
}

function ruleChanges(fromRules: Rule[], toRules: Rule[]): string[] {
  const out: string[] = [];
  const oldAt = new Map(fromRules.map((r, i) => [r.id, i]));
  const newIds = new Set(toRules.map((r) => r.id));
  const moves = movedIds(fromRules, toRules);
  fromRules.forEach((rule, i) => {
    if (!newIds.has(rule.id)) out.push(`removed rule ${i + 1}: ${ruleText(rule)}`);
  });
  toRules.forEach((rule, i) => {
    const at = oldAt.get(rule.id);
    if (at === undefined) {
      out.push(`added rule ${i + 1}: ${ruleText(rule)}`);
      return;
    }
    const old = fromRules[at]!;
    const name = `rule ${i + 1}`;
    if (moves.has(rule.id)) out.push(`moved rule ${at + 1} to position ${i + 1} (${ruleText(rule)})`);
    if (!same(old.clauses, rule.clauses))
      out.push(`${name} now applies to ${conditionText(rule.clauses)} (was ${conditionText(old.clauses)})`);
    if (!same(old.serve, rule.serve))
      out.push(`${name} now serves ${serveText(rule.serve)} (was ${serveText(old.serve)})`);
    if ((old.description ?? '') !== (rule.description ?? ''))
      out.push(
        `${name}'s description: ${valueText(old.description ?? '')} → ${valueText(rule.description ?? '')}`,
      );
  });
  return out;
}

/** A segment's rules have no ids: the ones no longer there, and the new ones. */
function segmentRuleChanges(fromRules: SegmentRule[], toRules: SegmentRule[]): string[] {
  const before = fromRules.map((r) => conditionText(r.clauses));
  const after = toRules.map((r) => conditionText(r.clauses));
  return [
    ...before.filter((t) => !after.includes(t)).map((t) => `removed rule: if ${t}`),
    ...after.filter((t) => !before.includes(t)).map((t) => `added rule: if ${t}`),
    ...(before.length === after.length && before.every((t) => after.includes(t)) && !same(before, after)
      ? ['rules reordered']
      : []),
  ];
}

function targetChanges(from: Target[], to: Target[]): string[] {
  const variants = [...new Set([...from, ...to].map((t) => t.variant))];
  const keysOf = (list: Target[], variant: string) =>
    list.filter((t) => t.variant === variant).flatMap((t) => t.keys);
  return variants.flatMap((v) => keyChanges(keysOf(from, v), keysOf(to, v)).map((c) => `${v}: ${c}`));
}

const prerequisiteText = (p: Prerequisite) => `${p.flag} serves ${anyOf(p.variants)}`;

function prerequisiteChanges(from: Prerequisite[], to: Prerequisite[]): string[] {
  const byFlag = new Map(from.map((p) => [p.flag, p]));
  const out: string[] = [];
  for (const p of from) if (!to.some((q) => q.flag === p.flag)) out.push(`removed: ${prerequisiteText(p)}`);
  for (const p of to) {
    const old = byFlag.get(p.flag);
    if (!old) out.push(`added: ${prerequisiteText(p)}`);
    else if (!same(old.variants, p.variants))
      out.push(`now ${prerequisiteText(p)} (was ${anyOf(old.variants)})`);
  }
  if (out.length === 0 && !same(from, to)) out.push('reordered');
  return out;
}

function variantChanges(from: Record<string, unknown>, to: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(to)) {
    if (!(name in from)) out.push(`added ${name} = ${valueText(value)}`);
    else if (!same(from[name], value)) out.push(`${name}: ${valueText(from[name])} → ${valueText(value)}`);
  }
  for (const name of Object.keys(from)) if (!(name in to)) out.push(`removed ${name}`);
  return out;
}

const plain = (v: unknown) => (v === null || v === undefined ? 'none' : valueText(v));

/**
 * The change of one field (`segment`: a segment's field) in sentences; `[]` when the readable
 * form finds no difference. A field it does not know reads `old → new`.
 */
export function fieldChanges(field: string, from: unknown, to: unknown, segment = false): string[] {
  switch (field) {
    case 'rules':
      return segment
        ? segmentRuleChanges(asList(from), asList(to))
        : ruleChanges(asList<Rule>(from), asList<Rule>(to));
    case 'targets':
      return targetChanges(asList(from), asList(to));
    case 'included':
    case 'excluded':
      return keyChanges(asList(from), asList(to));
    case 'prerequisites':
      return prerequisiteChanges(asList(from), asList(to));
    case 'variants':
      return variantChanges((from ?? {}) as Record<string, unknown>, (to ?? {}) as Record<string, unknown>);
    case 'fallthrough':
      return same(from, to)
        ? []
        : [
            `${serveText((to ?? undefined) as Serve | undefined)} (was ${serveText((from ?? undefined) as Serve | undefined)})`,
          ];
    case 'enabled':
      return same(from, to)
        ? []
        : [`${to ? 'on' : 'off'} (was ${from === null ? 'none' : from ? 'on' : 'off'})`];
    case 'percentage':
      return same(from, to) ? [] : [`${plain(to)} % (was ${plain(from)} %)`];
    default:
      return same(from, to) ? [] : [`${plain(to)} (was ${plain(from)})`];
  }
}

/** What a field is called on screen. */
export const FIELD_NAMES: Record<string, string> = {
  enabled: 'On/off',
  percentage: 'Rollout',
  description: 'Description',
  variants: 'Variants',
  offVariant: 'Off variant',
  fallthrough: 'Default rule',
  targets: 'Individual targets',
  rules: 'Rules',
  prerequisites: 'Prerequisites',
  salt: 'Salt',
  included: 'Included users',
  excluded: 'Excluded users',
  type: 'Type',
};

/** A change of one field, named and said in sentences. */
export interface FieldChange {
  field: string;
  name: string;
  lines: string[];
}

/** The fields of `to` that differ from `from`, each said in sentences (`segment`: a segment's). */
export function changesBetween(
  from: Record<string, unknown>,
  to: Record<string, unknown>,
  fields: readonly string[],
  segment = false,
): FieldChange[] {
  return fields.flatMap((field) => {
    if (same(from[field], to[field])) return [];
    const lines = fieldChanges(field, from[field] ?? null, to[field] ?? null, segment);
    return [{ field, name: FIELD_NAMES[field] ?? field, lines: lines.length ? lines : ['changed'] }];
  });
}

/** A field as people read it; a rule's counted values (`rules[i].clauses[j].values`, §12.5) too. */
export function fieldName(field: string): string {
  const values = /^rules\[(\d+)\]\.clauses\[(\d+)\]\.values$/.exec(field);
  if (values) return `Rule ${Number(values[1]) + 1}, condition ${Number(values[2]) + 1}, values`;
  return FIELD_NAMES[field] ?? field;
}
