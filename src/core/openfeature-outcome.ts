/**
 * Flagwire's evaluation outcome in OpenFeature's vocabulary, as plain strings (no OpenFeature
 * package imported): one mapping for the server provider, the web provider and the reference
 * server's OFREP endpoints (`docs/protocol.md` §11), so all three answer alike.
 * ON → STATIC, OFF → DISABLED, a rollout → SPLIT (variants `on` / `off`); a rollout that needs
 * a `targetingKey` without one → TARGETING_KEY_MISSING.
 */
import type { EvaluationDetail } from './types.js';

export type OpenFeatureReason = 'STATIC' | 'DISABLED' | 'SPLIT' | 'ERROR';
export type OpenFeatureErrorCode =
  | 'FLAG_NOT_FOUND'
  | 'TARGETING_KEY_MISSING'
  | 'PROVIDER_NOT_READY'
  | 'GENERAL';

export interface OpenFeatureOutcome {
  /** The value; absent on an error (the caller's default applies). */
  value?: boolean;
  reason: OpenFeatureReason;
  variant?: 'on' | 'off';
  errorCode?: OpenFeatureErrorCode;
  errorMessage?: string;
  /** The flag's version and, for a rollout decided by it, the user's bucket. */
  metadata: { version?: number; bucket?: number };
}

export function openFeatureOutcome(detail: EvaluationDetail): OpenFeatureOutcome {
  const metadata: OpenFeatureOutcome['metadata'] = {};
  if (detail.version !== undefined) metadata.version = detail.version;
  if (detail.bucket !== undefined) metadata.bucket = detail.bucket;
  switch (detail.reason) {
    case 'ON':
      return { value: true, reason: 'STATIC', variant: 'on', metadata };
    case 'OFF':
      return { value: false, reason: 'DISABLED', variant: 'off', metadata };
    case 'ROLLOUT_IN':
    case 'ROLLOUT_OUT':
      return { value: detail.value, reason: 'SPLIT', variant: detail.value ? 'on' : 'off', metadata };
    case 'MISSING_USER_KEY':
      return {
        reason: 'ERROR',
        errorCode: 'TARGETING_KEY_MISSING',
        errorMessage: 'this rollout needs a targetingKey in the evaluation context',
        metadata,
      };
    case 'FLAG_NOT_FOUND':
      return { reason: 'ERROR', errorCode: 'FLAG_NOT_FOUND', errorMessage: 'flag not found', metadata };
    case 'NOT_READY':
      return {
        reason: 'ERROR',
        errorCode: 'PROVIDER_NOT_READY',
        errorMessage: 'flags not loaded yet',
        metadata,
      };
    default:
      return { reason: 'ERROR', errorCode: 'GENERAL', errorMessage: 'evaluation failed', metadata };
  }
}
