/**
 * One HTTP exchange under a deadline that covers all of it (the response headers and the
 * body, without relying on the fetch implementation to fail a body it is reading when the
 * request is aborted) and under the caller's signal; failures become a `FlagwireError`
 * with a stable code. The SDK client's snapshot load and the management client share it.
 */
import { FlagwireError } from '../errors.js';
import { cancel, later } from './timers.js';

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

export function startExchange(timeoutMs: number, outer: AbortSignal | undefined): Exchange {
  const controller = new AbortController();
  let timedOut = false;
  let expire!: (error: Error) => void;
  const deadline = new Promise<never>((_, reject) => {
    expire = reject;
  });
  deadline.catch(() => {});
  const onAbort = () => {
    controller.abort();
    expire(new Error('aborted'));
  };
  outer?.addEventListener('abort', onAbort, { once: true });
  const timer = later(timeoutMs, () => {
    timedOut = true;
    controller.abort();
    expire(new Error('timeout'));
  });
  return {
    signal: controller.signal,
    race: (promise) => Promise.race([promise, deadline]),
    failure(error, method, url) {
      if (error instanceof FlagwireError) return error;
      if (outer?.aborted)
        return new FlagwireError('ABORTED', `${method} ${url} was aborted`, { method, url });
      if (timedOut) {
        return new FlagwireError('TIMEOUT', `${method} ${url} took longer than ${timeoutMs} ms`, {
          method,
          url,
        });
      }
      return new FlagwireError(
        'NETWORK_ERROR',
        `${method} ${url} failed: ${(error as Error)?.message ?? String(error)}`,
        { method, url, cause: error },
      );
    },
    end() {
      cancel(timer);
      outer?.removeEventListener('abort', onAbort);
    },
  };
}
