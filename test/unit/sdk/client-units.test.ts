/** Unit tests of the client's pure parts: backoff, the flag store's ordering rules, staleness. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FlagStore } from '../../../src/client/flag-store.js';
import { Backoff } from '../../../src/core/backoff.js';
import type { SdkSnapshot } from '../../../src/core/types.js';
import { createClient } from '../../../src/index.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('Backoff', () => {
  it('doubles from the initial delay up to the cap, jittered into [half, full]', () => {
    const low = new Backoff({
      initialRetryDelayMs: 1000,
      maxRetryDelayMs: 30_000,
      retryResetAfterMs: 60_000,
      random: () => 0,
    });
    const high = new Backoff({
      initialRetryDelayMs: 1000,
      maxRetryDelayMs: 30_000,
      retryResetAfterMs: 60_000,
      random: () => 1,
    });
    const lows = Array.from({ length: 8 }, () => low.next(0));
    const highs = Array.from({ length: 8 }, () => high.next(0));
    expect(highs).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
    expect(lows).toEqual(highs.map((d) => d / 2));
  });

  it('resets after a connection stayed healthy long enough, and not before', () => {
    const b = new Backoff({
      initialRetryDelayMs: 100,
      maxRetryDelayMs: 10_000,
      retryResetAfterMs: 60_000,
      random: () => 1,
    });
    b.next(0);
    b.next(0);
    b.succeeded(1000);
    expect(b.next(30_000)).toBe(400);
    b.succeeded(40_000);
    expect(b.next(100_000)).toBe(100);
  });
});

const snap = (revision: number, flags: SdkSnapshot['flags'], epoch = 'E'): SdkSnapshot => ({
  epoch,
  revision,
  eventId: `${epoch}:${revision}`,
  flags,
});
const flag = (key: string, enabled: boolean, version: number) => ({
  key,
  type: 'boolean' as const,
  enabled,
  version,
});

describe('FlagStore', () => {
  it('reports created, changed and deleted flags when a snapshot replaces the state', () => {
    const store = new FlagStore();
    store.replace(snap(2, { a: flag('a', false, 1), b: flag('b', true, 2) }));
    const changes = store.replace(snap(4, { a: flag('a', true, 3), c: flag('c', true, 4) }));
    expect(changes?.map((c) => [c.key, c.before?.enabled, c.after?.enabled])).toEqual([
      ['b', true, undefined],
      ['a', false, true],
      ['c', undefined, true],
    ]);
    expect(store.lastEventId).toBe('E:4');
  });

  it('ignores an older snapshot of the same epoch, takes any snapshot of a new epoch', () => {
    const store = new FlagStore();
    store.replace(snap(5, { a: flag('a', true, 5) }));
    expect(store.replace(snap(3, { a: flag('a', false, 3) }))).toBeUndefined();
    expect(store.flags.get('a')?.enabled).toBe(true);
    expect(store.replace(snap(1, { a: flag('a', false, 1) }, 'NEW'))).toHaveLength(1);
    expect(store.lastEventId).toBe('NEW:1');
  });

  it('applies an update only when its revision is newer, and flags gaps and foreign epochs', () => {
    const store = new FlagStore();
    store.replace(snap(5, { a: flag('a', true, 5) }));
    expect(store.apply({ ...flag('a', false, 5) }, 'E:5')).toBe('stale');
    expect(store.apply({ ...flag('a', false, 4) }, 'E:4')).toBe('stale');
    expect(store.apply({ ...flag('a', false, 6) }, 'X:6')).toBe('foreign');
    expect(store.apply({ ...flag('a', false, 6) }, 'E:6')).toMatchObject({ gap: false });
    expect(store.apply({ ...flag('b', true, 9) }, 'E:9')).toMatchObject({ gap: true });
    expect(store.apply({ ...flag('b', false, 10), deleted: true }, 'E:10')).toMatchObject({
      changes: [{ key: 'b', after: undefined }],
    });
    expect(store.flags.has('b')).toBe(false);
    expect(store.apply({ ...flag('b', true, 9) }, 'E:9')).toBe('stale');
  });
});

describe('client status', () => {
  it('reports stale once the data is older than staleAfterMs', async () => {
    const c = createClient({
      baseUrl: 'http://127.0.0.1:9/api/v1',
      apiKey: 'k',
      logger: false,
      stream: false,
      staleAfterMs: 1000,
      fetch: (async () =>
        Response.json(snap(1, { a: flag('a', true, 1) }), { headers: { etag: '"E:1"' } })) as typeof fetch,
    });
    await c.ready();
    expect(c.status().state).toBe('polling');
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 5000);
    expect(c.status()).toMatchObject({ state: 'stale', ready: true });
    expect(c.status().dataAgeMs).toBeGreaterThanOrEqual(5000);
    await c.close();
  });
});
