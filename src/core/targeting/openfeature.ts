/**
 * A targeting evaluation in OpenFeature's vocabulary (CONTRACT "SDK and OpenFeature",
 * `docs/protocol.md` §11.2, §12.7), as `../openfeature-outcome.ts` maps the SDK's detail: a flag
 * every user gets the same answer from (`isStatic`) → `STATIC`; `TARGET_MATCH` and `RULE_MATCH` →
 * `TARGETING_MATCH`; `FALLTHROUGH` → `SPLIT` for a split, `DEFAULT` for one variant; `OFF` and
 * `PREREQUISITE_FAILED` → `DISABLED`; a rollout → `SPLIT`. A missing bucket value is
 * `TARGETING_KEY_MISSING`, anything malformed `GENERAL`.
 */
import { type CompiledFlag, isStatic } from './compile.js';
import type { Outcome } from './evaluate.js';
import type { JsonValue } from './types.js';

export interface TargetingResolution {
  value?: JsonValue;
  variant?: string;
  reason: 'STATIC' | 'DISABLED' | 'SPLIT' | 'TARGETING_MATCH' | 'DEFAULT' | 'ERROR';
  errorCode?: 'TARGETING_KEY_MISSING' | 'GENERAL';
  errorMessage?: string;
  metadata: {
    version?: number;
    ruleIndex?: number;
    ruleId?: string;
    prerequisiteKey?: string;
    bucket?: number;
  };
}

/** Maps the variant `index` that `flag` served, with why in `outcome`. */
export function resolution(flag: CompiledFlag, index: number, outcome: Outcome): TargetingResolution {
  const metadata: TargetingResolution['metadata'] = {};
  if (flag.version !== undefined) metadata.version = flag.version;
  const { reason } = outcome;
  if (reason === 'ERROR')
    return { reason: 'ERROR', errorCode: 'GENERAL', errorMessage: outcome.error, metadata };
  if (reason === 'MISSING_USER_KEY')
    return {
      reason: 'ERROR',
      errorCode: 'TARGETING_KEY_MISSING',
      errorMessage: 'this flag splits users by an attribute the context does not have (a targetingKey?)',
      metadata,
    };
  if (reason === 'RULE_MATCH')
    Object.assign(metadata, { ruleIndex: outcome.ruleIndex, ruleId: outcome.ruleId });
  if (reason === 'PREREQUISITE_FAILED') metadata.prerequisiteKey = outcome.prerequisiteKey;
  if (outcome.bucket) metadata.bucket = outcome.bucket;
  const mapped: TargetingResolution['reason'] = isStatic(flag)
    ? 'STATIC'
    : reason === 'TARGET_MATCH' || reason === 'RULE_MATCH'
      ? 'TARGETING_MATCH'
      : reason === 'FALLTHROUGH'
        ? flag.fallthrough.bounds.length > 0
          ? 'SPLIT'
          : 'DEFAULT'
        : reason === 'OFF' || reason === 'PREREQUISITE_FAILED'
          ? 'DISABLED'
          : reason === 'ON'
            ? 'STATIC'
            : 'SPLIT';
  return { value: flag.values[index]!, variant: flag.names[index]!, reason: mapped, metadata };
}
