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
  // `declare`: assigned in the constructor, so no field initializers are emitted for them.
  declare readonly code: FlagwireErrorCode;
  /** HTTP status of the answer, when there was one. */
  declare readonly status: number | undefined;
  declare readonly method: string | undefined;
  declare readonly url: string | undefined;
  /** How long the server asked to wait before retrying (`Retry-After`), in milliseconds. */
  declare readonly retryAfterMs: number | undefined;

  constructor(code: FlagwireErrorCode, message: string, options: FlagwireErrorOptions = {}) {
    // `Error` takes `cause` from the options (and nothing else), unless it is undefined.
    super(message, options.cause === undefined ? undefined : options);
    const { status, method, url, retryAfterMs } = options;
    Object.assign(this, { code, status, method, url, retryAfterMs });
    Object.defineProperty(this, BRAND, { value: true });
  }
}

/** A `FlagwireError` about one request: its message starts with the method and the URL. */
export const requestError = (
  code: FlagwireErrorCode,
  method: string,
  url: string,
  detail: string,
  options?: FlagwireErrorOptions,
): FlagwireError => new FlagwireError(code, `${method} ${url}${detail}`, { method, url, ...options });

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
