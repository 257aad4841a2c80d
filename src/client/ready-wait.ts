/**
 * What `ready()` does while the flags are not loaded yet: waits for the client's `loading`
 * (which settles once: loaded, or the client failed or was closed first) under a deadline and
 * the caller's signal. A pending `ready()` holds the process (even with `holdProcess: false`):
 * its caller waits.
 */
import { startExchange } from '../core/deadline-exchange.js';
import { FlagwireError } from '../errors.js';

/** Rejects with `loading`'s error, `ABORTED`, or `TIMEOUT` naming the last error (`lastError()`). */
export function waitReady(
  loading: Promise<void>,
  signal: AbortSignal | undefined,
  timeoutMs = 2 ** 31 - 1,
  lastError: () => FlagwireError | undefined,
): Promise<void> {
  // The exchange's deadline and abort reject with nothing; the load's own failure with an error.
  const wait = startExchange(timeoutMs, signal, true);
  return wait
    .race(loading)
    .catch((error?: FlagwireError) => {
      const cause = lastError();
      throw (
        error ??
        (signal?.aborted
          ? new FlagwireError('ABORTED', 'ready() was aborted')
          : new FlagwireError(
              'TIMEOUT',
              `flags not loaded within ${timeoutMs} ms${cause ? `: ${cause.message}` : ''}`,
              { cause },
            ))
      );
    })
    .finally(wait.end);
}
