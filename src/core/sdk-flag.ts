/** Building the SDK representation of a flag (`docs/protocol.md` §5.2, §12.6), shared by server and SDK. */
import { TARGETING_FIELDS, type TargetingFields } from './targeting/types.js';
import type { AnyFlagType, SdkFlag } from './types.js';

/** The fields a flag in the SDK form is made of; `percentage` is kept on rollout flags only. */
export interface SdkFlagSource extends TargetingFields {
  key: string;
  type: AnyFlagType;
  enabled: boolean;
  percentage?: number | undefined;
}

/**
 * `{key, type, enabled, percentage (rollout only), version}`, then each targeting field that is
 * set (a plain flag has none, so its form is today's exactly), with nothing else carried over.
 */
export function sdkFlag(source: SdkFlagSource, version: number): SdkFlag {
  const { key, type, enabled } = source;
  const flag: SdkFlag =
    type === 'rollout'
      ? { key, type, enabled, percentage: source.percentage ?? 0, version }
      : { key, type, enabled, version };
  for (const field of TARGETING_FIELDS) {
    const value = source[field];
    if (value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0))
      (flag as unknown as Record<string, unknown>)[field] = value;
  }
  return flag;
}
