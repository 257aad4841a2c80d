/**
 * Checks of what the server sends (`docs/protocol.md` §5.2, §5.3) before the client trusts
 * it: a snapshot (a `GET /sdk/flags` body or a `flags:sync` event's data) and a
 * `flags:updated` event's data. Anything of another shape is refused, never half-applied.
 */
import type { SdkFlag, SdkFlagUpdate, SdkSnapshot } from '../core/types.js';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const isSdkFlag = (v: unknown): v is SdkFlag =>
  isObject(v) &&
  typeof v.key === 'string' &&
  v.key !== '' &&
  (v.type === 'boolean' || (v.type === 'rollout' && typeof v.percentage === 'number')) &&
  typeof v.enabled === 'boolean' &&
  Number.isSafeInteger(v.version) &&
  (v.version as number) >= 0;

/** The snapshot, or `undefined` when `value` is not one. */
export const parseSnapshot = (value: unknown): SdkSnapshot | undefined =>
  isObject(value) &&
  typeof value.epoch === 'string' &&
  typeof value.eventId === 'string' &&
  Number.isSafeInteger(value.revision) &&
  isObject(value.flags) &&
  Object.entries(value.flags).every(([key, flag]) => isSdkFlag(flag) && flag.key === key)
    ? (value as unknown as SdkSnapshot)
    : undefined;

/** The flag of a `flags:updated` event, or `undefined` when `value` is not one. */
export const parseFlagUpdate = (value: unknown): SdkFlagUpdate | undefined =>
  isSdkFlag(value) && [undefined, true].includes((value as SdkFlagUpdate).deleted)
    ? (value as SdkFlagUpdate)
    : undefined;
