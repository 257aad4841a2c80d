/** Validation of clauses (`docs/protocol.md` §12.2): operators, attributes and each operator's values. */
import { attributePath } from './attributes.js';
import { CLAUSE_OPERATORS, type Clause } from './types.js';
import {
  check,
  fields,
  kind,
  list,
  object,
  type PatternCheck,
  TARGETING_LIMITS,
  type TargetingRefs,
} from './validate-shape.js';
import { parseRange, parseVersion, toTime, type Version } from './values.js';

const OPERATORS: ReadonlySet<string> = new Set(CLAUSE_OPERATORS);

export function attribute(value: unknown, path: string): string {
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

/**
 * Whether `value` is a version whose numbers (major, minor, patch, numeric pre-release
 * identifiers) are at most 2^53 - 1: past it they would compare inexactly (`values.ts`
 * `parseVersion`), here and in every SDK whose numbers are doubles.
 */
function exactVersion(value: unknown): boolean {
  if (!parseVersion(value, VERSION)) return false;
  const { major, minor, patch, ids } = VERSION;
  return (
    [major, minor, patch].every(Number.isSafeInteger) &&
    ids!.every((id) => !/^\d+$/.test(id) || Number.isSafeInteger(+id))
  );
}

const VALUE_CHECKS: Record<string, [(v: unknown) => boolean, string]> = {
  in: [
    (v) => typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)),
    'a string, number or boolean',
  ],
  startsWith: [(v) => typeof v === 'string', 'a string'],
  number: [(v) => typeof v === 'number' && Number.isFinite(v), 'a number'],
  time: [
    (v) => typeof v !== 'boolean' && !Number.isNaN(toTime(v)),
    'epoch milliseconds or an RFC 3339 date-time with an offset, of a day and time that exist',
  ],
  version: [exactVersion, 'a SemVer version, numbers at most 2^53 - 1'],
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

export function validateClauses(
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
