/**
 * Checks of what the server sends (`docs/protocol.md` §5.2, §5.3) before the client trusts
 * it: a snapshot (a `GET /sdk/flags` body or a `flags:sync` event's data) and a
 * `flags:updated` event's data. Anything of another shape is refused, never half-applied.
 */
import type { SdkFlag, SdkFlagUpdate, SdkSnapshot } from '../core/types.js';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const isVersion = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

function isSdkFlag(v: unknown): v is SdkFlag {
  return (
    isObject(v) &&
    typeof v.key === 'string' &&
    v.key !== '' &&
    (v.type === 'boolean' || (v.type === 'rollout' && typeof v.percentage === 'number')) &&
    typeof v.enabled === 'boolean' &&
    isVersion(v.version)
  );
}

/** The snapshot, or `undefined` when `value` is not one. */
export function parseSnapshot(value: unknown): SdkSnapshot | undefined {
  if (!isObject(value) || typeof value.epoch !== 'string' || typeof value.eventId !== 'string')
    return undefined;
  if (typeof value.revision !== 'number' || !Number.isSafeInteger(value.revision) || !isObject(value.flags)) {
    return undefined;
  }
  for (const [key, flag] of Object.entries(value.flags))
    if (!isSdkFlag(flag) || flag.key !== key) return undefined;
  return value as unknown as SdkSnapshot;
}

/** The flag of a `flags:updated` event, or `undefined` when `value` is not one. */
export function parseFlagUpdate(value: unknown): SdkFlagUpdate | undefined {
  if (!isSdkFlag(value)) return undefined;
  const { deleted } = value as { deleted?: unknown };
  return deleted === undefined || deleted === true ? (value as SdkFlagUpdate) : undefined;
}
