/**
 * Reconnection delays: exponential with jitter, capped, and reset once a connection has
 * stayed healthy long enough (the shape of LaunchDarkly's `Backoff`). Pure: the clock and
 * the random source are passed in.
 */
export interface BackoffOptions {
  /** First delay, in milliseconds. */
  initialMs: number;
  /** Largest delay, in milliseconds. */
  maxMs: number;
  /** A connection healthy this long resets the delay to `initialMs`. */
  resetAfterMs: number;
  random?: () => number;
}

export class Backoff {
  readonly #options: Required<BackoffOptions>;
  #attempt = 0;
  #healthySince: number | undefined;

  constructor(options: BackoffOptions) {
    this.#options = { random: Math.random, ...options };
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
    if (this.#healthySince !== undefined && now - this.#healthySince >= this.#options.resetAfterMs)
      this.#attempt = 0;
    this.#healthySince = undefined;
    const { initialMs, maxMs, random } = this.#options;
    const full = Math.min(maxMs, initialMs * 2 ** Math.min(this.#attempt, 30));
    this.#attempt += 1;
    return Math.round(full / 2 + (random() * full) / 2);
  }

  reset(): void {
    this.#attempt = 0;
    this.#healthySince = undefined;
  }
}
