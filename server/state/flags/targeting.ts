/**
 * Targeting on the server's side (`docs/protocol.md` §12): a flag's targeting fields validated
 * against the environment as the write finds it (other flags for prerequisites, segments for
 * `inSegment`), and what uses what, for the 409s of deleting a flag or segment in use.
 */

import { TARGETING_FIELDS } from '../../../src/core/targeting/types.js';
import {
  type PatternCheck,
  TargetingInvalid,
  type TargetingRefs,
  validateFlagTargeting,
} from '../../../src/core/targeting/validate.js';
import type { TargetingInput } from '../../../src/core/types.js';
import { validationError } from '../../errors.js';
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
 * 400 `VALIDATION_ERROR` naming the JSON path.
 */
export function applyTargeting(
  env: Environment,
  flag: StoredFlag,
  input: TargetingInput,
  patterns: PatternCheck | undefined,
): void {
  if (input.variants) flag.variants = input.variants;
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

/** The fields of a flag a change may touch (its type and variants never change). */
export const CHANGEABLE_FIELDS = [
  'enabled',
  'percentage',
  'description',
  ...TARGETING_FIELDS.slice(1),
] as const;

/** Whether a patch changed a targeting field: the same JSON, whatever the order of its keys. */
export { sameJson } from '../../../src/core/canonical-json.js';
