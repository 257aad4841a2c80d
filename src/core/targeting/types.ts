/**
 * The wire form of targeting (`docs/protocol.md` §12): variants, individual targets, rules of
 * clauses on user attributes, splits, prerequisites and segments. Shared by the SDK, the
 * management client and the reference server.
 */

import type { ClauseOperator, SegmentRule } from '../wire/targeting.js';

/** A JSON value, as a `json` flag's variants hold it. */
export type { JsonValue } from '../json-value.js';

// The wire shapes of targeting: derived from their schemas (`../schemas/targeting.ts`).
export type {
  Clause,
  ClauseOperator,
  Prerequisite,
  Rule,
  RuleInput,
  SegmentRule,
  Serve,
  SplitSlice,
  Target,
  TargetingFields,
} from '../wire/targeting.js';

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

/** A segment: users by key, or by rules (`docs/protocol.md` §12.3). */
export interface Segment {
  key: string;
  description?: string | null;
  included: string[];
  excluded: string[];
  rules: SegmentRule[];
  /** The environment revision of its last change. */
  version?: number;
}
