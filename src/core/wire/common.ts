/**
 * The types of `../schemas/common.ts`, written by `npm run wire-types`: do not edit; change
 * the schema and run it again.
 */

import type { JsonValue } from '../json-value.js';

/** The body of every answer that is not 2xx. */
export interface ErrorBody {
  /** a stable code: VALIDATION_ERROR, NOT_FOUND, ... */
  error: string;
  /** what went wrong, in words */
  message: string;
}

export type Json = JsonValue;

/** ISO 8601 date and time, UTC */
export type Timestamp = string;
