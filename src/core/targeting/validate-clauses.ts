/**
 * Validation of clauses (`docs/protocol.md` §12.2) once their structure has passed its schema
 * (`ClauseInput`, `../schemas/targeting.ts`): what each operator takes, the segments named, the
 * patterns. Also `checkStructure`, the targeting validators' way to a schema.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import { checkSchema } from '../schemas/check.js';
import type { ClauseInput } from '../schemas/targeting.js';
import type { Clause } from './types.js';
import {
  check,
  kind,
  type PatternCheck,
  TARGETING_LIMITS,
  TargetingInvalid,
  type TargetingRefs,
} from './validate-shape.js';
import { parseRange, parseVersion, toTime, type Version } from './values.js';

/** `value` as `schema` has it, or `TargetingInvalid` naming the JSON path (`rules[0].serve: is required`). */
export function checkStructure<T extends TSchema>(schema: T, value: unknown): Static<T> {
  const checked = checkSchema(schema, value, 'path');
  if (!checked.ok) throw new TargetingInvalid(checked.at, checked.reason);
  return checked.value;
}

/** A value as a message quotes it: as JSON. */
export const quote = (value: unknown): string => JSON.stringify(value) ?? kind(value);

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
  c: Static<typeof ClauseInput>,
  path: string,
  refs: TargetingRefs,
  patterns: PatternCheck | undefined,
  inSegment: boolean,
): Clause {
  const { op } = c;
  check(c.values !== undefined || op === 'exists', `${path}.values`, 'is required');
  const values = c.values ?? [];
  // An empty list never holds (negated, always): saved, it reads "age is more than" nothing. A
  // flag or segment stored with one before this check still loads and evaluates so.
  check(values.length > 0 || op === 'exists', `${path}.values`, `${op} takes at least one value`);
  const out: Clause = { op, values };
  if (op === 'inSegment') {
    check(!inSegment, `${path}.op`, 'segments do not reference segments');
    check(c.attribute === undefined, `${path}.attribute`, 'inSegment takes no attribute');
    values.forEach((key, i) => {
      check(
        typeof key === 'string' && refs.hasSegment(key),
        `${path}.values[${i}]`,
        `no segment ${quote(key)}`,
      );
    });
  } else {
    check(c.attribute !== undefined, `${path}.attribute`, 'is required');
    out.attribute = c.attribute;
    if (op === 'exists') check(values.length === 0, `${path}.values`, 'exists takes no values');
    const valid = checkOf(op);
    if (valid)
      values.forEach((v, i) => {
        check(valid[0](v), `${path}.values[${i}]`, `must be ${valid[1]}, got ${quote(v)}`);
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
  if (c.negate) out.negate = true;
  if (c.caseInsensitive) out.caseInsensitive = true;
  return out;
}

/** Validates clauses whose structure has passed `ClauseInput`; `path` names their list. */
export function validateClauses(
  clauses: readonly Static<typeof ClauseInput>[],
  path: string,
  refs: TargetingRefs,
  patterns: PatternCheck | undefined,
  inSegment: boolean,
): Clause[] {
  return clauses.map((c, i) => clause(c, `${path}[${i}]`, refs, patterns, inSegment));
}
