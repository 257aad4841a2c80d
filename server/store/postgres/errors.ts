/**
 * Which database errors mean "the database is unavailable" (a `StorageUnavailableError`, which
 * the HTTP front answers 503 `UNAVAILABLE`: the request may be retried) rather than a bug
 * (answered 500): lost or refused connections, a server shutting down or out of resources,
 * timeouts, serialization failures.
 */
import { StorageUnavailableError } from '../errors.js';

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
]);

export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code)) return true;
    // SQLSTATE classes: 08 connection, 53 resources, 57 operator intervention; 40 rollback.
    if (/^(08|53|57|40)/.test(code)) return true;
  }
  return /Connection terminated|connection timeout|timeout exceeded|Query read timeout|Client was closed|not queryable|Cannot use a pool after calling end/i.test(
    error.message,
  );
}

/** `error` as the storage raises it: a `StorageUnavailableError` when the database is unavailable. */
export function asStorageError(error: unknown): unknown {
  return isUnavailable(error) ? new StorageUnavailableError(undefined, { cause: error }) : error;
}

/** The answer to a read or write of a scope this instance can no longer follow (`follower.ts`). */
export function lostError(scope: string): StorageUnavailableError {
  return new StorageUnavailableError(
    `entries of ${scope || 'the shared scope'} were deleted before this instance read them; it serves that scope again once restarted`,
  );
}
