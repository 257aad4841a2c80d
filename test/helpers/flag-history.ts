/**
 * The server side of the SDK property tests (`property-client`, `property-sse`): random flag
 * operations and the one step that turns an operation into the next change of a history.
 */
import fc from 'fast-check';
import { sdkFlag } from '../../src/core/sdk-flag.js';
import type { FlagType, SdkFlag, SdkFlagUpdate } from '../../src/core/types.js';

export interface Op {
  /** Index into the test's keys. */
  key: number;
  kind: 'upsert' | 'delete';
  type: FlagType;
  enabled: boolean;
  percentage: number;
}

/** Ops on `keyCount` keys, their kind drawn from `kinds` (repeat a kind to weigh it). */
export function opArb(keyCount: number, kinds: ReadonlyArray<Op['kind']>): fc.Arbitrary<Op> {
  return fc.record({
    key: fc.integer({ min: 0, max: keyCount - 1 }),
    kind: fc.constantFrom(...kinds),
    type: fc.constantFrom<FlagType>('boolean', 'rollout'),
    enabled: fc.boolean(),
    percentage: fc.integer({ min: 0, max: 100 }),
  });
}

/**
 * Applies `op` on `key` to `current` as the change at `version`, and returns its
 * `flags:updated` data: a delete of a held flag, else a create (a delete of a missing key
 * becomes one) or an update (the type is kept).
 */
export function applyOp(current: Map<string, SdkFlag>, key: string, op: Op, version: number): SdkFlagUpdate {
  const before = current.get(key);
  if (before && op.kind === 'delete') {
    current.delete(key);
    return { ...sdkFlag(before, version), enabled: false, deleted: true };
  }
  const after = sdkFlag(
    { key, type: before ? before.type : op.type, enabled: op.enabled, percentage: op.percentage },
    version,
  );
  current.set(key, after);
  return after;
}
