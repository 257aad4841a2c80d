/**
 * The types of `../schemas/ofrep.ts`, written by `npm run wire-types`: do not edit; change
 * the schema and run it again.
 */

import type { JsonValue } from '../json-value.js';

/** Why no flag was evaluated. */
export interface OfrepBulkEvaluationFailure {
  errorCode: string;
  errorDetails?: string;
}

/** Every flag of the environment for the context. */
export interface OfrepBulkEvaluationSuccess {
  flags: (OfrepEvaluationSuccess | OfrepEvaluationFailure)[];
  metadata?: Record<string, number | string>;
  eventStreams?: OfrepEventStream[];
}

/** The evaluation context: its attributes, read as targeting reads a user (§12.2). */
export interface OfrepContext {
  /** Who is evaluated: rollouts and splits bucket by it. */
  targetingKey?: string | null;
  [key: string]: JsonValue;
}

/** Why one flag has no value for the context. */
export interface OfrepEvaluationFailure {
  key: string;
  errorCode: 'PARSE_ERROR' | 'TARGETING_KEY_MISSING' | 'INVALID_CONTEXT' | 'GENERAL' | 'FLAG_NOT_FOUND';
  errorDetails?: string;
  /** The flag's metadata: `version`, `ruleId`, `fallthrough`... (§11.2). */
  metadata?: Record<string, boolean | number | string>;
}

/** Body of an evaluation, single or bulk; no body, or no (or a `null`) context, is an empty context. */
export interface OfrepEvaluationRequest {
  context?: OfrepContext | null;
}

/** One flag's value for the context. */
export interface OfrepEvaluationSuccess {
  key: string;
  value: JsonValue;
  /** OFREP's reasons (§11.2 maps Flagwire's to them). */
  reason: OfrepReason;
  variant?: string;
  /** The flag's metadata: `version`, `ruleId`, `fallthrough`... (§11.2). */
  metadata?: Record<string, boolean | number | string>;
}

/** Where the bulk answer's changes are announced (§11.4). */
export interface OfrepEventStream {
  type: 'sse';
  endpoint: {
    /** Relative to the OFREP base URL. */
    requestUri: string;
  };
  inactivityDelaySec: number;
}

/** OFREP's reasons (§11.2 maps Flagwire's to them). */
export type OfrepReason = 'STATIC' | 'TARGETING_MATCH' | 'SPLIT' | 'DISABLED' | 'UNKNOWN';
