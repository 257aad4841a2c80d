/**
 * Clauses (`docs/protocol.md` §12.2), compiled once per flag load: the values are parsed into
 * sets, numbers, times, versions and ranges, and every clause gets one shape, so that the
 * evaluator tests a user's attribute through one function, a branch per test (`evaluate.ts`
 * reads the attribute, asks segments and applies `negate`). Testing allocates nothing: what a
 * user's text attribute is read as (lowercase, number, time, version, address) is derived once
 * per distinct text (`memo.ts`), but for texts over 64 characters.
 *
 * A compiled clause, by operator (`CompiledClause`; `OPERATORS` maps each operator to its
 * `test` and `orders`):
 *
 * | operator                           | `test`                   | `operands`                      |
 * | ---------------------------------- | ------------------------ | ------------------------------- |
 * | `in`                               | `In`                     | a `Set` of the values           |
 * | `startsWith`, `endsWith`           | `StartsWith`, `EndsWith` | the texts                       |
 * | `contains`                         | `Contains`               | the texts                       |
 * | `matches`                          | `Matches`                | the pattern's test of one value |
 * | `exists`                           | `Exists`                 | none (`[]`)                     |
 * | `inSegment`                        | `InSegment`              | the segment keys (`path`: `''`) |
 * | `lessThan` ... `numberEquals`      | `Number`                 | the numbers                     |
 * | `before`, `after`                  | `Time`                   | epoch milliseconds              |
 * | `semVerLessThan` ... `semVerEqual` | `Version`                | the versions (`Version`)        |
 * | `inCidr`                           | `Cidr`                   | the ranges (`IpRange`)          |
 *
 * A comparison (`Number`, `Time`, `Version`) holds when the order of the attribute against an
 * operand is one of its `orders` (`Order` bits: `lessThanOrEqual` is `Less | Equal`, `before` is
 * `Less`, `after` is `Greater`); `orders` is 0 for the other tests. Any operand that holds is
 * enough.
 *
 * `caseInsensitive` (`fold`): the texts of `in` and the string tests are lowercased when
 * compiled, the attribute when tested.
 */
import { type AttributePath, attributePath } from './attributes.js';
import type { Clause, ClauseOperator } from './types.js';
import {
  addressOf,
  compareVersions,
  type IpRange,
  inRange,
  lowercase,
  parseRange,
  toNumber,
  toTime,
  type Version,
  versionOf,
} from './values.js';

/** What a compiled clause tests. */
export enum Test {
  In,
  StartsWith,
  EndsWith,
  Contains,
  Matches,
  Exists,
  InSegment,
  Number,
  Time,
  Version,
  Cidr,
}

/**
 * The orders of the attribute against an operand under which a comparison (`Number`, `Time`,
 * `Version`) holds: one bit each, so `lessThanOrEqual` is `Less | Equal`.
 */
export enum Order {
  Less = 1,
  Equal = 2,
  Greater = 4,
}

/** Each operator's test and, for a comparison, the orders under which it holds. */
const OPERATORS: Record<ClauseOperator, readonly [test: Test, orders: number]> = {
  in: [Test.In, 0],
  startsWith: [Test.StartsWith, 0],
  endsWith: [Test.EndsWith, 0],
  contains: [Test.Contains, 0],
  matches: [Test.Matches, 0],
  exists: [Test.Exists, 0],
  inSegment: [Test.InSegment, 0],
  lessThan: [Test.Number, Order.Less],
  lessThanOrEqual: [Test.Number, Order.Less | Order.Equal],
  numberEquals: [Test.Number, Order.Equal],
  greaterThan: [Test.Number, Order.Greater],
  greaterThanOrEqual: [Test.Number, Order.Greater | Order.Equal],
  before: [Test.Time, Order.Less],
  after: [Test.Time, Order.Greater],
  semVerLessThan: [Test.Version, Order.Less],
  semVerLessThanOrEqual: [Test.Version, Order.Less | Order.Equal],
  semVerEqual: [Test.Version, Order.Equal],
  semVerGreaterThan: [Test.Version, Order.Greater],
  semVerGreaterThanOrEqual: [Test.Version, Order.Greater | Order.Equal],
  inCidr: [Test.Cidr, 0],
};

/** What every compiled clause has, whatever it tests. */
interface ClauseFields {
  /** The attribute read; `''` for `inSegment`, which reads none. */
  path: AttributePath;
  negate: boolean;
  /** `caseInsensitive`: the operands are lowercased already, the attribute is when tested. */
  fold: boolean;
  /** Comparisons: the orders that hold (`Order` bits); 0 for the other tests. */
  orders: number;
}

/**
 * A clause, compiled: one shape for every test (the same fields in the same order, so the
 * evaluator reads one kind of object), `operands` typed by `test`.
 */
export type CompiledClause = ClauseFields &
  (
    | { test: Test.In; operands: ReadonlySet<unknown> }
    | { test: Test.StartsWith; operands: readonly string[] }
    | { test: Test.EndsWith; operands: readonly string[] }
    | { test: Test.Contains; operands: readonly string[] }
    | { test: Test.Matches; operands: (value: unknown) => boolean }
    | { test: Test.Exists; operands: readonly never[] }
    | { test: Test.InSegment; operands: readonly string[] }
    | { test: Test.Number; operands: readonly number[] }
    | { test: Test.Time; operands: readonly number[] }
    | { test: Test.Version; operands: readonly Version[] }
    | { test: Test.Cidr; operands: readonly IpRange[] }
  );

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

/** A value of a `test` clause, parsed; `undefined` or `NaN` when invalid. */
function operand(test: Test, value: unknown, fold: boolean): unknown {
  if (test === Test.Number) return toNumber(value);
  if (test === Test.Time) return toTime(value);
  if (test === Test.Version) return typeof value === 'string' ? (versionOf(value) ?? undefined) : undefined;
  if (test === Test.Cidr) return parseRange(value);
  // `exists` takes no values, `inSegment`'s (segment keys) are checked by the caller; the string
  // tests take texts.
  if (test > Test.Matches) return value;
  return typeof value === 'string' ? (fold ? value.toLowerCase() : value) : undefined;
}

/** Compiles a clause; throws for an operator or values this SDK cannot use. */
export function compileClause(clause: Clause, patterns: PatternCompiler | undefined): CompiledClause {
  const { op, values, attribute } = clause;
  const bad = (): never => {
    throw new Error(`bad ${op} clause`);
  };
  const [test, orders] = Object.hasOwn(OPERATORS, op) && Array.isArray(values) ? OPERATORS[op] : bad();
  const fold = clause.caseInsensitive === true;
  const segment = test === Test.InSegment;
  if (segment && !values.every((v) => typeof v === 'string')) bad();
  return {
    path: segment ? '' : attributePath(typeof attribute === 'string' ? attribute : bad()),
    negate: clause.negate === true,
    fold,
    orders,
    test,
    operands:
      test === Test.In
        ? new Set(fold ? values.map(lower) : values)
        : test === Test.Matches
          ? patterns && values.length === 1 && typeof values[0] === 'string'
            ? patterns(values[0], fold, clause)
            : bad()
          : values.map((v) => {
              const x = operand(test, v, fold);
              return x === undefined || Number.isNaN(x) ? bad() : x;
            }),
  } as CompiledClause;
}

/**
 * Whether `clause` (not `inSegment`) holds for the attribute's `value`: absent or `null`, never;
 * an array, when any of its non-null elements does (`exists`: when present).
 */
export function clauseHolds(clause: CompiledClause, value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (clause.test === Test.Exists) return true;
  if (!Array.isArray(value)) return holds(clause, value);
  for (let i = 0; i < value.length; i++) {
    const element: unknown = value[i];
    if (element !== null && element !== undefined && holds(clause, element)) return true;
  }
  return false;
}

/** Whether one value (present, not `null`) holds: a branch per test, any operand in order. */
function holds(clause: CompiledClause, x: unknown): boolean {
  const { test, operands, orders } = clause;
  if (test === Test.In) return operands.has(clause.fold ? lower(x) : x);
  if (test === Test.Matches) return operands(x);
  if (test === Test.Number || test === Test.Time) {
    // Not a number or time (`NaN`): no order holds (`orderOf`).
    const n = test === Test.Number ? toNumber(x) : toTime(x);
    for (let i = 0; i < operands.length; i++) if (orderOf(n - operands[i]!) & orders) return true;
    return false;
  }
  if (test === Test.Version) {
    const version = typeof x === 'string' ? versionOf(x) : null;
    for (let i = 0; version && i < operands.length; i++)
      if (orderOf(compareVersions(version, operands[i]!)) & orders) return true;
    return false;
  }
  if (test === Test.Cidr) {
    const ip = typeof x === 'string' ? addressOf(x) : null;
    for (let i = 0; ip && i < operands.length; i++)
      if (inRange(ip.family, ip.groups, operands[i]!)) return true;
    return false;
  }
  // `startsWith`, `endsWith`, `contains` (`exists` is decided by `clauseHolds`, `inSegment` by
  // the evaluator: neither gets here).
  if (typeof x !== 'string') return false;
  const s = clause.fold ? lowercase(x) : x;
  for (let i = 0; i < operands.length; i++)
    if (
      test === Test.StartsWith
        ? s.startsWith(operands[i]!)
        : test === Test.EndsWith
          ? s.endsWith(operands[i]!)
          : s.includes(operands[i]!)
    )
      return true;
  return false;
}

/** The order of a difference (negative, zero, positive) as an `Order` bit; 0 for `NaN`. */
const orderOf = (difference: number): number =>
  difference < 0 ? Order.Less : difference > 0 ? Order.Greater : difference === 0 ? Order.Equal : 0;
