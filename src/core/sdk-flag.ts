/** Building the SDK representation of a flag (`docs/protocol.md` §5.2), shared by server and SDK. */
import type { FlagType, SdkFlag } from './types.js';

/** The fields a flag in the SDK form is made of; `percentage` is kept on rollout flags only. */
export interface SdkFlagSource {
  key: string;
  type: FlagType;
  enabled: boolean;
  percentage?: number | undefined;
}

/** `{key, type, enabled, percentage (rollout only), version}`, with nothing else carried over. */
export function sdkFlag(source: SdkFlagSource, version: number): SdkFlag {
  const { key, type, enabled } = source;
  return type === 'rollout'
    ? { key, type, enabled, percentage: source.percentage ?? 0, version }
    : { key, type: 'boolean', enabled, version };
}
