/**
 * The building blocks of the API's schemas (`docs/protocol.md` §3): written once with TypeBox,
 * they are JSON Schema (2020-12) as they stand, so the server validates requests through them,
 * the OpenAPI documents (`GET /api/v1/openapi.json`, `/admin/api/openapi.json`) print them, and
 * the SDK's and the dashboard's types are derived from them (`Static`). Only types reach the
 * SDK's bundles: no module of the SDK imports a schema as a value.
 *
 * Annotations the documents leave out: `errorMessage` (the ajv-errors keyword), the reason the
 * API gives instead of the generic one (`must name at least one event kind`: the field is named
 * before it), by keyword or for every keyword, `{value}` in it standing for the value at fault as
 * JSON and `{count}` for its length (`./check.ts`); `x-ts`, the TypeScript type a schema prints as
 * (`scripts/wire-types.mjs`); `x-fixed`, fields a `PATCH` refuses as "cannot be changed".
 */
import { type SchemaOptions, type TSchema, Type } from '@sinclair/typebox';

/** `T` or `null`. */
export const Nullable = <T extends TSchema>(schema: T, options: SchemaOptions = {}) =>
  Type.Union([schema, Type.Null()], options);

/** An instant, as ISO 8601 text (`2026-03-01T12:00:00.000Z`). */
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 date and time, UTC' });

/** Any JSON value. */
export const Json = Type.Unknown({ 'x-ts': 'JsonValue' });

/** The body of every answer that is not 2xx (`docs/protocol.md` §4). */
export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'a stable code: VALIDATION_ERROR, NOT_FOUND, ...' }),
    message: Type.String({ description: 'what went wrong, in words' }),
  },
  { $id: 'ErrorBody', description: 'The body of every answer that is not 2xx.' },
);
