/**
 * Reconnection delays: exponential with jitter, capped, and reset once a connection has
 * stayed healthy long enough (the shape of LaunchDarkly's `Backoff`). Pure: the clock and
 * the random source are passed in.
 */
export interface BackoffOptions {
  /** First delay, in milliseconds. */
  initialRetryDelayMs: number;
  /** Largest delay, in milliseconds. */
  maxRetryDelayMs: number;
  /** A connection healthy this long resets the delay to `initialRetryDelayMs`. */
  retryResetAfterMs: number;
  random?: () => number;
}

export class Backoff {
  readonly #options: BackoffOptions;
  #attempt = 0;
  #healthySince: number | undefined;

  /** `options` is read on every delay, never changed. */
  constructor(options: BackoffOptions) {
    this.#options = options;
  }

  /** Marks the connection healthy from `now`. */
  succeeded(now: number): void {
    this.#healthySince = now;
  }

  /**
   * The delay before the next attempt: `min(max, initial * 2^attempt)`, jittered into
   * `[half, full]` so that many clients do not reconnect in step.
   */
  next(now: number): number {
    const {
      initialRetryDelayMs: initialMs,
      maxRetryDelayMs: maxMs,
      retryResetAfterMs,
      random = Math.random,
    } = this.#options;
    // Never marked healthy: `now - undefined` is NaN, which is not >= anything.
    if (now - this.#healthySince! >= retryResetAfterMs) this.#attempt = 0;
    this.#healthySince = undefined;
    // Past 2^1023 the power is Infinity, and the cap still applies.
    const full = Math.min(maxMs, initialMs * 2 ** this.#attempt++);
    return Math.round((full * (1 + random())) / 2);
  }

  reset(): void {
    this.#attempt = 0;
    this.#healthySince = undefined;
  }
}
