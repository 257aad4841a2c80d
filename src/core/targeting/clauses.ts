/**
 * Clauses (`docs/protocol.md` §12.2), compiled once per flag load: the values are parsed into
 * sets, numbers, times, versions and ranges, so that testing a user allocates as little as the
 * attribute's own form allows. A compiled clause answers whether the attribute's value holds
 * (`evaluate.ts` reads the attribute, asks segments and applies `negate`).
 */
import { type AttributePath, attributePath } from './attributes.js';
import type { Clause } from './types.js';
import {
  compareVersions,
  inRange,
  parseIp,
  parseRange,
  parseVersion,
  toNumber,
  toTime,
  type Version,
} from './values.js';

export interface CompiledClause {
  path: AttributePath;
  /** Whether the attribute's value holds (an array: any of its non-null elements); unused for segments. */
  holds: (value: unknown) => boolean;
  negate: boolean;
  /** `inSegment`: the segment keys, any of which holds. */
  segments: readonly string[] | undefined;
}

/**
 * Compiles a `matches` pattern (RE2 syntax, linear time) into a test of one attribute value;
 * throws when it cannot. Given by the caller, so that a bundle without the parser does not carry
 * it: the SDK runs the program the server compiled, which it finds on the clause (`program`,
 * `docs/protocol.md` §12.6).
 */
export type PatternCompiler = (
  pattern: string,
  caseInsensitive: boolean,
  clause: Clause,
) => (value: unknown) => boolean;

/**
 * How an operator reads a value: a user's into scratch, an operand (`operand`) into its own
 * object; `undefined` or `NaN` when it is not of the operator's type.
 */
type Read = (value: unknown, operand: boolean, fold: boolean) => unknown;

// biome-ignore lint/suspicious/noExplicitAny: each operator's values are what its `Read` gives.
type Operator = [read: Read, holds: (x: any, operand: any) => boolean];

const text: Read = (v, _, fold) => (typeof v === 'string' ? (fold ? v.toLowerCase() : v) : undefined);

/** The user's version and address, parsed on each evaluation into this scratch. */
const USER_VERSION: Version = { major: 0, minor: 0, patch: 0, pre: '' };
const USER_IP = new Uint16Array(8);

const version: Read = (v, operand) => {
  const out = operand ? { ...USER_VERSION } : USER_VERSION;
  return parseVersion(v, out) ? out : undefined;
};
const address: Read = (v, operand) =>
  operand ? parseRange(v) : (typeof v === 'string' && parseIp(v, USER_IP)) || undefined;

const OPERATORS: Record<string, Operator> = {
  startsWith: [text, (x, y) => x.startsWith(y)],
  endsWith: [text, (x, y) => x.endsWith(y)],
  contains: [text, (x, y) => x.includes(y)],
  lessThan: [toNumber, (x, y) => x - y < 0],
  lessThanOrEqual: [toNumber, (x, y) => x - y <= 0],
  greaterThan: [toNumber, (x, y) => x - y > 0],
  greaterThanOrEqual: [toNumber, (x, y) => x - y >= 0],
  numberEquals: [toNumber, (x, y) => x - y === 0],
  before: [toTime, (x, y) => x - y < 0],
  after: [toTime, (x, y) => x - y > 0],
  semVerEqual: [version, (x, y) => compareVersions(x, y) === 0],
  semVerLessThan: [version, (x, y) => compareVersions(x, y) < 0],
  semVerLessThanOrEqual: [version, (x, y) => compareVersions(x, y) <= 0],
  semVerGreaterThan: [version, (x, y) => compareVersions(x, y) > 0],
  semVerGreaterThanOrEqual: [version, (x, y) => compareVersions(x, y) >= 0],
  inCidr: [address, (family, range) => inRange(family, USER_IP, range)],
};

/** `undefined` or `NaN`: not of the operator's type. */
const invalid = (x: unknown): boolean => x === undefined || Number.isNaN(x);

const lower = (value: unknown): unknown => (typeof value === 'string' ? value.toLowerCase() : value);

/** Compiles a clause; throws for an operator or values this SDK cannot use. */
export function compileClause(clause: Clause, patterns: PatternCompiler | undefined): CompiledClause {
  const { op, values, attribute } = clause;
  const negate = clause.negate === true;
  const fold = clause.caseInsensitive === true;
  const bad = (): never => {
    throw new Error(`bad ${op} clause`);
  };
  if (!Array.isArray(values)) bad();
  if (op === 'inSegment') {
    if (!values.every((v) => typeof v === 'string')) bad();
    return { path: '', holds: Boolean, negate, segments: values as string[] };
  }
  if (typeof attribute !== 'string') bad();
  const path = attributePath(attribute as string);
  if (op === 'exists')
    return { path, holds: (value) => value !== undefined && value !== null, negate, segments: undefined };
  let test: (value: unknown) => boolean;
  const operator = OPERATORS[op];
  if (operator) {
    const [read, holds] = operator;
    const operands = values.map((v) => {
      const x = read(v, true, fold);
      return invalid(x) ? bad() : x;
    });
    test = (value) => {
      const x = read(value, false, fold);
      if (invalid(x)) return false;
      for (let i = 0; i < operands.length; i++) if (holds(x, operands[i])) return true;
      return false;
    };
  } else if (op === 'in') {
    const set = new Set(fold ? values.map(lower) : values);
    test = (value) => set.has(fold ? lower(value) : value);
  } else if (op === 'matches' && patterns && values.length === 1 && typeof values[0] === 'string')
    test = patterns(values[0], fold, clause);
  else return bad();
  const holds = (value: unknown): boolean => {
    if (value === undefined || value === null) return false;
    if (!Array.isArray(value)) return test(value);
    for (let i = 0; i < value.length; i++) {
      const element: unknown = value[i];
      if (element !== null && element !== undefined && test(element)) return true;
    }
    return false;
  };
  return { path, holds, negate, segments: undefined };
}
