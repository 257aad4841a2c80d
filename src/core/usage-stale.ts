/**
 * A stale flag as the server says it (`docs/protocol.md` §13.7): one shape for the server that
 * decides it and the management client that reads it.
 */
import type { JsonValue } from './targeting/types.js';

/** Why a flag is stale (§13.7). */
export type StaleReason = 'UNUSED' | 'NEVER_EVALUATED' | 'SINGLE_VALUE';

export interface StaleFlag {
  key: string;
  reason: StaleReason;
  /** Says why in words, e.g. `not evaluated for 52 days`. */
  message: string;
  /** `UNUSED` and `SINGLE_VALUE`. */
  lastEvaluatedAt?: string;
  /** `NEVER_EVALUATED`. */
  createdAt?: string;
  /** `SINGLE_VALUE`: the value to hard-code, and its variant. */
  value?: JsonValue;
  variant?: string;
}
