/**
 * The types of `../schemas/targeting.ts`, written by `npm run wire-types`: do not edit; change
 * the schema and run it again.
 */

import type { JsonValue } from '../json-value.js';

/** One condition on a user: `attribute` `op` any of `values`, maybe negated as a whole. */
export interface Clause {
  /** A top-level attribute, `key`, `$now`, or a JSON pointer `/a/b` (escaping only `~0` and `~1`). Absent for `inSegment`. */
  attribute?: string;
  /** The operators of a clause (`docs/protocol.md` §12.2). */
  op: ClauseOperator;
  /** The operands, of the operator's kind (§12.2): none for `exists` (which may leave it out), segment keys for `inSegment`. */
  values: unknown[];
  /** Inverts the whole clause, a missing attribute included. */
  negate?: boolean;
  /** Lowercases both sides for `in`, the string operators and `matches`. */
  caseInsensitive?: boolean;
}

/** A clause as a body gives it: `values` may be left out for `exists`. */
export interface ClauseInput {
  /** A top-level attribute, `key`, `$now`, or a JSON pointer `/a/b` (escaping only `~0` and `~1`). Absent for `inSegment`. */
  attribute?: string;
  /** The operators of a clause (`docs/protocol.md` §12.2). */
  op: ClauseOperator;
  /** The operands, of the operator's kind (§12.2): none for `exists` (which may leave it out), at least one for any other operator, segment keys for `inSegment`. */
  values?: unknown[];
  /** Inverts the whole clause, a missing attribute included. */
  negate?: boolean;
  /** Lowercases both sides for `in`, the string operators and `matches`. */
  caseInsensitive?: boolean;
}

/** The operators of a clause (`docs/protocol.md` §12.2). */
export type ClauseOperator =
  | 'in'
  | 'startsWith'
  | 'endsWith'
  | 'contains'
  | 'matches'
  | 'lessThan'
  | 'lessThanOrEqual'
  | 'greaterThan'
  | 'greaterThanOrEqual'
  | 'numberEquals'
  | 'before'
  | 'after'
  | 'semVerEqual'
  | 'semVerLessThan'
  | 'semVerLessThanOrEqual'
  | 'semVerGreaterThan'
  | 'semVerGreaterThanOrEqual'
  | 'inCidr'
  | 'exists'
  | 'inSegment';

/** Another flag that must serve one of `variants` to this user first. */
export interface Prerequisite {
  /** The key of another flag of the environment. */
  flag: string;
  variants: string[];
}

/** A rule: when every clause holds (no clauses: everyone), `serve`. */
export interface Rule {
  /** Unique in the flag; kept by every later `PATCH` that names it. */
  id: string;
  description?: string;
  /** Every clause must hold; none: everyone. */
  clauses: Clause[];
  /** What a rule or the fallthrough serves: one variant, or a split of the users by their bucket. */
  serve: Serve;
}

/** A rule as a `POST` or `PATCH /flags` body gives it: its `id` may be left out. */
export interface RuleInput {
  /** A rule without one is given `r_` and 10 random characters. */
  id?: string;
  description?: string;
  /** Every clause must hold; none: everyone. */
  clauses: ClauseInput[];
  /** What a rule or the fallthrough serves: one variant, or a split of the users by their bucket. */
  serve: Serve;
}

/** A segment's rule: users every clause holds for. */
export interface SegmentRule {
  /** Every clause must hold (any operator but `inSegment`); none: everyone. */
  clauses: Clause[];
}

/** A segment's rule as a body gives it: `values` may be left out of an `exists` clause. */
export interface SegmentRuleInput {
  /** Every clause must hold (any operator but `inSegment`); none: everyone. */
  clauses: ClauseInput[];
}

/** What a rule or the fallthrough serves: one variant, or a split of the users by their bucket. */
export type Serve =
  | {
      variant: string;
    }
  | {
      /** Weights sum to exactly 100,000 (thousandths of a percent). */
      split: SplitSlice[];
      /** The attribute(s) whose first present value is bucketed (default `key`). */
      bucketBy?: string | string[];
      /** Hashed before the bucket value (default: the flag's `salt`, else its key). */
      salt?: string;
    };

/** One slice of a split: `variant` for `weight` thousandths of a percent. */
export interface SplitSlice {
  /** The variant, or `null` (only in rules): this rule does not serve the user. */
  variant: string | null;
  /** Thousandths of a percent. */
  weight: number;
}

/** Individual users, by key, served one variant. */
export interface Target {
  variant: string;
  /** At most 10000 keys over all the targets of a flag. */
  keys: string[];
}

/** The targeting fields a flag may carry, on the wire (SDK and management forms). */
export interface TargetingFields {
  /** Variant name to value (1 to 100, each at most 32 KiB of JSON). `boolean`/`rollout` flags: always `{on: true, off: false}`. */
  variants?: Variants;
  offVariant?: string;
  /** What a rule or the fallthrough serves: one variant, or a split of the users by their bucket. */
  fallthrough?: Serve;
  targets?: Target[];
  rules?: Rule[];
  prerequisites?: Prerequisite[];
  salt?: string;
}

/** Variant name to value (1 to 100, each at most 32 KiB of JSON). `boolean`/`rollout` flags: always `{on: true, off: false}`. */
export type Variants = Record<string, JsonValue>;
