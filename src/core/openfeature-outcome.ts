/**
 * Flagwire's evaluation outcome in OpenFeature's vocabulary, as plain strings (no OpenFeature
 * package imported): the one mapping, for the server provider, the web provider and the reference
 * server's OFREP endpoints (`docs/protocol.md` §11, §12.7), so all answer alike.
 * An answer every user gets (`static`: nothing in the flag varies by user) → STATIC; OFF and
 * PREREQUISITE_FAILED → DISABLED; TARGET_MATCH and RULE_MATCH → TARGETING_MATCH; otherwise a rollout
 * → SPLIT (variants `on` / `off`), and FALLTHROUGH → SPLIT when a split chose, DEFAULT when the
 * flag has targeting and its fixed fallthrough served; a split that needs a `targetingKey`
 * without one → TARGETING_KEY_MISSING; a flag of another type → TYPE_MISMATCH (the table:
 * `docs/protocol.md` §11.2).
 */
import type { EvaluationReason, FlagDetail } from './types.js';

export type OpenFeatureReason = 'STATIC' | 'DISABLED' | 'SPLIT' | 'TARGETING_MATCH' | 'DEFAULT' | 'ERROR';
export type OpenFeatureErrorCode =
  | 'FLAG_NOT_FOUND'
  | 'TARGETING_KEY_MISSING'
  | 'PROVIDER_NOT_READY'
  | 'TYPE_MISMATCH'
  | 'GENERAL';

export interface OpenFeatureOutcome<T = boolean> {
  /** The value; absent on an error (the caller's default applies). */
  value?: T;
  reason: OpenFeatureReason;
  variant?: string;
  errorCode?: OpenFeatureErrorCode;
  errorMessage?: string;
  /** The flag's version; the rule or prerequisite that decided; a rollout's bucket. */
  metadata: {
    version?: number;
    bucket?: number;
    ruleIndex?: number;
    ruleId?: string;
    prerequisiteKey?: string;
  };
}

const REASONS: Partial<Record<EvaluationReason, OpenFeatureReason>> = {
  ON: 'STATIC',
  OFF: 'DISABLED',
  PREREQUISITE_FAILED: 'DISABLED',
  ROLLOUT_IN: 'SPLIT',
  ROLLOUT_OUT: 'SPLIT',
  TARGET_MATCH: 'TARGETING_MATCH',
  RULE_MATCH: 'TARGETING_MATCH',
};

const ERRORS: Partial<Record<EvaluationReason, [OpenFeatureErrorCode, string]>> = {
  MISSING_USER_KEY: [
    'TARGETING_KEY_MISSING',
    'this flag splits users by an attribute the context does not have (a targetingKey?)',
  ],
  FLAG_NOT_FOUND: ['FLAG_NOT_FOUND', 'flag not found'],
  NOT_READY: ['PROVIDER_NOT_READY', 'flags not loaded yet'],
};

/** `detail` in OpenFeature's words; `key`, when given, is named in the message of a flag not found. */
export function openFeatureOutcome<T>(detail: FlagDetail<T>, key?: string): OpenFeatureOutcome<T> {
  const metadata: OpenFeatureOutcome['metadata'] = {};
  for (const field of ['version', 'bucket', 'ruleIndex', 'ruleId', 'prerequisiteKey'] as const)
    if (detail[field] !== undefined) (metadata as Record<string, unknown>)[field] = detail[field];
  const { reason } = detail;
  const mapped = detail.static
    ? 'STATIC'
    : reason === 'FALLTHROUGH'
      ? detail.split
        ? 'SPLIT'
        : 'DEFAULT'
      : REASONS[reason];
  if (mapped) {
    const variant = detail.variant ?? (detail.value ? 'on' : 'off');
    return { value: detail.value, reason: mapped, variant, metadata };
  }
  if (reason === 'FLAG_NOT_FOUND' && key !== undefined)
    return { reason: 'ERROR', errorCode: reason, errorMessage: `flag ${key} not found`, metadata };
  const [errorCode, errorMessage] =
    ERRORS[reason] ??
    (detail.errorCode === 'TYPE_MISMATCH'
      ? ['TYPE_MISMATCH', 'the flag is of another type']
      : ['GENERAL', detail.errorMessage ?? 'evaluation failed']);
  return { reason: 'ERROR', errorCode, errorMessage, metadata };
}
