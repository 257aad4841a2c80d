/**
 * `flagwire/otel`: an evaluation (`client.on('evaluation')`) as OpenTelemetry's semantic
 * conventions for feature flags name it: the event `feature_flag.evaluation` with attributes
 * `feature_flag.key`, `feature_flag.provider.name`, `feature_flag.result.variant`,
 * `feature_flag.result.value`, `feature_flag.result.reason`, `feature_flag.version`,
 * `feature_flag.set.id`, `feature_flag.context.id` and, on errors, `error.type` (semantic
 * conventions' feature-flag registry, as OpenFeature's `createEvaluationEvent` writes them). No
 * dependency: hand the attributes to your tracer or logger.
 *
 * ```ts
 * client.on('evaluation', (e) => {
 *   const { name, attributes } = evaluationEvent(e, { setId: 'acme/production' });
 *   trace.getActiveSpan()?.addEvent(name, attributes);
 * });
 * ```
 */
import { openFeatureOutcome } from '../core/openfeature-outcome.js';
import type { FlagDetail, User } from '../core/types.js';

/** What `flagwire/otel` reads of an evaluation: `client.on('evaluation')`'s event fits. */
export interface EvaluationLike extends FlagDetail<unknown> {
  key: string;
  user?: User | undefined;
}

export interface OtelOptions {
  /**
   * `feature_flag.provider.name`.
   * @default 'Flagwire'
   */
  providerName?: string;
  /** `feature_flag.set.id`: the flags' set, e.g. `PROJECT/ENVIRONMENT`; left out when not given. */
  setId?: string;
  /**
   * Add the user's key as `feature_flag.context.id`. Off by default: it identifies a person,
   * and your telemetry may not be the place for that.
   * @default false
   */
  contextId?: boolean;
}

/** The attribute names of the semantic conventions (feature-flag registry, release candidate). */
export const FEATURE_FLAG_ATTRIBUTES = {
  KEY: 'feature_flag.key',
  PROVIDER: 'feature_flag.provider.name',
  VARIANT: 'feature_flag.result.variant',
  VALUE: 'feature_flag.result.value',
  REASON: 'feature_flag.result.reason',
  VERSION: 'feature_flag.version',
  SET_ID: 'feature_flag.set.id',
  CONTEXT_ID: 'feature_flag.context.id',
  ERROR_TYPE: 'error.type',
} as const;

/** The event's name in the semantic conventions. */
export const FEATURE_FLAG_EVALUATION_EVENT = 'feature_flag.evaluation';

export type OtelAttributeValue = string | number | boolean;

/**
 * The attributes of one evaluation. The reason is OpenFeature's, lowercased (`static`,
 * `targeting_match`, `split`, `disabled`, `default`, `error`), as the conventions list them; an
 * object value is JSON; the version is the flag's version as text.
 */
export function evaluationAttributes(
  evaluation: EvaluationLike,
  options: OtelOptions = {},
): Record<string, OtelAttributeValue> {
  const A = FEATURE_FLAG_ATTRIBUTES;
  const outcome = openFeatureOutcome(evaluation);
  const attributes: Record<string, OtelAttributeValue> = {
    [A.KEY]: evaluation.key,
    [A.PROVIDER]: options.providerName ?? 'Flagwire',
    [A.REASON]: outcome.reason.toLowerCase(),
  };
  const variant = evaluation.variant ?? outcome.variant;
  if (variant !== undefined && outcome.reason !== 'ERROR') attributes[A.VARIANT] = variant;
  const { value } = evaluation;
  if (value !== null && value !== undefined)
    attributes[A.VALUE] = typeof value === 'object' ? JSON.stringify(value) : (value as OtelAttributeValue);
  if (evaluation.version !== undefined) attributes[A.VERSION] = String(evaluation.version);
  if (options.setId !== undefined) attributes[A.SET_ID] = options.setId;
  const user = evaluation.user;
  const key = typeof user === 'string' ? user : user?.key;
  if (options.contextId && typeof key === 'string' && key !== '') attributes[A.CONTEXT_ID] = key;
  if (outcome.errorCode) attributes[A.ERROR_TYPE] = outcome.errorCode.toLowerCase();
  return attributes;
}

/** `{name: 'feature_flag.evaluation', attributes}`: an event to emit or add to a span. */
export function evaluationEvent(
  evaluation: EvaluationLike,
  options?: OtelOptions,
): { name: string; attributes: Record<string, OtelAttributeValue> } {
  return { name: FEATURE_FLAG_EVALUATION_EVENT, attributes: evaluationAttributes(evaluation, options) };
}
