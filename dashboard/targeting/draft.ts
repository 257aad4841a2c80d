/**
 * A flag's targeting as the flag page edits it: every field present, with its default made
 * explicit (`docs/protocol.md` §12.1), so that the page compares, shows and sends plain values.
 * `patchOf` sends only the fields that differ from the saved flag: a change made elsewhere to
 * another field is kept, never overwritten.
 */
import type { Prerequisite, Rule, Serve, Target } from '../../src/core/targeting/types.js';
import type { UpdateFlagInput } from '../../src/core/types.js';
import type { Flag } from '../types.js';
import { same } from './diff.js';

export interface Draft {
  enabled: boolean;
  /** Rollout flags: their fallthrough. */
  percentage?: number;
  /** String, number and JSON flags. */
  offVariant?: string;
  /** Every type but rollout. */
  fallthrough?: Serve;
  targets: Target[];
  rules: Rule[];
  prerequisites: Prerequisite[];
  /** `''`: none (the flag key is hashed). */
  salt: string;
}

/** The fields a draft holds, in the order the review lists them. */
export const DRAFT_FIELDS = [
  'enabled',
  'percentage',
  'offVariant',
  'fallthrough',
  'targets',
  'rules',
  'prerequisites',
  'salt',
] as const;

/** The variant names of a flag (`on`/`off` for boolean and rollout flags). */
export const variantNames = (flag: Flag): string[] =>
  'variants' in flag ? Object.keys(flag.variants) : ['on', 'off'];

export function draftOf(flag: Flag): Draft {
  const draft: Draft = {
    enabled: flag.enabled,
    targets: flag.targets ?? [],
    rules: flag.rules ?? [],
    prerequisites: flag.prerequisites ?? [],
    salt: flag.salt ?? '',
  };
  if (flag.type === 'rollout') draft.percentage = flag.percentage;
  else if (flag.type === 'boolean') draft.fallthrough = flag.fallthrough ?? { variant: 'on' };
  else {
    draft.offVariant = flag.offVariant;
    draft.fallthrough = flag.fallthrough;
  }
  return draft;
}

/** The value a field is sent as (`salt` `''` clears it). */
function wire(draft: Draft, field: (typeof DRAFT_FIELDS)[number]): unknown {
  return field === 'salt' ? draft.salt || null : draft[field];
}

/** The fields of `draft` that differ from `saved` (the saved flag's draft). */
export function changedFields(saved: Draft, draft: Draft): Array<(typeof DRAFT_FIELDS)[number]> {
  return DRAFT_FIELDS.filter((f) => draft[f] !== undefined && !same(saved[f], draft[f]));
}

/** A `PATCH` body with only what changed. */
export function patchOf(saved: Draft, draft: Draft): UpdateFlagInput {
  const body: Record<string, unknown> = {};
  for (const field of changedFields(saved, draft)) body[field] = wire(draft, field);
  return body as UpdateFlagInput;
}

/** The whole draft as a `PATCH` body: what "who gets what" evaluates. */
export function bodyOf(draft: Draft): UpdateFlagInput {
  const body: Record<string, unknown> = {};
  for (const field of DRAFT_FIELDS) if (draft[field] !== undefined) body[field] = wire(draft, field);
  return body as UpdateFlagInput;
}

/** A new rule's id: kept by the server (`docs/protocol.md` §12.1), so the review matches rules by it. */
export function newRuleId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return `r_${Array.from(bytes, (b) => (b % 36).toString(36)).join('')}`;
}

/** Moves item `from` to `to` (both in range). */
export function moved<T>(list: readonly T[], from: number, to: number): T[] {
  const out = [...list];
  const [item] = out.splice(from, 1);
  out.splice(to, 0, item as T);
  return out;
}

/** `list` with item `i` replaced. */
export const replaced = <T>(list: readonly T[], i: number, item: T): T[] =>
  list.map((x, k) => (k === i ? item : x));

/** `list` without item `i`. */
export const without = <T>(list: readonly T[], i: number): T[] => list.filter((_, k) => k !== i);

/**
 * Where a server's validation message points (`rules[2].clauses[0].op: ...`): the JSON path and
 * the reason, or the whole message when it names none.
 */
export function pathOf(message: string): { path: string; reason: string } {
  const match = /^([A-Za-z]+(?:\[\d+\]|\.[A-Za-z0-9_.-]+)*): (.*)$/s.exec(message);
  return match ? { path: match[1]!, reason: match[2]! } : { path: '', reason: message };
}

/** Whether `path` is `prefix` or inside it (`rules[1].clauses[0]` is inside `rules[1]`). */
export const inside = (path: string, prefix: string): boolean =>
  path === prefix || path.startsWith(`${prefix}.`) || path.startsWith(`${prefix}[`);
