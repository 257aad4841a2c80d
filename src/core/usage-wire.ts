/**
 * Usage reads as the server answers them (`docs/protocol.md` §13.7): one shape for the server
 * that answers and the management client that reads, a stale flag and a flag's usage.
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

/** One flag in `GET /usage/flags`. */
export interface FlagUsage {
  key: string;
  lastEvaluatedAt: string | null;
  /** Evaluations in each of the last 24 hours up to the current one, oldest first. */
  last24h: number[];
  stale: StaleFlag | null;
  permanent: boolean;
  snoozedUntil: string | null;
}
