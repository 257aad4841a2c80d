/**
 * An edit merged with a change saved elsewhere meanwhile, field by field against the
 * version the edit began from (`base`): a field only they changed is theirs, one only you
 * changed is yours, one both changed to different values is chosen: theirs, yours, or for a
 * list of keys (a flag's targets, a segment's included and excluded users) both combined, each
 * side's additions and removals since `base` applied.
 */
import type { Target } from '../../src/core/targeting/types.js';
import { same } from './diff.js';

export type Choice = 'theirs' | 'yours' | 'combine';
type Fields = Record<string, unknown>;

/** The fields only they changed, only you changed, and both changed to different values. */
export function sidesOf(base: Fields, theirs: Fields, yours: Fields, fields: readonly string[]) {
  const out = { theirs: [] as string[], yours: [] as string[], both: [] as string[] };
  for (const f of fields) {
    const t = !same(base[f], theirs[f]);
    const y = !same(base[f], yours[f]);
    if (t && y && !same(theirs[f], yours[f])) out.both.push(f);
    else if (t) out.theirs.push(f);
    else if (y) out.yours.push(f);
  }
  return out;
}

/** Whether "combine" applies to the field: a list of keys. */
export const combinable = (field: string): boolean => ['targets', 'included', 'excluded'].includes(field);

/** A list's entries as strings: a target's are `variant\nkey`. */
const entries = (field: string, value: unknown): string[] =>
  field === 'targets'
    ? ((value ?? []) as Target[]).flatMap((t) => t.keys.map((k) => `${t.variant}\n${k}`))
    : ((value ?? []) as string[]);

/** `theirs` with your additions and removals since `base` applied (a key both sides moved goes where you put it). */
export function combined(field: string, base: unknown, theirs: unknown, yours: unknown): unknown {
  const [b, t, y] = [base, theirs, yours].map((v) => new Set(entries(field, v)));
  const kept = [...new Set([...t!, ...y!])].filter((e) => (y!.has(e) !== b!.has(e) ? y!.has(e) : t!.has(e)));
  if (field !== 'targets') return kept;
  const variants = [...new Set(kept.map((e) => e.slice(0, e.indexOf('\n'))))];
  return variants.map((variant) => ({
    variant,
    keys: kept.filter((e) => e.startsWith(`${variant}\n`)).map((e) => e.slice(variant.length + 1)),
  }));
}

/** The edit merged: fields only they changed taken, yours kept, each field both changed as `choice` says. */
export function merged<D>(
  base: D,
  theirs: D,
  yours: D,
  fields: readonly string[],
  choice: (field: string) => Choice,
): D {
  const [b, t, y] = [base, theirs, yours] as Fields[];
  const out: Fields = { ...y };
  for (const f of fields) {
    if (same(b![f], y![f])) out[f] = t![f];
    else if (!same(b![f], t![f]) && !same(t![f], y![f])) {
      const c = choice(f);
      out[f] = c === 'theirs' ? t![f] : c === 'combine' ? combined(f, b![f], t![f], y![f]) : y![f];
    }
  }
  return out as D;
}
