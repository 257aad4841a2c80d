/**
 * Checks of what the server sends (`docs/protocol.md` §5.2, §5.3, §12.6) before the client
 * trusts it: a snapshot (a `GET /sdk/flags` body or a `flags:sync` event's data), a
 * `flags:updated` event's data and a `segments:updated` event's data. Anything of another shape
 * is refused, never half-applied. A flag whose targeting this SDK cannot read (an operator of a
 * newer server, a shape it does not know) is accepted: it evaluates to the caller's default with
 * reason `ERROR` (CONTRACT "Capabilities"); a flag type outside the five is not a flag.
 */

import { isObject } from '../core/is-object.js';
import type { SdkFlag, SdkFlagUpdate, SdkSegment, SdkSegmentUpdate, SdkSnapshot } from '../core/types.js';

const isVersion = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

const isKeyed = (v: unknown): v is { key: string; version: number } & Record<string, unknown> =>
  isObject(v) && typeof v.key === 'string' && v.key !== '' && isVersion(v.version);

const isStrings = (v: unknown): boolean => Array.isArray(v) && v.every((s) => typeof s === 'string');

/** The flag types of `docs/protocol.md` §12.1; a new type would come with a new capability. */
const TYPES = ['boolean', 'rollout', 'string', 'number', 'json'];

const isSdkFlag = (v: unknown): v is SdkFlag =>
  isKeyed(v) &&
  TYPES.includes(v.type as string) &&
  (v.type !== 'rollout' || typeof v.percentage === 'number') &&
  typeof v.enabled === 'boolean';

const isSdkSegment = (v: unknown): v is SdkSegment =>
  isKeyed(v) && isStrings(v.included) && isStrings(v.excluded) && Array.isArray(v.rules);

/** Whether every value of `record` passes `check` and is filed under its own key. */
const keyed = (record: unknown, check: (v: unknown) => boolean): boolean =>
  isObject(record) &&
  Object.entries(record).every(([key, value]) => check(value) && (value as { key: string }).key === key);

/** The snapshot, or `undefined` when `value` is not one. */
export const parseSnapshot = (value: unknown): SdkSnapshot | undefined =>
  isObject(value) &&
  typeof value.epoch === 'string' &&
  typeof value.eventId === 'string' &&
  Number.isSafeInteger(value.revision) &&
  keyed(value.flags, isSdkFlag) &&
  (value.segments === undefined || keyed(value.segments, isSdkSegment))
    ? (value as unknown as SdkSnapshot)
    : undefined;

/** The flag of a `flags:updated` event, or `undefined` when `value` is not one. */
export const parseFlagUpdate = (value: unknown): SdkFlagUpdate | undefined =>
  isSdkFlag(value) && [undefined, true].includes((value as SdkFlagUpdate).deleted)
    ? (value as SdkFlagUpdate)
    : undefined;

/** The segment of a `segments:updated` event (or its deletion), or `undefined` when `value` is not one. */
export const parseSegmentUpdate = (value: unknown): SdkSegmentUpdate | undefined =>
  isSdkSegment(value) || (isKeyed(value) && value.deleted === true) ? (value as SdkSegmentUpdate) : undefined;
