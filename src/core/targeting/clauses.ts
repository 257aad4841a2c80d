/**
 * Clauses (`docs/protocol.md` §12.2), compiled once per flag load: the values are parsed into
 * sets, numbers, times, versions and ranges, and every clause gets one shape, so that the
 * evaluator tests a user's attribute through one function, a branch per kind of operator
 * (`evaluate.ts` reads the attribute, asks segments and applies `negate`). Testing allocates
 * nothing: what a user's text attribute is read as (lowercase, number, time, version, address)
 * is derived once per distinct text (`memo.ts`), but for texts over 64 characters.
 */
import { type AttributePath, attributePath } from './attributes.js';
import type { Clause } from './types.js';
import {
  addressOf,
  compareVersions,
  inRange,
  lowercase,
  parseRange,
  toNumber,
  toTime,
  versionOf,
} from './values.js';

/**
 * What a clause tests, by operator: a kind (a multiple of 8: `in` 0, `startsWith` 8, `endsWith`
 * 16, `contains` 24, `matches` 32, `exists` 40, `inSegment` 48, numbers 56, times 64, versions
 * 72, `inCidr` 80) plus, for comparisons, the orders of the attribute against an operand that
 * hold (less 1, equal 2, greater 4).
 */
const CODES: Record<string, number> = {
  in: 0,
  startsWith: 8,
  endsWith: 16,
  contains: 24,
  matches: 32,
  exists: 40,
  inSegment: 48,
  lessThan: 57,
  lessThanOrEqual: 59,
  greaterThan: 60,
  greaterThanOrEqual: 62,
  numberEquals: 58,
  before: 65,
  after: 68,
  semVerEqual: 74,
  semVerLessThan: 73,
  semVerLessThanOrEqual: 75,
  semVerGreaterThan: 76,
  semVerGreaterThanOrEqual: 78,
  inCidr: 80,
};

/** A clause, compiled: every clause has these fields (one shape for the evaluator), each kind reads its own. */
export interface CompiledClause {
  path: AttributePath;
  /** The kind of operator (see `CODES`). */
  kind: number;
  /** Comparisons: the orders that hold (see `CODES`). */
  orders: number;
  negate: boolean;
  /** `caseInsensitive`: the operands are lowercased already, the attribute is when tested. */
  fold: boolean;
  /**
   * `in`: a set of the values; `matches`: the pattern's test; else the values parsed (strings,
   * numbers, times, versions or ranges).
   */
  // biome-ignore lint/suspicious/noExplicitAny: what each kind's values compile to.
  operands: any;
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

const lower = (value: unknown): unknown => (typeof value === 'string' ? lowercase(value) : value);

/** A value of an operator of `kind`, parsed; `undefined` or `NaN` when invalid. */
function operand(kind: number, value: unknown, fold: boolean): unknown {
  if (kind === 56) return toNumber(value);
  if (kind === 64) return toTime(value);
  if (kind === 72) return typeof value === 'string' ? (versionOf(value) ?? undefined) : undefined;
  if (kind === 80) return parseRange(value);
  // `exists` takes no values; `inSegment`'s are checked by the caller.
  if (kind > 32) return value;
  return typeof value === 'string' ? (fold ? value.toLowerCase() : value) : undefined;
}

/** Compiles a clause; throws for an operator or values this SDK cannot use. */
export function compileClause(clause: Clause, patterns: PatternCompiler | undefined): CompiledClause {
  const { op, values, attribute } = clause;
  const bad = (): never => {
    throw new Error(`bad ${op} clause`);
  };
  const code = Object.hasOwn(CODES, op) && Array.isArray(values) ? CODES[op]! : bad();
  const kind = code & ~7;
  const fold = clause.caseInsensitive === true;
  const segment = kind === 48;
  if (segment && !values.every((v) => typeof v === 'string')) bad();
  return {
    path: segment ? '' : attributePath(typeof attribute === 'string' ? attribute : bad()),
    kind,
    orders: code & 7,
    negate: clause.negate === true,
    fold,
    operands:
      kind === 0
        ? new Set(fold ? values.map(lower) : values)
        : kind === 32
          ? patterns && values.length === 1 && typeof values[0] === 'string'
            ? patterns(values[0], fold, clause)
            : bad()
          : values.map((v) => {
              const x = operand(kind, v, fold);
              return x === undefined || Number.isNaN(x) ? bad() : x;
            }),
    segments: segment ? (values as string[]) : undefined,
  };
}

/**
 * Whether `clause` (not `inSegment`) holds for the attribute's `value`: absent or `null`, never;
 * an array, when any of its non-null elements does (`exists`: when present).
 */
export function clauseHolds(clause: CompiledClause, value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (clause.kind === 40 || !Array.isArray(value)) return clause.kind === 40 || test(clause, value);
  for (let i = 0; i < value.length; i++) {
    const element: unknown = value[i];
    if (element !== null && element !== undefined && test(clause, element)) return true;
  }
  return false;
}

/** Whether one value (present, not `null`) holds: a branch per kind, the operands in order. */
function test(clause: CompiledClause, x: unknown): boolean {
  const { kind, operands } = clause;
  if (kind === 0) return operands.has(clause.fold ? lower(x) : x);
  if (kind === 32) return operands(x);
  if (kind < 56) {
    if (typeof x !== 'string') return false;
    const s = clause.fold ? lowercase(x) : x;
    for (let i = 0; i < operands.length; i++)
      if (
        kind === 8
          ? s.startsWith(operands[i])
          : kind === 16
            ? s.endsWith(operands[i])
            : s.includes(operands[i])
      )
        return true;
    return false;
  }
  if (kind === 80) {
    const ip = typeof x === 'string' ? addressOf(x) : null;
    for (let i = 0; ip && i < operands.length; i++)
      if (inRange(ip.family, ip.groups, operands[i])) return true;
    return false;
  }
  const version = kind === 72 && typeof x === 'string' ? versionOf(x) : null;
  const n = kind === 56 ? toNumber(x) : kind === 64 ? toTime(x) : 0;
  if (kind === 72 ? !version : Number.isNaN(n)) return false;
  for (let i = 0; i < operands.length; i++) {
    const order = version ? compareVersions(version, operands[i]) : n - operands[i];
    if ((order < 0 ? 1 : order > 0 ? 4 : order === 0 ? 2 : 0) & clause.orders) return true;
  }
  return false;
}
