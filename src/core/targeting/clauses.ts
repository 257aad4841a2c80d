/**
 * Clauses (`docs/protocol.md` §12.2), compiled once per flag load: the values are parsed into
 * sets, numbers, times, versions and ranges, so that testing a user allocates as little as the
 * attribute's own form allows. A compiled clause answers whether it holds; `negate` inverts the
 * whole answer, a missing attribute included.
 */
import type { User } from '../types.js';
import { type AttributePath, attributeOf, attributePath } from './attributes.js';
import type { Clause } from './types.js';
import {
  compareVersions,
  type IpRange,
  inRange,
  parseIp,
  parseRange,
  parseVersion,
  toNumber,
  toTime,
  type Version,
} from './values.js';

/** Where segments are looked up while a flag is evaluated. */
export interface SegmentLookup {
  inSegment(key: string, user: User | undefined): boolean;
}

export interface CompiledClause {
  path: AttributePath;
  /** Whether one (non-array, non-null) attribute value satisfies the operator. */
  test: (value: unknown) => boolean;
  negate: boolean;
  /** `exists`: presence alone decides. */
  exists: boolean;
  /** `inSegment`: the segment keys, any of which holds. */
  segments: readonly string[] | undefined;
}

/** Thrown while compiling a clause a newer server may know but this SDK does not. */
export class MalformedClause extends Error {}

const lower = (value: unknown): unknown => (typeof value === 'string' ? value.toLowerCase() : value);

type Tester = (values: readonly unknown[], fold: boolean) => (value: unknown) => boolean;

function strings(values: readonly unknown[], fold: boolean): string[] {
  return values.map((v) => {
    if (typeof v !== 'string') throw new MalformedClause('a string operator takes strings');
    return fold ? v.toLowerCase() : v;
  });
}

const stringOp =
  (match: (value: string, operand: string) => boolean): Tester =>
  (values, fold) => {
    const operands = strings(values, fold);
    return (value) => {
      if (typeof value !== 'string') return false;
      const text = fold ? value.toLowerCase() : value;
      for (let i = 0; i < operands.length; i++) if (match(text, operands[i]!)) return true;
      return false;
    };
  };

const compared =
  (parse: (value: unknown) => number, holds: (difference: number) => boolean): Tester =>
  (values) => {
    const operands = values.map(parse);
    if (operands.some(Number.isNaN)) throw new MalformedClause('a value is not of the operator type');
    return (value) => {
      const x = parse(value);
      if (Number.isNaN(x)) return false;
      for (let i = 0; i < operands.length; i++) if (holds(x - operands[i]!)) return true;
      return false;
    };
  };

/** The user's version, parsed on each evaluation into this scratch. */
const USER_VERSION: Version = { major: 0, minor: 0, patch: 0, pre: '' };

const versionOp =
  (holds: (order: number) => boolean): Tester =>
  (values) => {
    const operands = values.map((v) => {
      const version: Version = { major: 0, minor: 0, patch: 0, pre: '' };
      if (!parseVersion(v, version)) throw new MalformedClause('a value is not a version');
      return version;
    });
    return (value) => {
      if (!parseVersion(value, USER_VERSION)) return false;
      for (let i = 0; i < operands.length; i++)
        if (holds(compareVersions(USER_VERSION, operands[i]!))) return true;
      return false;
    };
  };

/** The user's address, parsed on each evaluation into this scratch. */
const USER_IP = new Uint16Array(8);

const TESTERS: Partial<Record<Clause['op'], Tester>> = {
  in: (values, fold) => {
    const set = new Set(fold ? values.map(lower) : values);
    return (value) => set.has(fold ? lower(value) : value);
  },
  startsWith: stringOp((value, operand) => value.startsWith(operand)),
  endsWith: stringOp((value, operand) => value.endsWith(operand)),
  contains: stringOp((value, operand) => value.includes(operand)),
  lessThan: compared(toNumber, (d) => d < 0),
  lessThanOrEqual: compared(toNumber, (d) => d <= 0),
  greaterThan: compared(toNumber, (d) => d > 0),
  greaterThanOrEqual: compared(toNumber, (d) => d >= 0),
  numberEquals: compared(toNumber, (d) => d === 0),
  before: compared(toTime, (d) => d < 0),
  after: compared(toTime, (d) => d > 0),
  semVerEqual: versionOp((o) => o === 0),
  semVerLessThan: versionOp((o) => o < 0),
  semVerLessThanOrEqual: versionOp((o) => o <= 0),
  semVerGreaterThan: versionOp((o) => o > 0),
  semVerGreaterThanOrEqual: versionOp((o) => o >= 0),
  inCidr: (values) => {
    const ranges = values.map(parseRange);
    if (ranges.includes(undefined)) throw new MalformedClause('a value is not an address range');
    return (value) => {
      const family = typeof value === 'string' ? parseIp(value, USER_IP) : 0;
      return family !== 0 && (ranges as IpRange[]).some((range) => inRange(family, USER_IP, range));
    };
  },
};

/** Compiles a clause; throws `MalformedClause` for an operator or value this SDK cannot use. */
export function compileClause(clause: Clause, matchers: PatternCompiler | undefined): CompiledClause {
  const { op, values } = clause;
  if (!Array.isArray(values)) throw new MalformedClause('values must be a list');
  const negate = clause.negate === true;
  if (op === 'inSegment') {
    if (!values.every((v) => typeof v === 'string')) throw new MalformedClause('segment keys are strings');
    return { path: '', test: () => false, negate, exists: false, segments: values as string[] };
  }
  if (typeof clause.attribute !== 'string') throw new MalformedClause('a clause names an attribute');
  const path = attributePath(clause.attribute);
  const fold = clause.caseInsensitive === true;
  if (op === 'exists') return { path, test: () => true, negate, exists: true, segments: undefined };
  let test: ((value: unknown) => boolean) | undefined;
  if (op === 'matches') {
    if (!matchers || values.length !== 1 || typeof values[0] !== 'string')
      throw new MalformedClause('matches takes one pattern');
    test = matchers(values[0], fold);
  } else test = TESTERS[op]?.(values, fold);
  if (!test) throw new MalformedClause(`unknown operator ${JSON.stringify(op)}`);
  return { path, test, negate, exists: false, segments: undefined };
}

/**
 * Compiles a `matches` pattern (RE2 syntax, linear time) into a test of one attribute value;
 * throws `MalformedClause` when it cannot. Given by the caller, so that a bundle without
 * patterns does not carry the matcher.
 */
export type PatternCompiler = (pattern: string, caseInsensitive: boolean) => (value: unknown) => boolean;

/** Whether `clause` holds for `user`. */
export function clauseHolds(
  clause: CompiledClause,
  user: User | undefined,
  segments: SegmentLookup,
): boolean {
  let holds = false;
  if (clause.segments) {
    for (let i = 0; i < clause.segments.length && !holds; i++)
      holds = segments.inSegment(clause.segments[i]!, user);
  } else {
    const value = attributeOf(user, clause.path);
    if (clause.exists) holds = value !== undefined && value !== null;
    else if (value === undefined || value === null) holds = false;
    else if (Array.isArray(value)) {
      for (let i = 0; i < value.length && !holds; i++) {
        const element: unknown = value[i];
        holds = element !== null && element !== undefined && clause.test(element);
      }
    } else holds = clause.test(value);
  }
  return holds !== clause.negate;
}

/** Whether every clause holds (no clauses: everyone). */
export function allHold(
  clauses: readonly CompiledClause[],
  user: User | undefined,
  segments: SegmentLookup,
): boolean {
  for (let i = 0; i < clauses.length; i++) if (!clauseHolds(clauses[i]!, user, segments)) return false;
  return true;
}
