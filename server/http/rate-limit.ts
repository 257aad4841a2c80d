/**
 * A token bucket per name (an API key's id): `perSecond` tokens refilled each second up to
 * `burst`. Usage reports take one each (`docs/protocol.md` §13.3); past the bucket, the answer is
 * `429` with the whole seconds until the next token, plus a jitter (`retryAfter`). Per server
 * instance, in memory.
 */

/** Seconds of jitter at most added to a `Retry-After`: the refused do not come back together. */
export const RETRY_JITTER_SECONDS = 4;

/**
 * The `Retry-After` of a refusal that should wait `seconds`: `seconds` to `seconds + 4`, a whole
 * number at random, so clients refused in the same second spread over five (`1` gives 1 to 5 s).
 */
export function retryAfter(seconds: number, random: () => number = Math.random): number {
  return seconds + Math.floor(random() * (RETRY_JITTER_SECONDS + 1));
}

export class RateLimiter {
  readonly #perSecond: number;
  readonly #burst: number;
  readonly #now: () => number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(perSecond: number, burst: number, now: () => number = Date.now) {
    this.#perSecond = perSecond;
    this.#burst = burst;
    this.#now = now;
  }

  /** Takes a token of `name`: `0` when there was one, else the seconds (at least 1) to wait. */
  take(name: string): number {
    const now = this.#now();
    let bucket = this.#buckets.get(name);
    if (!bucket) {
      // Buckets that are full again carry nothing: forget them, so the map stays small.
      if (this.#buckets.size >= 10_000)
        for (const [key, b] of this.#buckets)
          if (this.#level(b, now) >= this.#burst) this.#buckets.delete(key);
      bucket = { tokens: this.#burst, at: now };
      this.#buckets.set(name, bucket);
    }
    bucket.tokens = this.#level(bucket, now);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.#perSecond));
  }

  #level(bucket: { tokens: number; at: number }, now: number): number {
    return Math.min(this.#burst, bucket.tokens + (Math.max(0, now - bucket.at) / 1000) * this.#perSecond);
  }
}
