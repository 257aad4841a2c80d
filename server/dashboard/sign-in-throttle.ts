/**
 * Throttling of failed dashboard sign-ins (`docs/protocol.md` §10.2, "people"), in memory, per
 * account (the e-mail address, trimmed and lower-cased) and per client address. A key's first
 * `freeAttempts` failures cost nothing; from then on it is locked after each failure, 1 s, 2 s,
 * 4 s … doubling up to `maxLockMs`, and `retryAfter` answers how long to wait (the `Retry-After`
 * of a `429`). While locked, the sign-in is refused without looking at the password, so guessing
 * slows to a crawl without ever locking a person out for good. A key is forgotten once `windowMs`
 * passes with no failure after its lock ends (waiting out a lock does not earn free attempts); a success forgets the account's failures but not the
 * address's (one address trying many accounts stays throttled). Addresses get looser limits: a
 * shared NAT or proxy puts many people behind one.
 *
 * Bounded: each map holds at most `maxEntries` keys; the key whose last failure is oldest goes
 * first. Expired keys are pruned as they are met. Each instance keeps its own counts, so several
 * servers on one database throttle each on its own, and a restart forgets. Attempts checked
 * before an earlier one's failure is recorded all pass (the password check is async): the
 * limits bound guessing over time, not a burst of concurrent requests.
 */

export interface ThrottleOptions {
  /** Failures of one account that cost nothing, within the window. Default 5. */
  freeAttempts?: number;
  /** Failures from one client address that cost nothing, within the window. Default 20. */
  addressFreeAttempts?: number;
  /** How long a key's failures are remembered after its last one, or its lock's end (ms). Default 15 min. */
  windowMs?: number;
  /** The first lock (ms); each further failure doubles it. Default 1 s. */
  baseLockMs?: number;
  /** The longest lock (ms). Default 15 min. */
  maxLockMs?: number;
  /** Most keys kept per map (accounts, addresses). Default 10,000. */
  maxEntries?: number;
  /** The clock, epoch milliseconds. Default `Date.now`. */
  now?: () => number;
}

export type ResolvedThrottleOptions = Readonly<Required<ThrottleOptions>>;

/** The defaults, in one place. */
export const THROTTLE_DEFAULTS: Readonly<Required<Omit<ThrottleOptions, 'now'>>> = Object.freeze({
  freeAttempts: 5,
  addressFreeAttempts: 20,
  windowMs: 15 * 60_000,
  baseLockMs: 1_000,
  maxLockMs: 15 * 60_000,
  maxEntries: 10_000,
});

/** `options` over the defaults; a `RangeError` for a count or a duration that is not positive. */
export function resolveThrottleOptions(options: ThrottleOptions = {}): ResolvedThrottleOptions {
  const resolved = { ...THROTTLE_DEFAULTS, now: options.now ?? Date.now };
  for (const name of Object.keys(THROTTLE_DEFAULTS) as (keyof typeof THROTTLE_DEFAULTS)[]) {
    const value = options[name] ?? THROTTLE_DEFAULTS[name];
    if (!Number.isSafeInteger(value) || value < 1)
      throw new RangeError(`sign-in throttle: ${name} must be a positive integer, got ${value}`);
    resolved[name] = value;
  }
  if (resolved.maxLockMs < resolved.baseLockMs)
    throw new RangeError('sign-in throttle: maxLockMs must be at least baseLockMs');
  return Object.freeze(resolved);
}

/** The account key of an e-mail address: trimmed, lower-cased. */
export const accountKey = (email: string): string => email.trim().toLowerCase();

interface Entry {
  failures: number;
  lastFailure: number;
  lockedUntil: number;
}

/** One key's failures (an account's or an address's), bounded and pruned as it goes. */
class Failures {
  readonly #entries = new Map<string, Entry>();
  readonly #free: number;
  readonly #options: ResolvedThrottleOptions;

  constructor(free: number, options: ResolvedThrottleOptions) {
    this.#free = free;
    this.#options = options;
  }

  get size(): number {
    return this.#entries.size;
  }

  #expired(entry: Entry, now: number): boolean {
    // Counted from the lock's end: waiting a lock out does not start the free attempts again.
    return now >= Math.max(entry.lastFailure, entry.lockedUntil) + this.#options.windowMs;
  }

  /** The key's entry if it still counts; an expired one is dropped. */
  #live(key: string, now: number): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry && this.#expired(entry, now)) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  /** Milliseconds until the key's lock ends; 0 when it is not locked. */
  lockedFor(key: string, now: number): number {
    const entry = this.#live(key, now);
    return entry ? Math.max(0, entry.lockedUntil - now) : 0;
  }

  failed(key: string, now: number): void {
    const entry = this.#live(key, now) ?? { failures: 0, lastFailure: now, lockedUntil: 0 };
    // Re-inserted at the end: the map runs from the oldest last failure to the newest.
    this.#entries.delete(key);
    entry.failures++;
    entry.lastFailure = now;
    const beyond = entry.failures - this.#free;
    if (beyond >= 0) {
      const { baseLockMs, maxLockMs } = this.#options;
      // 2 ** 40 ms is decades: past it, the cap applies anyway (and no overflow to Infinity).
      const lock = Math.min(maxLockMs, baseLockMs * 2 ** Math.min(beyond, 40));
      entry.lockedUntil = Math.max(entry.lockedUntil, now + lock);
    }
    this.#makeRoom(now);
    this.#entries.set(key, entry);
  }

  forget(key: string): void {
    this.#entries.delete(key);
  }

  /** Drops expired keys from the old end, then the oldest keys while the map is full. */
  #makeRoom(now: number): void {
    for (const [key, entry] of this.#entries) {
      if (this.#entries.size < this.#options.maxEntries && !this.#expired(entry, now)) break;
      this.#entries.delete(key);
    }
  }
}

export class SignInThrottle {
  readonly #now: () => number;
  readonly #accounts: Failures;
  readonly #addresses: Failures;

  constructor(options?: ThrottleOptions) {
    const resolved = resolveThrottleOptions(options);
    this.#now = resolved.now;
    this.#accounts = new Failures(resolved.freeAttempts, resolved);
    this.#addresses = new Failures(resolved.addressFreeAttempts, resolved);
  }

  /** Seconds to wait (>= 1, rounded up) when sign-in for this account or address is locked now, else 0. */
  retryAfter(account: string, address: string): number {
    const now = this.#now();
    const ms = Math.max(
      this.#accounts.lockedFor(accountKey(account), now),
      this.#addresses.lockedFor(address, now),
    );
    return ms > 0 ? Math.max(1, Math.ceil(ms / 1000)) : 0;
  }

  /** A sign-in for `account` from `address` failed: counts against both. */
  failed(account: string, address: string): void {
    const now = this.#now();
    this.#accounts.failed(accountKey(account), now);
    this.#addresses.failed(address, now);
  }

  /** A sign-in for `account` succeeded: its failures are forgotten (the address's are not). */
  succeeded(account: string): void {
    this.#accounts.forget(accountKey(account));
  }

  /** How many keys are kept (for tests and metrics). */
  get size(): { accounts: number; addresses: number } {
    return { accounts: this.#accounts.size, addresses: this.#addresses.size };
  }
}
