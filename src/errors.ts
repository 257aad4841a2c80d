/**
 * The SDK's one error type. `code` is stable and machine-readable; `status` is the HTTP
 * status when there was an answer. Messages say what failed, the method and the URL, and
 * never contain an API key or a secret.
 */

/** Codes of errors the SDK raises itself; service error codes (`NOT_FOUND`, ...) pass through. */
export type FlagwireErrorCode =
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'TIMEOUT'
  | 'ABORTED'
  | 'NETWORK_ERROR'
  | 'HTTP_ERROR'
  | 'INVALID_RESPONSE'
  | 'CLIENT_CLOSED'
  | (string & {});

const BRAND = Symbol.for('flagwire.error');

export interface FlagwireErrorOptions {
  status?: number | undefined;
  method?: string | undefined;
  url?: string | undefined;
  /** The server's `Retry-After`, in milliseconds, when it sent one. */
  retryAfterMs?: number | undefined;
  cause?: unknown;
}

export class FlagwireError extends Error {
  override readonly name: string = 'FlagwireError';
  readonly code: FlagwireErrorCode;
  /** HTTP status of the answer, when there was one. */
  readonly status: number | undefined;
  readonly method: string | undefined;
  readonly url: string | undefined;
  /** How long the server asked to wait before retrying (`Retry-After`), in milliseconds. */
  readonly retryAfterMs: number | undefined;

  constructor(code: FlagwireErrorCode, message: string, options: FlagwireErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status;
    this.method = options.method;
    this.url = options.url;
    this.retryAfterMs = options.retryAfterMs;
    Object.defineProperty(this, BRAND, { value: true });
  }
}

/** True for any `FlagwireError`, also one from another copy of this package (ESM and CJS side by side). */
export function isFlagwireError(value: unknown): value is FlagwireError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

/** `Retry-After` (seconds or an HTTP date) in milliseconds, capped at 5 minutes; `undefined` when absent or unreadable. */
export function parseRetryAfter(header: string | null | undefined): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - Date.now();
  return Number.isFinite(ms) ? Math.min(Math.max(0, ms), 300_000) : undefined;
}
