/**
 * Optimistic concurrency in the management client (`docs/protocol.md` §3.3): reads that answer
 * a resource's version (its `ETag`), writes that name the version they were made against
 * (`If-Match`), and the `PRECONDITION_FAILED` error that carries what the resource is now.
 */
import type { CallOptions, PreconditionFailedError } from './request.js';

export type { PreconditionFailedError } from './request.js';

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

/** The `If-Match` header of `options`, if any. */
export function ifMatchHeader(options: WriteOptions | undefined): Record<string, string> | undefined {
  return options?.ifVersion === undefined ? undefined : { 'if-match': `"${options.ifVersion}"` };
}

/** The version an `ETag` names (`"12"`), or `undefined`. */
export function versionOfEtag(etag: string | null): number | undefined {
  const match = etag === null ? null : /^"(\d{1,16})"$/.exec(etag);
  return match ? Number(match[1]) : undefined;
}

/** Whether `error` is a write refused because its resource moved past `ifVersion`. */
export function isPreconditionFailed(error: unknown): error is PreconditionFailedError {
  return (error as { code?: unknown } | null)?.code === 'PRECONDITION_FAILED';
}
