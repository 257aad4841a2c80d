/**
 * What a client counts for usage reports (`docs/protocol.md` §13.2): beside each flag entry the
 * evaluator already looked up, one array of counters, a slot per (variant, reason), so counting
 * is an index and an increment, nothing allocated (keys the client holds no flag of, and
 * evaluations before anything loaded, the reporter counts: `usage-reporter.ts`). `harvest` turns
 * them into a report's rows and starts them again at zero.
 */
import { COUNTED_REASONS, MAX_COUNT_ROWS } from '../core/usage-limits.js';
import type { FlagEntry } from './flag-entry.js';

/** Slots per variant: one per reason. */
export const R = COUNTED_REASONS.length;

/**
 * A reason's code, its index in `COUNTED_REASONS`: a `switch` on the evaluator's constant strings, the
 * likely ones first (a few ns less per evaluation than a keyed lookup).
 */
function reasonCode(reason: string): number {
  switch (reason) {
    case 'FALLTHROUGH':
      return 8;
    case 'RULE_MATCH':
      return 7;
    case 'TARGET_MATCH':
      return 6;
    case 'OFF':
      return 1;
    case 'ON':
      return 0;
    case 'ROLLOUT_IN':
      return 2;
    case 'ROLLOUT_OUT':
      return 3;
    case 'MISSING_USER_KEY':
      return 4;
    case 'PREREQUISITE_FAILED':
      return 5;
    default:
      return 9;
  }
}

/**
 * The slot of variant `index` (`-1`: the caller's default) served for `reason`. Variants of
 * `boolean` and `rollout` flags are `on` (0) and `off` (1).
 */
export const slot = (index: number, reason: string): number => (index + 1) * R + reasonCode(reason);

/** Counters of a flag entry with `variants` variants, all zero. */
export const counters = (variants: number): number[] => new Array<number>((variants + 1) * R).fill(0);

export interface CountRow {
  key: string;
  version: number;
  variant: string | null;
  reason: string;
  count: number;
}

/**
 * The counts of `entries` (the flags held, and those replaced or dropped since the last report)
 * as rows, each counter set back to zero; at most `MAX_COUNT_ROWS`, the rest left for the next report.
 * Answers whether every counter was taken.
 */
export function harvest(entries: Iterable<FlagEntry>, rows: CountRow[]): boolean {
  for (const entry of entries) {
    const n = entry.n;
    if (!n) continue;
    const { key, version } = entry.flag;
    for (let i = 0; i < n.length; i++) {
      const count = n[i]!;
      if (count === 0) continue;
      if (rows.length >= MAX_COUNT_ROWS) return false;
      const variant = i < R ? null : (entry.compiled.names[Math.floor(i / R) - 1] ?? null);
      rows.push({ key, version, variant, reason: COUNTED_REASONS[i % R]!, count });
      n[i] = 0;
    }
  }
  return true;
}
