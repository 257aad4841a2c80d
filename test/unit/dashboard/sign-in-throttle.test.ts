/**
 * Throttling of failed dashboard sign-ins (`server/dashboard/sign-in-throttle.ts`): free
 * attempts, locks that double, per account and per address, success, the window, the bound.
 * The clock is the test's: nothing sleeps.
 */
import { describe, expect, it } from 'vitest';
import {
  resolveThrottleOptions,
  SignInThrottle,
  THROTTLE_DEFAULTS,
  type ThrottleOptions,
} from '../../../server/dashboard/sign-in-throttle.js';

const MINUTE = 60_000;

function throttle(options: ThrottleOptions = {}) {
  const clock = { now: 1_700_000_000_000 };
  const t = new SignInThrottle({ now: () => clock.now, ...options });
  return { t, clock, advance: (ms: number) => (clock.now += ms) };
}

describe('SignInThrottle', () => {
  it('lets the free attempts through, then locks for 1 s, 2 s, 4 s … up to the cap', () => {
    const { t, advance } = throttle();
    for (let i = 0; i < 5; i++) {
      expect(t.retryAfter('ada@example.com', '10.0.0.1')).toBe(0);
      t.failed('ada@example.com', '10.0.0.1');
    }
    const waits: number[] = [];
    for (let i = 0; i < 12; i++) {
      const wait = t.retryAfter('ada@example.com', '10.0.0.1');
      waits.push(wait);
      advance(wait * 1000 - 1);
      expect(t.retryAfter('ada@example.com', '10.0.0.1')).toBe(1); // still locked, rounded up
      advance(1);
      expect(t.retryAfter('ada@example.com', '10.0.0.1')).toBe(0);
      t.failed('ada@example.com', '10.0.0.1');
    }
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900]);
  });

  it('normalises the account: case and surrounding spaces do not reset its count', () => {
    const { t } = throttle({ freeAttempts: 2 });
    t.failed('Ada@Example.com', '10.0.0.1');
    t.failed('  ada@example.COM ', '10.0.0.2');
    expect(t.retryAfter('ada@example.com', '10.0.0.3')).toBe(1);
  });

  it('locks the account from any address (it does not know the password, only failures)', () => {
    const { t } = throttle();
    for (let i = 0; i < 5; i++) t.failed('ada@example.com', `10.0.0.${i}`);
    expect(t.retryAfter('ada@example.com', '192.0.2.7')).toBe(1);
    expect(t.retryAfter('grace@example.com', '192.0.2.7')).toBe(0);
  });

  it('locks an address trying many accounts, after looser limits', () => {
    const { t } = throttle();
    for (let i = 0; i < 20; i++) {
      expect(t.retryAfter(`user${i}@example.com`, '10.0.0.1')).toBe(0);
      t.failed(`user${i}@example.com`, '10.0.0.1');
    }
    expect(t.retryAfter('someone-new@example.com', '10.0.0.1')).toBe(1);
    expect(t.retryAfter('someone-new@example.com', '10.0.0.2')).toBe(0);
  });

  it('forgets the account on success, not the address', () => {
    const { t } = throttle({ addressFreeAttempts: 6 });
    for (let i = 0; i < 5; i++) t.failed('ada@example.com', '10.0.0.1');
    expect(t.retryAfter('ada@example.com', '10.0.0.2')).toBe(1);
    t.succeeded('ADA@example.com');
    expect(t.retryAfter('ada@example.com', '10.0.0.2')).toBe(0);
    // The account starts again; the address has 5 failures of its 6 free ones.
    t.failed('grace@example.com', '10.0.0.1');
    expect(t.retryAfter('ada@example.com', '10.0.0.1')).toBe(1);
    expect(t.retryAfter('ada@example.com', '10.0.0.2')).toBe(0);
  });

  it('forgets failures once the window passes without one', () => {
    const { t, advance } = throttle();
    for (let i = 0; i < 4; i++) {
      t.failed('ada@example.com', '10.0.0.1');
      advance(10 * MINUTE); // each failure within the window of the one before
    }
    t.failed('ada@example.com', '10.0.0.1');
    expect(t.retryAfter('ada@example.com', '10.0.0.1')).toBe(1);

    // The window runs from the lock's end (1 s after the last failure).
    advance(15 * MINUTE);
    expect(t.retryAfter('ada@example.com', '10.0.0.1')).toBe(0);
    expect(t.size).toEqual({ accounts: 1, addresses: 0 }); // the address was never locked
    advance(1_000);
    expect(t.retryAfter('ada@example.com', '10.0.0.1')).toBe(0);
    expect(t.size).toEqual({ accounts: 0, addresses: 0 });
    for (let i = 0; i < 4; i++) t.failed('ada@example.com', '10.0.0.1');
    expect(t.retryAfter('ada@example.com', '10.0.0.1')).toBe(0);
  });

  it('keeps a lock to its end, and the count a window past it, even when the lock is longer', () => {
    const { t, advance } = throttle({ freeAttempts: 1, windowMs: 1_000, maxLockMs: 10 * MINUTE });
    t.failed('ada@example.com', '10.0.0.1');
    advance(1_000);
    t.failed('ada@example.com', '10.0.0.1');
    advance(1_000);
    t.failed('ada@example.com', '10.0.0.1');
    expect(t.retryAfter('ada@example.com', '10.0.0.1')).toBe(4);
    advance(3_000);
    expect(t.retryAfter('ada@example.com', '10.0.0.1')).toBe(1);
    advance(1_999); // the lock ended 999 ms ago: the next failure still counts as the fourth
    t.failed('ada@example.com', '10.0.0.1');
    expect(t.retryAfter('ada@example.com', '10.0.0.1')).toBe(8);
  });

  it('keeps at most maxEntries keys per map, dropping the oldest', () => {
    const { t, advance } = throttle({ freeAttempts: 1, addressFreeAttempts: 1, maxEntries: 3 });
    for (const name of ['a', 'b', 'c', 'd']) {
      t.failed(`${name}@example.com`, `10.0.0.${name.charCodeAt(0)}`);
      advance(1);
    }
    expect(t.size).toEqual({ accounts: 3, addresses: 3 });
    expect(t.retryAfter('a@example.com', '192.0.2.1')).toBe(0); // dropped
    expect(t.retryAfter('b@example.com', '192.0.2.1')).toBe(1);

    // A new failure of a kept key makes it the newest: c is dropped next, not b.
    t.failed('b@example.com', '192.0.2.2');
    t.failed('e@example.com', '192.0.2.3');
    expect(t.retryAfter('b@example.com', '192.0.2.9')).toBe(2);
    expect(t.retryAfter('c@example.com', '192.0.2.9')).toBe(0);
    expect(t.size.accounts).toBe(3);

    for (let i = 0; i < 1000; i++) t.failed(`user${i}@example.com`, `10.1.${i >> 8}.${i & 255}`);
    expect(t.size).toEqual({ accounts: 3, addresses: 3 });
  });

  it('resolves its defaults in one place and refuses nonsense', () => {
    expect(THROTTLE_DEFAULTS).toEqual({
      freeAttempts: 5,
      addressFreeAttempts: 20,
      windowMs: 15 * MINUTE,
      baseLockMs: 1_000,
      maxLockMs: 15 * MINUTE,
      maxEntries: 10_000,
    });
    expect(resolveThrottleOptions({ freeAttempts: 3 })).toMatchObject({
      freeAttempts: 3,
      windowMs: 15 * MINUTE,
    });
    expect(Object.isFrozen(THROTTLE_DEFAULTS)).toBe(true);
    expect(() => resolveThrottleOptions({ freeAttempts: 0 })).toThrow(RangeError);
    expect(() => resolveThrottleOptions({ windowMs: Number.NaN })).toThrow(RangeError);
    expect(() => resolveThrottleOptions({ baseLockMs: 2_000, maxLockMs: 1_000 })).toThrow(RangeError);
  });
});
