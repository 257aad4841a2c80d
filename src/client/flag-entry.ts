/**
 * A flag as the client holds it for evaluation (`flag-store.ts` keeps them, `evaluation.ts` reads
 * them, `usage-counts.ts` counts beside them).
 */
import type { CompiledFlag } from '../core/targeting/compile.js';
import type { SdkFlag } from '../core/types.js';

/** A flag as evaluation reads it: one map lookup gives everything. */
export interface FlagEntry {
  flag: SdkFlag;
  compiled: CompiledFlag;
  /**
   * Evaluations of this version since the last usage report, a slot per variant and reason
   * (`usage-counts.ts`); `undefined` when the client does not count (`usage: false`).
   */
  n: number[] | undefined;
}
