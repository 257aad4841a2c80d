/**
 * The one error type handlers throw: it becomes the JSON body `{error, message}` with
 * its HTTP status (`docs/protocol.md` §4). Anything else thrown is a bug and is
 * answered 500 `INTERNAL_ERROR` without internals.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import { checkSchema, type MessageStyle } from '../src/core/schemas/check.js';
export type ApiErrorCode =
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'APPROVAL_REQUIRED'
  | 'NOT_FOUND'
  | 'INVALID_JSON'
  | 'VALIDATION_ERROR'
  | 'METHOD_NOT_ALLOWED'
  | 'CONFLICT'
  | 'CONFIG_MANAGED'
  | 'REVISION_CHANGED'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'BAD_REQUEST'
  | 'REQUEST_TIMEOUT'
  | 'PRECONDITION_FAILED'
  | 'GONE'
  | 'HEADERS_TOO_LARGE'
  | 'EXPECTATION_FAILED'
  | 'SERVICE_UNAVAILABLE'
  | 'RATE_LIMITED'
  | 'UNAVAILABLE'
  | 'INTERNAL_ERROR';

export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly code: ApiErrorCode;
  /** Extra response headers, e.g. `Allow` on 405. */
  readonly headers: Record<string, string> | undefined;
  /** Fields the body carries after `error` and `message` (412's `current`, say). */
  readonly details: Record<string, unknown> | undefined;

  constructor(
    status: number,
    code: ApiErrorCode,
    message: string,
    headers?: Record<string, string>,
    details?: Record<string, unknown>,
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.headers = headers;
    this.details = details;
  }
}

/** The generic 401 message: it never says whether a key exists. */
export const UNAUTHORIZED_MESSAGE = 'missing or invalid API key: send "Authorization: Bearer <API_KEY>"';

export const unauthorized = () => new ApiError(401, 'UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
export const forbidden = (what: string) =>
  new ApiError(403, 'FORBIDDEN', `this API key is read-only and cannot ${what}; use a key with full access`);
export const clientKeyRefused = (what: string) =>
  new ApiError(
    403,
    'FORBIDDEN',
    `this API key is a client key: it can only evaluate flags through OFREP (/ofrep/v1), not ${what}; use a read-only key for an SDK that evaluates locally`,
  );
/**
 * 403 `APPROVAL_REQUIRED` (`docs/protocol.md` §2): a direct write of a flag or segment in
 * environment `project/environment`, whose changes need `approvals` approvals.
 */
export function approvalRequired(project: string, environment: string, approvals: number): ApiError {
  const name = `${project}/${environment}`;
  const path = `/admin/api/environments/${encodeURIComponent(project)}/${encodeURIComponent(environment)}/change-requests`;
  return new ApiError(
    403,
    'APPROVAL_REQUIRED',
    `environment ${JSON.stringify(name)} requires ${approvals} approval${approvals === 1 ? '' : 's'} for changes to its flags and segments: propose the change as a change request (POST ${path}), or use an API key that bypasses approvals`,
  );
}
export const flagNotFound = (key: string) =>
  new ApiError(404, 'NOT_FOUND', `flag ${JSON.stringify(key)} not found`);
export const webhookNotFound = (id: string) =>
  new ApiError(404, 'NOT_FOUND', `webhook ${JSON.stringify(id)} not found`);
export const validationError = (message: string) => new ApiError(400, 'VALIDATION_ERROR', message);

/**
 * `value` as `schema` has it (`src/core/schemas`), or a `400 VALIDATION_ERROR` naming the field at
 * fault (§4); `style` and `root` as `checkSchema` takes them.
 */
export function checked<T extends TSchema>(
  schema: T,
  value: unknown,
  style?: MessageStyle,
  root?: string,
): Static<T> {
  const result = checkSchema(schema, value, style, root);
  if (!result.ok) throw validationError(result.message);
  return result.value;
}
