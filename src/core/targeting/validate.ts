/**
 * Validation of targeting in management bodies (`docs/protocol.md` §12): variants, the off
 * variant, the fallthrough, targets, rules, prerequisites, the salt, and segments. Each message
 * names the JSON path at fault (`rules[2].clauses[0].op: unknown operator "startWith"`). What
 * needs the environment (other flags, segments) is checked through `TargetingRefs`; a pattern
 * through the `PatternCheck` given.
 */
import { isObject } from '../is-object.js';
import { jsonProblem, VARIANT_BOUNDS } from '../json-limits.js';
import { SPLIT_TOTAL } from './split.js';
import type { JsonValue, Prerequisite, Rule, Serve, Target, TargetingFields } from './types.js';
import { attribute, validateClauses } from './validate-clauses.js';
import {
  check,
  fields,
  kind,
  list,
  name,
  object,
  type PatternCheck,
  TARGETING_LIMITS,
  type TargetingRefs,
} from './validate-shape.js';

export { validateSegment } from './validate-segment.js';
export * from './validate-shape.js';

/** The type of a non-binary flag's variant values. */
export type ValueType = 'string' | 'number' | 'json';

export function validateVariants(value: unknown, type: ValueType): Record<string, JsonValue> {
  const variants = object(value, 'variants');
  const names = Object.keys(variants);
  check(
    names.length >= 1 && names.length <= TARGETING_LIMITS.variants,
    'variants',
    `must have 1 to ${TARGETING_LIMITS.variants} variants, got ${names.length}`,
  );
  for (const variant of names) {
    const path = `variants.${variant}`;
    name(variant, path);
    const v = variants[variant];
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

function serve(value: unknown, path: string, variants: readonly string[], inRule: boolean): Serve {
  const s = object(value, path);
  if ('variant' in s) {
    fields(s, path, ['variant']);
    check(
      variants.includes(s.variant as string),
      `${path}.variant`,
      `must be one of the flag's variants (${variants.join(', ')}), got ${JSON.stringify(s.variant) ?? kind(s.variant)}`,
    );
    return { variant: s.variant as string };
  }
  check('split' in s, path, 'must have "variant" or "split"');
  fields(s, path, ['split', 'bucketBy', 'salt']);
  const split = list(s.split, `${path}.split`, TARGETING_LIMITS.variants + 1);
  check(split.length > 0, `${path}.split`, 'must have at least one slice');
  let total = 0;
  split.forEach((item, i) => {
    const at = `${path}.split[${i}]`;
    const slice = object(item, at);
    fields(slice, at, ['variant', 'weight']);
    if (slice.variant === null) check(inRule, `${at}.variant`, 'null (no variant) is only allowed in rules');
    else
      check(
        variants.includes(slice.variant as string),
        `${at}.variant`,
        `must be one of the flag's variants, got ${JSON.stringify(slice.variant) ?? kind(slice.variant)}`,
      );
    check(
      Number.isInteger(slice.weight) && (slice.weight as number) >= 0,
      `${at}.weight`,
      `must be a non-negative integer, got ${JSON.stringify(slice.weight) ?? kind(slice.weight)}`,
    );
    total += slice.weight as number;
  });
  check(
    total === SPLIT_TOTAL,
    `${path}.split`,
    `weights must sum to ${SPLIT_TOTAL} (thousandths of a percent), got ${total}`,
  );
  const out: Serve = { split: split as Serve extends { split: infer S } ? S : never };
  if ('bucketBy' in s) {
    const by = s.bucketBy;
    const attributes = Array.isArray(by) ? by : [by];
    check(
      attributes.length > 0 && attributes.length <= 10,
      `${path}.bucketBy`,
      'must name 1 to 10 attributes',
    );
    attributes.forEach((a, i) => {
      attribute(a, Array.isArray(by) ? `${path}.bucketBy[${i}]` : `${path}.bucketBy`);
    });
    out.bucketBy = by as string | string[];
  }
  if ('salt' in s) {
    check(
      typeof s.salt === 'string' && s.salt.length <= 256,
      `${path}.salt`,
      'must be a string of at most 256 characters',
    );
    out.salt = s.salt;
  }
  return out;
}

/** Validates rules; rules without an `id` are given one by `newId`. */
export function validateRules(
  value: unknown,
  variants: readonly string[],
  refs: TargetingRefs,
  patterns: PatternCheck | undefined,
  newId: () => string,
): Rule[] {
  const seen = new Set<string>();
  return list(value, 'rules', TARGETING_LIMITS.rules).map((item, i) => {
    const path = `rules[${i}]`;
    const r = object(item, path);
    fields(r, path, ['id', 'description', 'clauses', 'serve']);
    const rule: Rule = {
      id: 'id' in r ? name(r.id, `${path}.id`) : newId(),
      clauses: validateClauses(r.clauses, `${path}.clauses`, refs, patterns, false),
      serve: serve(r.serve, `${path}.serve`, variants, true),
    };
    check(!seen.has(rule.id), `${path}.id`, `${JSON.stringify(rule.id)} is used by another rule`);
    seen.add(rule.id);
    if ('description' in r) {
      check(
        typeof r.description === 'string' && r.description.length <= 1000,
        `${path}.description`,
        'must be a string of at most 1000 characters',
      );
      rule.description = r.description;
    }
    return rule;
  });
}

export function validateTargets(value: unknown, variants: readonly string[]): Target[] {
  let keys = 0;
  return list(value, 'targets', TARGETING_LIMITS.variants).map((item, i) => {
    const path = `targets[${i}]`;
    const t = object(item, path);
    fields(t, path, ['variant', 'keys']);
    check(
      variants.includes(t.variant as string),
      `${path}.variant`,
      `must be one of the flag's variants, got ${JSON.stringify(t.variant) ?? kind(t.variant)}`,
    );
    const list_ = list(t.keys, `${path}.keys`, TARGETING_LIMITS.targetKeys);
    list_.forEach((key, j) => {
      check(typeof key === 'string' && key.length > 0, `${path}.keys[${j}]`, 'must be a non-empty string');
    });
    keys += list_.length;
    check(
      keys <= TARGETING_LIMITS.targetKeys,
      path,
      `targets list at most ${TARGETING_LIMITS.targetKeys} keys in all`,
    );
    return { variant: t.variant as string, keys: list_ as string[] };
  });
}

/** Validates prerequisites of flag `self`: known flags and variants, no cycle, depth at most 5. */
export function validatePrerequisites(value: unknown, self: string, refs: TargetingRefs): Prerequisite[] {
  const prerequisites = list(value, 'prerequisites', TARGETING_LIMITS.prerequisites).map((item, i) => {
    const path = `prerequisites[${i}]`;
    const p = object(item, path);
    fields(p, path, ['flag', 'variants']);
    check(typeof p.flag === 'string' && p.flag !== self, `${path}.flag`, 'must be the key of another flag');
    const known = refs.variantsOf(p.flag);
    check(known !== undefined, `${path}.flag`, `no flag ${JSON.stringify(p.flag)}`);
    const variants = list(p.variants, `${path}.variants`, TARGETING_LIMITS.variants);
    check(variants.length > 0, `${path}.variants`, 'must name at least one variant');
    variants.forEach((v, j) => {
      check(
        known.includes(v as string),
        `${path}.variants[${j}]`,
        `must be a variant of ${JSON.stringify(p.flag)} (${known.join(', ')})`,
      );
    });
    return { flag: p.flag, variants: variants as string[] };
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
  return prerequisites;
}

/** Validates the targeting fields of `body` for a flag of `type` with `variants`, for `fields` present. */
export function validateFlagTargeting(
  body: Record<string, unknown>,
  flag: { key: string; type: string; variants: readonly string[] },
  refs: TargetingRefs,
  patterns: PatternCheck | undefined,
  newId: () => string,
): TargetingFields {
  const out: TargetingFields = {};
  const binary = flag.type === 'boolean' || flag.type === 'rollout';
  const cleared = (field: string) =>
    body[field] === null || (Array.isArray(body[field]) && (body[field] as unknown[]).length === 0);
  if ('offVariant' in body) {
    check(!binary, 'offVariant', `is not allowed on ${flag.type} flags (their off variant is "off")`);
    check(
      flag.variants.includes(body.offVariant as string),
      'offVariant',
      `must be one of the flag's variants, got ${JSON.stringify(body.offVariant) ?? kind(body.offVariant)}`,
    );
    out.offVariant = body.offVariant as string;
  }
  if ('fallthrough' in body) {
    check(
      flag.type !== 'rollout',
      'fallthrough',
      'is not allowed on rollout flags: their fallthrough is the percentage',
    );
    out.fallthrough = serve(body.fallthrough, 'fallthrough', flag.variants, false);
  }
  if ('targets' in body) out.targets = cleared('targets') ? [] : validateTargets(body.targets, flag.variants);
  if ('rules' in body)
    out.rules = cleared('rules') ? [] : validateRules(body.rules, flag.variants, refs, patterns, newId);
  if ('prerequisites' in body)
    out.prerequisites = cleared('prerequisites')
      ? []
      : validatePrerequisites(body.prerequisites, flag.key, refs);
  if ('salt' in body) {
    check(
      body.salt === null ||
        (typeof body.salt === 'string' && body.salt.length > 0 && body.salt.length <= 256),
      'salt',
      'must be a non-empty string of at most 256 characters, or null',
    );
    if (body.salt !== null) out.salt = body.salt as string;
  }
  return out;
}
