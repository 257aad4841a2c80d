/**
 * Why `ready()` gave up waiting for the first flags: the caller's signal aborted (`ABORTED`) or
 * the deadline passed (`TIMEOUT`, naming the last error).
 */
import { FlagwireError } from '../errors.js';

export const readyError = (
  signal: AbortSignal | undefined,
  timeoutMs: number,
  lastError: FlagwireError | undefined,
): FlagwireError =>
  signal?.aborted
    ? new FlagwireError('ABORTED', 'ready() was aborted')
    : new FlagwireError(
        'TIMEOUT',
        `flags not loaded within ${timeoutMs} ms${lastError ? `: ${lastError.message}` : ''}`,
        { cause: lastError },
      );
