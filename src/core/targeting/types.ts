/**
 * The wire form of targeting (`docs/protocol.md` §12): variants, individual targets, rules of
 * clauses on user attributes, splits, prerequisites and segments. Shared by the SDK, the
 * management client and the reference server.
 */

/** A JSON value, as a `json` flag's variants hold it. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** One slice of a split: `variant` (or `null`: this rule does not serve the user) for `weight` thousandths of a percent. */
export interface SplitSlice {
  variant: string | null;
  weight: number;
}

/** What a rule or the fallthrough serves: one variant, or a split of the users by their bucket. */
export type Serve =
  | { variant: string }
  | {
      /** Weights sum to exactly 100,000 (thousandths of a percent). */
      split: SplitSlice[];
      /** The attribute(s) whose first present value is bucketed (default `key`). */
      bucketBy?: string | string[];
      /** Hashed before the bucket value (default: the flag's `salt`, else its key). */
      salt?: string;
    };

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

/** Every operator (`docs/protocol.md` §12.2), in the order of `ClauseOperator`. */
export const CLAUSE_OPERATORS: readonly ClauseOperator[] = [
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
];

/** The targeting fields of a flag, in the order the representation and the history list them. */
export const TARGETING_FIELDS = [
  'variants',
  'offVariant',
  'fallthrough',
  'targets',
  'rules',
  'prerequisites',
  'salt',
] as const;

/** One condition on a user: `attribute` `op` any of `values`, maybe negated as a whole. */
export interface Clause {
  /** A top-level attribute, `key`, `$now`, or a JSON pointer `/a/b`; absent for `inSegment`. */
  attribute?: string;
  op: ClauseOperator;
  values: unknown[];
  /** Inverts the whole clause, a missing attribute included. */
  negate?: boolean;
  /** Lowercases both sides for `in`, the string operators and `matches`. */
  caseInsensitive?: boolean;
}

/** A rule: when every clause holds (no clauses: everyone), `serve`. */
export interface Rule {
  id: string;
  description?: string;
  clauses: Clause[];
  serve: Serve;
}

/** Individual users, by key, served one variant. */
export interface Target {
  variant: string;
  keys: string[];
}

/** Another flag that must serve one of `variants` to this user first. */
export interface Prerequisite {
  flag: string;
  variants: string[];
}

/** The targeting fields a flag may carry, on the wire (SDK and management forms). */
export interface TargetingFields {
  /** Variant name to value. `boolean`/`rollout` flags: always `{on: true, off: false}`. */
  variants?: Record<string, JsonValue>;
  offVariant?: string;
  fallthrough?: Serve;
  targets?: Target[];
  rules?: Rule[];
  prerequisites?: Prerequisite[];
  salt?: string;
}

/** A segment: users by key, or by rules (`docs/protocol.md` §12.3). */
export interface Segment {
  key: string;
  description?: string | null;
  included: string[];
  excluded: string[];
  rules: Array<{ clauses: Clause[] }>;
  /** The environment revision of its last change. */
  version?: number;
}
