/**
 * Which database errors mean "the database is unavailable" (answered 503 `UNAVAILABLE`, the
 * request may be retried) rather than a bug (answered 500): lost or refused connections, a
 * server shutting down or out of resources, timeouts, serialization failures.
 */
import { ApiError } from '../../errors.js';

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

export const unavailable = (): ApiError =>
  new ApiError(503, 'UNAVAILABLE', 'the database is unavailable; retry shortly', { 'retry-after': '1' });

/** `error` as a request should see it: 503 `UNAVAILABLE` when the database is unavailable. */
export function asRequestError(error: unknown): unknown {
  return isUnavailable(error) ? unavailable() : error;
}
