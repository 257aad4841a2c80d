/**
 * Validation of targeting in management bodies (`docs/protocol.md` §12): variants, the off
 * variant, the fallthrough, targets, rules, prerequisites, the salt, and segments. The structure
 * (types, fields, operators, counts, lengths, names) is the schemas' (`TargetingInput`,
 * `../schemas/targeting.ts`); what it leaves, checked here once it has passed, is what needs the
 * flag or the environment: variants that exist, split weights, operands, other flags
 * (`TargetingRefs`), patterns (the `PatternCheck` given). Each message names the JSON path at
 * fault (`rules[2].clauses[0].op: unknown operator "startWith"`).
 */
import type { Static } from '@sinclair/typebox';
import { isObject } from '../is-object.js';
import { jsonProblem, VARIANT_BOUNDS } from '../json-limits.js';
import { TargetingInput } from '../schemas/flags.js';
import type { Serve as ServeSchema, Target as TargetSchema } from '../schemas/targeting.js';
import { SPLIT_TOTAL } from './split.js';
import {
  type JsonValue,
  type Prerequisite,
  type Rule,
  type Serve,
  TARGETING_FIELDS,
  type TargetingFields,
} from './types.js';
import { checkStructure, quote, validateClauses } from './validate-clauses.js';
import { check, kind, type PatternCheck, TARGETING_LIMITS, type TargetingRefs } from './validate-shape.js';

export { validateSegment } from './validate-segment.js';
export * from './validate-shape.js';

/** The type of a non-binary flag's variant values. */
export type ValueType = 'string' | 'number' | 'json';

type Input = Static<typeof TargetingInput>;

export function validateVariants(value: unknown, type: ValueType): Record<string, JsonValue> {
  const { variants } = checkStructure(TargetingInput, { variants: value }) as Required<
    Pick<Input, 'variants'>
  >;
  for (const [variant, v] of Object.entries(variants)) {
    const path = `variants.${variant}`;
    if (type === 'string') check(typeof v === 'string', path, `must be a string, got ${kind(v)}`);
    if (type === 'number')
      check(typeof v === 'number' && Number.isFinite(v), path, `must be a number, got ${kind(v)}`);
    // OpenFeature's object flags and OFREP's `objectFlag` hold JSON objects only (§12.1).
    if (type === 'json')
      check(
        isObject(v),
        path,
        `must be a JSON object (a json flag serves objects, as OpenFeature and OFREP carry them), got ${kind(v)}`,
      );
    const shape = jsonProblem(v, VARIANT_BOUNDS);
    check(shape === undefined, path, `must be a JSON value within the limits: ${shape}`);
    const bytes = new TextEncoder().encode(JSON.stringify(v) ?? '').length;
    check(
      v !== undefined && bytes <= TARGETING_LIMITS.variantBytes,
      path,
      `must be a JSON value of at most ${TARGETING_LIMITS.variantBytes} bytes`,
    );
  }
  return variants as Record<string, JsonValue>;
}

function serve(
  s: Static<typeof ServeSchema>,
  path: string,
  variants: readonly string[],
  inRule: boolean,
): Serve {
  if ('variant' in s) {
    check(
      variants.includes(s.variant),
      `${path}.variant`,
      `must be one of the flag's variants (${variants.join(', ')}), got ${quote(s.variant)}`,
    );
    return s;
  }
  let total = 0;
  s.split.forEach((slice, i) => {
    const at = `${path}.split[${i}].variant`;
    if (slice.variant === null) check(inRule, at, 'null (no variant) is only allowed in rules');
    else
      check(
        variants.includes(slice.variant),
        at,
        `must be one of the flag's variants, got ${quote(slice.variant)}`,
      );
    total += slice.weight;
  });
  check(
    total === SPLIT_TOTAL,
    `${path}.split`,
    `weights must sum to ${SPLIT_TOTAL} (thousandths of a percent), got ${total}`,
  );
  return s;
}

/** Rules whose structure has passed, for a flag of `variants`; rules without an `id` are given one by `newId`. */
function validateRules(
  rules: NonNullable<Input['rules']>,
  variants: readonly string[],
  refs: TargetingRefs,
  patterns: PatternCheck | undefined,
  newId: () => string,
): Rule[] {
  const seen = new Set<string>();
  return rules.map((r, i) => {
    const path = `rules[${i}]`;
    const rule: Rule = {
      id: r.id ?? newId(),
      clauses: validateClauses(r.clauses, `${path}.clauses`, refs, patterns, false),
      serve: serve(r.serve, `${path}.serve`, variants, true),
    };
    check(!seen.has(rule.id), `${path}.id`, `${JSON.stringify(rule.id)} is used by another rule`);
    seen.add(rule.id);
    if (r.description !== undefined) rule.description = r.description;
    return rule;
  });
}

function validateTargets(
  targets: readonly Static<typeof TargetSchema>[],
  variants: readonly string[],
): Static<typeof TargetSchema>[] {
  let keys = 0;
  return targets.map((t, i) => {
    const path = `targets[${i}]`;
    check(
      variants.includes(t.variant),
      `${path}.variant`,
      `must be one of the flag's variants, got ${quote(t.variant)}`,
    );
    keys += t.keys.length;
    check(
      keys <= TARGETING_LIMITS.targetKeys,
      path,
      `targets list at most ${TARGETING_LIMITS.targetKeys} keys in all`,
    );
    return t;
  });
}

/** Prerequisites of flag `self` whose structure has passed: known flags and variants, no cycle, depth at most 5. */
function validatePrerequisites(
  prerequisites: readonly Prerequisite[],
  self: string,
  refs: TargetingRefs,
): Prerequisite[] {
  prerequisites.forEach((p, i) => {
    const path = `prerequisites[${i}]`;
    check(p.flag !== self, `${path}.flag`, 'must be the key of another flag');
    const known = refs.variantsOf(p.flag);
    check(known !== undefined, `${path}.flag`, `no flag ${JSON.stringify(p.flag)}`);
    p.variants.forEach((v, j) => {
      check(
        known.includes(v),
        `${path}.variants[${j}]`,
        `must be a variant of ${JSON.stringify(p.flag)} (${known.join(', ')})`,
      );
    });
  });
  // Depth and cycles, through the other flags' prerequisites as stored: each flag walked once
  // (a graph of shared prerequisites would otherwise be walked once per path, exponentially).
  const depths = new Map<string, number>();
  const trail: string[] = [];
  const depth = (flag: string): number => {
    check(!trail.includes(flag), 'prerequisites', `a cycle: ${[...trail, flag].join(' -> ')}`);
    const known = depths.get(flag);
    if (known !== undefined) return known;
    const next = flag === self ? prerequisites : refs.prerequisitesOf(flag);
    trail.push(flag);
    let deepest = 0;
    for (const p of next) deepest = Math.max(deepest, 1 + depth(p.flag));
    trail.pop();
    depths.set(flag, deepest);
    return deepest;
  };
  const deepest = depth(self);
  check(
    deepest <= TARGETING_LIMITS.prerequisiteDepth,
    'prerequisites',
    `nest at most ${TARGETING_LIMITS.prerequisiteDepth} deep, got ${deepest}`,
  );
  return [...prerequisites];
}

/**
 * Validates the targeting fields of `body` (its other fields, `variants` included, are not
 * looked at) for a flag of `type` with `variants`: their structure by `TargetingInput`, then
 * what needs the flag and the environment. A list given `null` is `[]`, a `salt` given `null` absent.
 */
export function validateFlagTargeting(
  body: Record<string, unknown>,
  flag: { key: string; type: string; variants: readonly string[] },
  refs: TargetingRefs,
  patterns: PatternCheck | undefined,
  newId: () => string,
): TargetingFields {
  const fields: Record<string, unknown> = {};
  for (const field of TARGETING_FIELDS)
    if (field !== 'variants' && body[field] !== undefined) fields[field] = body[field];
  const t = checkStructure(TargetingInput, fields);
  const out: TargetingFields = {};
  const binary = flag.type === 'boolean' || flag.type === 'rollout';
  if (t.offVariant !== undefined) {
    check(!binary, 'offVariant', `is not allowed on ${flag.type} flags (their off variant is "off")`);
    check(
      flag.variants.includes(t.offVariant),
      'offVariant',
      `must be one of the flag's variants, got ${quote(t.offVariant)}`,
    );
    out.offVariant = t.offVariant;
  }
  if (t.fallthrough !== undefined) {
    check(
      flag.type !== 'rollout',
      'fallthrough',
      'is not allowed on rollout flags: their fallthrough is the percentage',
    );
    out.fallthrough = serve(t.fallthrough, 'fallthrough', flag.variants, false);
  }
  if (t.targets !== undefined) out.targets = validateTargets(t.targets ?? [], flag.variants);
  if (t.rules !== undefined) out.rules = validateRules(t.rules ?? [], flag.variants, refs, patterns, newId);
  if (t.prerequisites !== undefined)
    out.prerequisites = validatePrerequisites(t.prerequisites ?? [], flag.key, refs);
  if (typeof t.salt === 'string') out.salt = t.salt;
  return out;
}
