/** Stored flags to their wire representations (`docs/protocol.md` §3, §12.6). */

import { sdkFlag } from '../../../src/core/sdk-flag.js';
import type { Flag, SdkFlag, SdkFlagUpdate } from '../../../src/core/types.js';
import type { StoredFlag } from '../kernel/model.js';

/**
 * Management representation (`docs/protocol.md` §3.1, §12.1): key, type, enabled, (percentage),
 * description, then each targeting field that is set: `variants`, `offVariant` and
 * `fallthrough` always on `string`/`number`/`json` flags; on `boolean`, `fallthrough` only when
 * it is not `{"variant":"on"}`; `targets`, `rules`, `prerequisites`, `salt` only when non-empty.
 */
export function toFlag(flag: StoredFlag): Flag {
  const out: Record<string, unknown> = { key: flag.key, type: flag.type, enabled: flag.enabled };
  if (flag.type === 'rollout') out.percentage = flag.percentage ?? 0;
  out.description = flag.description;
  if (flag.variants) {
    const first = Object.keys(flag.variants)[0]!;
    out.variants = flag.variants;
    out.offVariant = flag.offVariant ?? first;
    out.fallthrough = flag.fallthrough ?? { variant: first };
  } else if (flag.fallthrough) out.fallthrough = flag.fallthrough;
  if (flag.targets?.length) out.targets = flag.targets;
  if (flag.rules?.length) out.rules = flag.rules;
  if (flag.prerequisites?.length) out.prerequisites = flag.prerequisites;
  if (flag.salt !== undefined) out.salt = flag.salt;
  return out as unknown as Flag;
}

/**
 * Whether an SDK that does not evaluate targeting can hold the flag (`docs/protocol.md` §12.6):
 * a `boolean` or `rollout` flag with none of it (a `salt` included: it moves the buckets).
 */
export function isPlainFlag(flag: StoredFlag): boolean {
  return (
    (flag.type === 'boolean' || flag.type === 'rollout') &&
    !flag.fallthrough &&
    !flag.targets?.length &&
    !flag.rules?.length &&
    !flag.prerequisites?.length &&
    flag.salt === undefined
  );
}

/** The SDK representation of a plain flag (`isPlainFlag`): today's fields exactly. */
export function toSdkFlag(flag: StoredFlag): SdkFlag {
  return sdkFlag(flag as StoredFlag & { type: 'boolean' | 'rollout' }, flag.version);
}

/**
 * Data of a `flags:updated` event for a deleted flag (or one an SDK without targeting cannot
 * hold: then a `boolean` or `rollout` deletion, the only types it knows; `ownType` keeps the
 * flag's own type, for SDKs with the targeting capability).
 */
export function toDeletedSdkFlag(flag: StoredFlag, version: number, ownType = false): SdkFlagUpdate {
  const { key } = flag;
  return flag.type === 'rollout'
    ? { key, type: 'rollout', enabled: false, percentage: flag.percentage ?? 0, version, deleted: true }
    : { key, type: ownType ? flag.type : 'boolean', enabled: false, version, deleted: true };
}
