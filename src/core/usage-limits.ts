/**
 * What a usage report may hold (`docs/protocol.md` §13.2), shared by the SDK that makes reports
 * and the server that checks them: the reasons a count row carries, in the SDK's slot order,
 * and the bounds of one report.
 */

/** The reasons a count row may carry: an evaluation that read a flag (§9, §12.4). */
export const COUNTED_REASONS = [
  'ON',
  'OFF',
  'ROLLOUT_IN',
  'ROLLOUT_OUT',
  'MISSING_USER_KEY',
  'PREREQUISITE_FAILED',
  'TARGET_MATCH',
  'RULE_MATCH',
  'FALLTHROUGH',
  'ERROR',
] as const;

/** Count rows in one report at most. */
export const MAX_COUNT_ROWS = 5000;

/** Unknown keys listed in one report at most. */
export const MAX_UNKNOWN_KEYS = 100;
