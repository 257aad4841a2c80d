/**
 * What a route's method says of itself for the OpenAPI documents (`./openapi.ts`): written beside
 * its handler (`MethodSpec.doc`), from the schemas of `src/core/schemas`.
 */
import type { TSchema } from '@sinclair/typebox';

/** One answer of an operation: its words and, when it has a body, that body's schema. */
export interface AnswerDoc {
  description: string;
  schema?: TSchema;
  /** Its media type, when not `application/json` (`text/event-stream`). */
  mediaType?: string;
}

/** A query parameter. */
export interface QueryDoc {
  schema: TSchema;
  description: string;
  required?: boolean;
}

/** What a route's method says of itself for the documents. */
export interface OperationDoc {
  summary: string;
  description?: string;
  /** Body of the request (the method takes `body: true`). */
  body?: TSchema;
  query?: Record<string, QueryDoc>;
  /** Request headers it reads (`If-Match`, `If-None-Match`, `Last-Event-ID`...), with their words. */
  headers?: Record<string, string>;
  /** Its own answers by status: successes and the errors only it gives (`404`, `409`, `412`...). */
  answers: Record<number, AnswerDoc>;
}
