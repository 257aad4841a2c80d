/**
 * One HTTP exchange under a deadline that covers all of it (the response headers and the
 * body, without relying on the fetch implementation to fail a body it is reading when the
 * request is aborted) and under the caller's signal; failures become a `FlagwireError`
 * with a stable code. The SDK client's snapshot load and the management client share it.
 */
import { FlagwireError, requestError } from '../errors.js';
import { later } from './timers.js';

export interface Exchange {
  /** The signal to hand to `fetch`. */
  readonly signal: AbortSignal;
  /** `promise`, unless the deadline passes or the caller aborts first. */
  race<T>(promise: Promise<T>): Promise<T>;
  /** A `FlagwireError` for what went wrong: `TIMEOUT`, `ABORTED` or `NETWORK_ERROR` (or `error` itself). */
  failure(error: unknown, method: string, url: string): FlagwireError;
  /** Clears the timer and the listener on the caller's signal. */
  end(): void;
}

/** `hold`: the deadline's timer keeps the process alive (`later`). */
export function startExchange(timeoutMs: number, outer?: AbortSignal, hold?: boolean): Exchange {
  const controller = new AbortController();
  let timedOut = false;
  let onAbort!: () => void;
  // Rejects (with nothing: `failure` tells what happened) on the deadline or the caller's abort.
  const deadline = new Promise<never>((_, reject) => {
    onAbort = () => {
      controller.abort();
      reject();
    };
  });
  deadline.catch(() => {});
  outer?.addEventListener('abort', onAbort, { once: true });
  const timer = later(
    timeoutMs,
    () => {
      timedOut = true;
      onAbort();
    },
    hold,
  );
  return {
    signal: controller.signal,
    race: (promise) => Promise.race([promise, deadline]),
    // The caller's abort or the deadline first: whatever failed after them failed because of them.
    failure: (error, method, url) =>
      outer?.aborted
        ? requestError('ABORTED', method, url, ' was aborted')
        : timedOut
          ? requestError('TIMEOUT', method, url, ` took longer than ${timeoutMs} ms`)
          : error instanceof FlagwireError
            ? error
            : requestError(
                'NETWORK_ERROR',
                method,
                url,
                ` failed: ${(error as Error)?.message ?? String(error)}`,
                {
                  cause: error,
                },
              ),
    end() {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    },
  };
}
