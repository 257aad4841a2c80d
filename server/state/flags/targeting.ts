/**
 * Targeting on the server's side (`docs/protocol.md` §12): a flag's targeting fields validated
 * against the environment as the write finds it (other flags for prerequisites, segments for
 * `inSegment`), and what uses what, for the 409s of deleting a flag or segment in use.
 */

import type { JsonValue, Serve } from '../../../src/core/targeting/types.js';
import { TARGETING_FIELDS } from '../../../src/core/targeting/types.js';
import {
  type PatternCheck,
  TargetingInvalid,
  type TargetingRefs,
  validateFlagTargeting,
} from '../../../src/core/targeting/validate.js';
import type { TargetingInput } from '../../../src/core/types.js';
import { ApiError, validationError } from '../../errors.js';
import { newRuleId } from '../kernel/ids.js';
import type { Environment, StoredFlag } from '../kernel/model.js';

/** The variant names of a flag: `on`/`off` for `boolean` and `rollout` flags. */
export function variantNames(flag: StoredFlag): string[] {
  return flag.variants ? Object.keys(flag.variants) : ['on', 'off'];
}

/** The environment as validation sees it. */
export function refsOf(env: Environment): TargetingRefs {
  return {
    variantsOf: (key) => {
      const flag = env.flags.get(key);
      return flag && variantNames(flag);
    },
    prerequisitesOf: (key) => env.flags.get(key)?.prerequisites ?? [],
    hasSegment: (key) => env.segments.has(key),
  };
}

/**
 * Validates the targeting fields of `input` for `flag` (in the environment as it is) and sets
 * them on `flag`: a list given empty or `null`, and a `salt` given `null`, is removed. Throws
 * 400 `VALIDATION_ERROR` naming the JSON path. New `variants` replace the flag's whole map;
 * removing a variant that the flag as the input leaves it, or another flag's prerequisite,
 * still uses is refused, 409 `CONFLICT` naming each user (`docs/protocol.md` §12.1).
 */
export function applyTargeting(
  env: Environment,
  flag: StoredFlag,
  input: TargetingInput,
  patterns: PatternCheck | undefined,
): void {
  const removed = input.variants ? replaceVariants(flag, input.variants) : [];
  const body = input as Record<string, unknown>;
  let fields: ReturnType<typeof validateFlagTargeting>;
  try {
    fields = validateFlagTargeting(
      body,
      { key: flag.key, type: flag.type, variants: variantNames(flag) },
      refsOf(env),
      patterns,
      newRuleId,
    );
  } catch (error) {
    if (error instanceof TargetingInvalid) throw validationError(error.message);
    throw error;
  }
  if ('offVariant' in body) flag.offVariant = fields.offVariant!;
  if ('fallthrough' in body) flag.fallthrough = fields.fallthrough!;
  for (const list of ['targets', 'rules', 'prerequisites'] as const) {
    if (!(list in body)) continue;
    if (fields[list]?.length) flag[list] = fields[list] as never;
    else delete flag[list];
  }
  if ('salt' in body) {
    if (fields.salt === undefined) delete flag.salt;
    else flag.salt = fields.salt;
  }
  // A boolean flag's fallthrough of `on` is its default: not kept, so the flag stays plain.
  if (
    flag.type === 'boolean' &&
    flag.fallthrough &&
    'variant' in flag.fallthrough &&
    flag.fallthrough.variant === 'on'
  )
    delete flag.fallthrough;
  refuseUsedVariants(env, flag, removed);
}

/**
 * Sets `variants` on a flag that may have had others, answering the names it no longer has. The
 * off variant and fallthrough a flag leaves to their default (its first variant) are pinned to
 * it when the first variant would change, so that a new order or a new first variant does not
 * silently move them (removing that variant then finds them as its users).
 */
function replaceVariants(flag: StoredFlag, variants: Record<string, JsonValue>): string[] {
  const old = flag.variants;
  flag.variants = variants;
  if (!old) return [];
  const first = Object.keys(old)[0];
  if (first !== undefined && first !== Object.keys(variants)[0]) {
    flag.offVariant ??= first;
    flag.fallthrough ??= { variant: first };
  }
  return removedVariants(old, variants);
}

/** The variant names of `before` that `after` no longer has. */
export function removedVariants(
  before: Record<string, JsonValue> | undefined,
  after: Record<string, JsonValue> | undefined,
): string[] {
  return Object.keys(before ?? {}).filter((name) => !Object.hasOwn(after ?? {}, name));
}

/** The flags of `env` other than `key` that list variant `variant` of flag `key` as a prerequisite. */
export function prerequisiteUsers(env: Environment, key: string, variant: string): StoredFlag[] {
  const out: StoredFlag[] = [];
  for (const other of env.flags.values())
    if (other.key !== key && other.prerequisites?.some((p) => p.flag === key && p.variants.includes(variant)))
      out.push(other);
  return out;
}

/** Whether `serve` names `variant`: `'variant'`, `'split'` (a slice of it), or not at all. */
function serves(serve: Serve | undefined, variant: string): 'variant' | 'split' | undefined {
  if (!serve) return undefined;
  if ('variant' in serve) return serve.variant === variant ? 'variant' : undefined;
  return serve.split.some((slice) => slice.variant === variant) ? 'split' : undefined;
}

/** What uses `variant` of `flag`, in words: its own fields, then other flags' prerequisites. */
export function variantUsers(env: Environment, flag: StoredFlag, variant: string): string[] {
  const users: string[] = [];
  if (flag.offVariant === variant) users.push('the off variant');
  const fallthrough = serves(flag.fallthrough, variant);
  if (fallthrough) users.push(fallthrough === 'split' ? 'the split of the fallthrough' : 'the fallthrough');
  (flag.rules ?? []).forEach((rule, i) => {
    const how = serves(rule.serve, variant);
    const name = `rule ${JSON.stringify(rule.id)} (rule ${i + 1})`;
    if (how) users.push(how === 'split' ? `the split of ${name}` : name);
  });
  if (flag.targets?.some((t) => t.variant === variant)) users.push('the targets');
  for (const other of prerequisiteUsers(env, flag.key, variant))
    users.push(`the prerequisite of flag ${JSON.stringify(other.key)}`);
  return users;
}

/** Refuses, 409 naming each user, removing variants of `flag` that something still uses. */
function refuseUsedVariants(env: Environment, flag: StoredFlag, removed: readonly string[]): void {
  const used: string[] = [];
  for (const variant of removed) {
    const users = variantUsers(env, flag, variant);
    if (users.length) used.push(`variant ${JSON.stringify(variant)} is used by: ${users.join(', ')}`);
  }
  if (used.length)
    throw new ApiError(
      409,
      'CONFLICT',
      `${used.join('; ')}. Serve another variant there first, or in the same change`,
    );
}

/** The flags that list `key` as a prerequisite. */
export function dependentsOf(env: Environment, key: string): string[] {
  const out: string[] = [];
  for (const flag of env.flags.values())
    if (flag.prerequisites?.some((p) => p.flag === key)) out.push(flag.key);
  return out.sort();
}

/** The flags whose rules use segment `key`. */
export function segmentUsers(env: Environment, key: string): string[] {
  const out: string[] = [];
  for (const flag of env.flags.values())
    if (flag.rules?.some((r) => r.clauses.some((c) => c.op === 'inSegment' && c.values.includes(key))))
      out.push(flag.key);
  return out.sort();
}

/** The fields of a flag a change may touch (its type never changes). */
export const CHANGEABLE_FIELDS = ['enabled', 'percentage', 'description', ...TARGETING_FIELDS] as const;

/** Whether a patch changed a targeting field: the same JSON, whatever the order of its keys. */
export { sameJson } from '../../../src/core/canonical-json.js';
