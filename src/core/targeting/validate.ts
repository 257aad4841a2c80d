/**
 * Validation of targeting in management bodies (CONTRACT "Third wave", `docs/protocol.md` §12):
 * variants, the off variant, the fallthrough, targets, rules, prerequisites, the salt, and
 * segments. Each message names the JSON path at fault (`rules[2].clauses[0].op: unknown operator
 * "startWith"`). What needs the environment (other flags, segments) is checked through
 * `TargetingRefs`; a pattern through the `PatternCheck` given.
 */
import { attributePath } from './attributes.js';
import { SPLIT_TOTAL } from './split.js';
import type {
  Clause,
  JsonValue,
  Prerequisite,
  Rule,
  Segment,
  Serve,
  Target,
  TargetingFields,
} from './types.js';
import { parseRange, parseVersion, toTime, type Version } from './values.js';

/** The limits of targeting (`docs/protocol.md` §12.5). */
export const TARGETING_LIMITS = {
  variants: 100,
  variantBytes: 32 * 1024,
  rules: 100,
  clauses: 100,
  values: 10_000,
  targetKeys: 10_000,
  prerequisites: 10,
  prerequisiteDepth: 5,
  segmentKeys: 50_000,
  patternLength: 1000,
} as const;

export const NAME_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

/** A value at `path` is not what the contract allows. */
export class TargetingInvalid extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`${path}: ${reason}`);
  }
}

/** What validation needs from the environment. */
export interface TargetingRefs {
  /** The variants of another flag of the environment, or `undefined` when there is none. */
  variantsOf(flag: string): readonly string[] | undefined;
  /** The prerequisites of another flag (to find cycles and depth). */
  prerequisitesOf(flag: string): readonly Prerequisite[];
  hasSegment(key: string): boolean;
}

/** Refuses a pattern the linear-time matcher cannot run (lookaround, backreferences...): the reason, or `undefined`. */
export type PatternCheck = (pattern: string) => string | undefined;

const OPERATORS = new Set([
  'in',
  'startsWith',
  'endsWith',
  'contains',
  'matches',
  'lessThan',
  'lessThanOrEqual',
  'greaterThan',
  'greaterThanOrEqual',
  'numberEquals',
  'before',
  'after',
  'semVerEqual',
  'semVerLessThan',
  'semVerLessThanOrEqual',
  'semVerGreaterThan',
  'semVerGreaterThanOrEqual',
  'inCidr',
  'exists',
  'inSegment',
]);

const kind = (value: unknown): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'an array'
      : typeof value === 'object'
        ? 'an object'
        : `a ${typeof value}`;

function check(condition: boolean, path: string, reason: string): asserts condition {
  if (!condition) throw new TargetingInvalid(path, reason);
}

function object(value: unknown, path: string): Record<string, unknown> {
  check(
    typeof value === 'object' && value !== null && !Array.isArray(value),
    path,
    `must be an object, got ${kind(value)}`,
  );
  return value as Record<string, unknown>;
}

function list(value: unknown, path: string, max: number): unknown[] {
  check(Array.isArray(value), path, `must be an array, got ${kind(value)}`);
  check(value.length <= max, path, `must have at most ${max} items, got ${value.length}`);
  return value;
}

function fields(value: Record<string, unknown>, path: string, allowed: readonly string[]): void {
  for (const name of Object.keys(value)) check(allowed.includes(name), `${path}.${name}`, 'unknown field');
}

function name(value: unknown, path: string): string {
  check(
    typeof value === 'string' && NAME_PATTERN.test(value),
    path,
    `must match ${NAME_PATTERN.source}, got ${JSON.stringify(value) ?? kind(value)}`,
  );
  return value;
}

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

function attribute(value: unknown, path: string): string {
  check(
    typeof value === 'string' && value.length > 0 && value.length <= 256,
    path,
    `must be an attribute name or a JSON pointer, got ${JSON.stringify(value) ?? kind(value)}`,
  );
  if (value[0] === '/') check(!/~[^01]|~$/.test(value), path, 'a JSON pointer escapes only ~0 and ~1');
  attributePath(value);
  return value;
}

const VERSION: Version = { major: 0, minor: 0, patch: 0, pre: '' };

const VALUE_CHECKS: Record<string, [(v: unknown) => boolean, string]> = {
  in: [
    (v) => typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)),
    'a string, number or boolean',
  ],
  startsWith: [(v) => typeof v === 'string', 'a string'],
  number: [(v) => typeof v === 'number' && Number.isFinite(v), 'a number'],
  time: [
    (v) => typeof v !== 'boolean' && !Number.isNaN(toTime(v)),
    'epoch milliseconds or an RFC 3339 date-time with an offset',
  ],
  version: [(v) => parseVersion(v, VERSION), 'a SemVer version'],
  inCidr: [(v) => parseRange(v) !== undefined, 'an IP address or CIDR range'],
};

function checkOf(op: string): [(v: unknown) => boolean, string] | undefined {
  if (op === 'endsWith' || op === 'contains' || op === 'matches') return VALUE_CHECKS.startsWith;
  if (/^(less|greater)Than|^numberEquals$/.test(op)) return VALUE_CHECKS.number;
  if (op === 'before' || op === 'after') return VALUE_CHECKS.time;
  if (op.startsWith('semVer')) return VALUE_CHECKS.version;
  return VALUE_CHECKS[op];
}

function clause(
  value: unknown,
  path: string,
  refs: TargetingRefs,
  patterns: PatternCheck | undefined,
  inSegment: boolean,
): Clause {
  const c = object(value, path);
  fields(c, path, ['attribute', 'op', 'values', 'negate', 'caseInsensitive']);
  check(
    typeof c.op === 'string' && OPERATORS.has(c.op),
    `${path}.op`,
    `unknown operator ${JSON.stringify(c.op) ?? kind(c.op)}`,
  );
  const op = c.op as Clause['op'];
  const values =
    'values' in c || op !== 'exists' ? list(c.values, `${path}.values`, TARGETING_LIMITS.values) : [];
  const out: Clause = { op, values };
  if (op === 'inSegment') {
    check(!inSegment, `${path}.op`, 'segments do not reference segments');
    check(!('attribute' in c), `${path}.attribute`, 'inSegment takes no attribute');
    values.forEach((key, i) => {
      check(
        typeof key === 'string' && refs.hasSegment(key),
        `${path}.values[${i}]`,
        `no segment ${JSON.stringify(key) ?? kind(key)}`,
      );
    });
  } else {
    out.attribute = attribute(c.attribute, `${path}.attribute`);
    if (op === 'exists') check(values.length === 0, `${path}.values`, 'exists takes no values');
    const valid = checkOf(op);
    if (valid)
      values.forEach((v, i) => {
        check(
          valid[0](v),
          `${path}.values[${i}]`,
          `must be ${valid[1]}, got ${JSON.stringify(v) ?? kind(v)}`,
        );
      });
    if (op === 'matches') {
      check(values.length === 1, `${path}.values`, 'matches takes exactly one pattern');
      const pattern = values[0] as string;
      check(
        pattern.length <= TARGETING_LIMITS.patternLength,
        `${path}.values[0]`,
        `a pattern is at most ${TARGETING_LIMITS.patternLength} characters`,
      );
      const refused = patterns?.(pattern);
      check(refused === undefined, `${path}.values[0]`, refused ?? '');
    }
  }
  for (const flag of ['negate', 'caseInsensitive'] as const) {
    if (!(flag in c)) continue;
    check(typeof c[flag] === 'boolean', `${path}.${flag}`, `must be a boolean, got ${kind(c[flag])}`);
    if (c[flag]) out[flag] = true;
  }
  return out;
}

function clauses(
  value: unknown,
  path: string,
  refs: TargetingRefs,
  patterns: PatternCheck | undefined,
  inSegment: boolean,
): Clause[] {
  return list(value, path, TARGETING_LIMITS.clauses).map((c, i) =>
    clause(c, `${path}[${i}]`, refs, patterns, inSegment),
  );
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
      clauses: clauses(r.clauses, `${path}.clauses`, refs, patterns, false),
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
  // Depth and cycles, through the other flags' prerequisites as stored.
  const depth = (flag: string, trail: readonly string[]): number => {
    check(!trail.includes(flag), 'prerequisites', `a cycle: ${[...trail, flag].join(' -> ')}`);
    const next = flag === self ? prerequisites : refs.prerequisitesOf(flag);
    let deepest = 0;
    for (const p of next) deepest = Math.max(deepest, 1 + depth(p.flag, [...trail, flag]));
    return deepest;
  };
  const deepest = depth(self, []);
  check(
    deepest <= TARGETING_LIMITS.prerequisiteDepth,
    'prerequisites',
    `nest at most ${TARGETING_LIMITS.prerequisiteDepth} deep, got ${deepest}`,
  );
  return prerequisites;
}

export { clauses as validateClauses, serve as validateServe };

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

/** Validates a segment body (`POST /segments`, or `PATCH` with `partial`). */
export function validateSegment(
  body: unknown,
  refs: TargetingRefs,
  patterns: PatternCheck | undefined,
  partial: boolean,
): Partial<Segment> {
  const s = object(body, 'body');
  fields(
    s,
    'body',
    partial
      ? ['description', 'included', 'excluded', 'rules']
      : ['key', 'description', 'included', 'excluded', 'rules'],
  );
  const out: Partial<Segment> = {};
  if (!partial) {
    check(
      typeof s.key === 'string' && /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(s.key),
      'key',
      'must be 1 to 128 letters, digits, ".", "_" or "-", starting with a letter or digit',
    );
    out.key = s.key;
  }
  if ('description' in s) {
    check(
      s.description === null || (typeof s.description === 'string' && s.description.length <= 1000),
      'description',
      'must be a string of at most 1000 characters, or null',
    );
    out.description = s.description as string | null;
  }
  let keys = 0;
  for (const field of ['included', 'excluded'] as const) {
    if (!(field in s)) continue;
    const items = s[field] === null ? [] : list(s[field], field, TARGETING_LIMITS.segmentKeys);
    items.forEach((key, i) => {
      check(typeof key === 'string' && key.length > 0, `${field}[${i}]`, 'must be a non-empty string');
    });
    keys += items.length;
    out[field] = [...new Set(items as string[])];
  }
  check(
    keys <= TARGETING_LIMITS.segmentKeys,
    'included',
    `included and excluded hold at most ${TARGETING_LIMITS.segmentKeys} keys in all`,
  );
  if ('rules' in s) {
    out.rules = (s.rules === null ? [] : list(s.rules, 'rules', TARGETING_LIMITS.rules)).map((item, i) => {
      const r = object(item, `rules[${i}]`);
      fields(r, `rules[${i}]`, ['clauses']);
      return { clauses: clauses(r.clauses, `rules[${i}].clauses`, refs, patterns, true) };
    });
  }
  return out;
}
