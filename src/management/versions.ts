/**
 * Optimistic concurrency in the management client (`docs/protocol.md` §3.3): reads that answer
 * a resource's version (its `ETag`), writes that name the version they were made against
 * (`If-Match`), and the `PRECONDITION_FAILED` error that carries what the resource is now.
 */
import { answerError } from '../core/http.js';
import type { FlagwireError } from '../errors.js';
import type { CallOptions } from './request.js';

/** A resource with the version it was read at; pass `version` as `ifVersion` to a write. */
export interface Versioned<T> {
  value: T;
  version: number;
}

/** Options of a write to a flag or segment. */
export interface WriteOptions extends CallOptions {
  /**
   * Write only if the resource is still at this version (sent as `If-Match`); otherwise the
   * call rejects with a `FlagwireError` of code `PRECONDITION_FAILED` whose `current` is the
   * resource as it is now. Without it the write applies to whatever is current.
   */
  ifVersion?: number;
}

/** The error of a write whose `ifVersion` the resource had moved past. */
export interface PreconditionFailedError extends FlagwireError {
  readonly code: 'PRECONDITION_FAILED';
  /** The resource as the server holds it now. */
  readonly current: unknown;
}

/** The `If-Match` header of `options`, if any. */
export function ifMatchHeader(options: WriteOptions | undefined): Record<string, string> | undefined {
  return options?.ifVersion === undefined ? undefined : { 'if-match': `"${options.ifVersion}"` };
}

/** The version an `ETag` names (`"12"`), or `undefined`. */
export function versionOfEtag(etag: string | null): number | undefined {
  const match = etag === null ? null : /^"(\d{1,16})"$/.exec(etag);
  return match ? Number(match[1]) : undefined;
}

/** The error for a `412` answer, with the body's `current`. */
export function preconditionFailed(
  response: Response,
  method: string,
  url: string,
  body: unknown,
): PreconditionFailedError {
  const error = answerError(response, method, url, body);
  return Object.assign(error, {
    current: (Object(body) as { current?: unknown }).current,
  }) as PreconditionFailedError;
}

/** Whether `error` is a write refused because its resource moved past `ifVersion`. */
export function isPreconditionFailed(error: unknown): error is PreconditionFailedError {
  return (error as { code?: unknown } | null)?.code === 'PRECONDITION_FAILED';
}
