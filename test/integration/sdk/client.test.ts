/** The SDK client against a real reference server (`docs/protocol.md` §5, §6). */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  bucketOf,
  createClient,
  type FlagChange,
  type FlagwireClient,
  isFlagwireError,
} from '../../../src/index.js';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';
import { nextChange, whenTrue } from '../../helpers/wait.js';

let t: TestServer;
const clients: FlagwireClient[] = [];
beforeAll(async () => {
  t = await startTestServer({ pingIntervalMs: 100 });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(() => t.close());

function client(overrides: Partial<Parameters<typeof createClient>[0]> = {}): FlagwireClient {
  const c = createClient({ baseUrl: t.base, apiKey: KEYS.acmeProdRead, logger: false, ...overrides });
  clients.push(c);
  return c;
}

describe('start-up', () => {
  it('does no I/O until ready() and then loads every flag', async () => {
    const c = client();
    expect(c.status().state).toBe('idle');
    expect(c.isEnabled('seeded', 'u', true)).toBe(true);
    expect(c.isEnabledDetail('seeded', 'u').reason).toBe('NOT_READY');
    await c.ready({ timeoutMs: 5000 });
    expect(c.status()).toMatchObject({ ready: true });
    expect(Object.keys(c.allFlags())).toContain('seeded');
  });

  it('evaluates rollouts locally by the bucketing formula', async () => {
    const c = client();
    await c.ready();
    let inside = 0;
    for (let i = 0; i < 400; i++) {
      const user = `user-${i}`;
      const expected = bucketOf('seeded', user) <= 25;
      expect(c.isEnabled('seeded', { key: user })).toBe(expected);
      expect(c.isEnabled('seeded', user)).toBe(expected);
      const detail = c.isEnabledDetail('seeded', user);
      expect(detail).toMatchObject({ value: expected, reason: expected ? 'ROLLOUT_IN' : 'ROLLOUT_OUT' });
      expect(detail.bucket).toBe(bucketOf('seeded', user));
      if (expected) inside++;
    }
    expect(inside).toBeGreaterThan(50);
    expect(inside).toBeLessThan(150);
    expect(c.isEnabledDetail('seeded', {})).toEqual({
      value: false,
      reason: 'MISSING_USER_KEY',
      version: expect.any(Number),
    });
  });

  it('answers the default for an unknown flag', async () => {
    const c = client();
    await c.ready();
    expect(c.isEnabled('no-such-flag', 'u')).toBe(false);
    expect(c.isEnabled('no-such-flag', 'u', true)).toBe(true);
    expect(c.isEnabledDetail('no-such-flag', 'u', true)).toEqual({ value: true, reason: 'FLAG_NOT_FOUND' });
  });

  it('rejects ready() with UNAUTHORIZED on a bad key, stops, and emits error', async () => {
    const c = client({ apiKey: `fw_live_${'x'.repeat(32)}` });
    const errors: unknown[] = [];
    c.on('error', (e) => errors.push(e));
    const failure = await c.ready({ timeoutMs: 5000 }).catch((e: unknown) => e);
    expect(isFlagwireError(failure)).toBe(true);
    expect(failure).toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
    expect((failure as Error).message).not.toContain('fw_live_');
    expect(c.status().state).toBe('failed');
    expect(errors).toHaveLength(1);
    await expect(c.ready()).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('throws at once for programmer errors, with a message that says how to fix them', () => {
    expect(() => createClient({ baseUrl: t.base, apiKey: '' })).toThrow(/apiKey/);
    expect(() => createClient({ baseUrl: 'localhost:8787', apiKey: 'k' })).toThrow(
      /absolute http or https URL/,
    );
    expect(() => createClient({ baseUrl: 'ftp://x', apiKey: 'k' })).toThrow(/absolute http or https URL/);
    expect(() => createClient({ baseUrl: t.base, apiKey: 'fw_live_x ' })).toThrow(/whitespace/);
    expect(() => createClient({ baseUrl: t.base, apiKey: 'k', pollIntervalMs: -1 })).toThrow(
      /pollIntervalMs/,
    );
  });
});

describe('live updates', () => {
  it('applies create, update and delete from the stream and emits typed changes', async () => {
    const c = client();
    await c.ready();
    const changes: FlagChange[] = [];
    c.on('change', (change) => {
      if (change.key === 'live-1') changes.push(change);
    });

    let next = nextChange(c, 'live-1');
    await t.api('POST', '/flags', { key: 'live-1', type: 'boolean' });
    expect((await next).after).toMatchObject({ enabled: false });

    next = nextChange(c, 'live-1');
    await t.api('PATCH', '/flags/live-1', { enabled: true });
    await next;
    expect(c.isEnabled('live-1', 'anyone')).toBe(true);

    next = nextChange(c, 'live-1');
    await t.api('DELETE', '/flags/live-1');
    expect((await next).after).toBeUndefined();
    expect(c.isEnabled('live-1', 'anyone', true)).toBe(true);
    expect(changes.map((ch) => [ch.before?.enabled, ch.after?.enabled])).toEqual([
      [undefined, false],
      [false, true],
      [true, undefined],
    ]);
  });

  it('keeps delivering to other listeners when one throws', async () => {
    const c = client();
    await c.ready();
    c.on('change', () => {
      throw new Error('listener bug');
    });
    const next = nextChange(c, 'live-2');
    await t.api('POST', '/flags', { key: 'live-2', type: 'rollout', percentage: 100 });
    await next;
    await t.api('PATCH', '/flags/live-2', { enabled: true });
    await whenTrue(c, () => c.isEnabled('live-2', 'u'));
  });

  it('unsubscribes with the returned function and with an AbortSignal', async () => {
    const c = client();
    await c.ready();
    let a = 0;
    let b = 0;
    const off = c.on('change:live-3', () => a++);
    const controller = new AbortController();
    c.on('change:live-3', () => b++, { signal: controller.signal });
    off();
    controller.abort();
    const done = nextChange(c, 'live-3');
    await t.api('POST', '/flags', { key: 'live-3', type: 'boolean' });
    await done;
    expect([a, b]).toEqual([0, 0]);
  });

  it('polls with ETag when the stream is off', async () => {
    const c = client({ stream: false, pollIntervalMs: 30 });
    await c.ready();
    expect(c.status().state).toBe('polling');
    await t.api('POST', '/flags', { key: 'polled', type: 'boolean' });
    await t.api('PATCH', '/flags/polled', { enabled: true });
    await whenTrue(c, () => c.isEnabled('polled', 'u'));
  });
});

describe('evaluation never throws', () => {
  it('answers the default for any arguments', async () => {
    const c = client();
    await c.ready();
    const hostile = {
      get key(): string {
        throw new Error('boom');
      },
    };
    const weird: unknown[] = [undefined, null, 42, {}, [], { key: 7 }, { key: null }, hostile, Symbol('s')];
    // A 25 % rollout: a user without a usable key is out (not the default); one whose key
    // throws gives the default with reason ERROR.
    for (const user of weird.filter((u) => u !== hostile)) {
      expect(c.isEnabled('seeded', user as never, true)).toBe(false);
      expect(c.isEnabledDetail('seeded', user as never, true)).toMatchObject({
        value: false,
        reason: 'MISSING_USER_KEY',
      });
    }
    expect(c.isEnabled('seeded', hostile as never, true)).toBe(true);
    expect(c.isEnabledDetail('seeded', hostile as never).reason).toBe('ERROR');
    // A flag key that is no string names no flag: the default.
    expect(c.isEnabled(undefined as never, 'u', true)).toBe(true);
    expect(c.isEnabled({} as never, 'u')).toBe(false);
  });
});

describe('bootstrap and offline', () => {
  it('evaluates bootstrap flags at once and makes no request offline', async () => {
    let calls = 0;
    const c = client({
      offline: true,
      fetch: (async () => {
        calls++;
        throw new Error('no network');
      }) as typeof fetch,
      bootstrap: [{ key: 'boot', type: 'rollout', enabled: true, percentage: 100, description: null }],
    });
    expect(c.isEnabled('boot', 'u')).toBe(true);
    await c.ready();
    expect(calls).toBe(0);
  });

  it('replaces bootstrap flags with the server state once loaded', async () => {
    const c = client({
      bootstrap: [{ key: 'seeded', type: 'boolean', enabled: false, description: null }],
    });
    expect(c.isEnabled('seeded', 'u')).toBe(false);
    await c.ready();
    expect(c.allFlags().seeded).toMatchObject({ type: 'rollout', percentage: expect.any(Number) });
  });
});

describe('close()', () => {
  it('is idempotent, stops the stream, and keeps answering from the last flags', async () => {
    const c = client();
    await c.ready();
    const before = c.isEnabled('seeded', 'user-1');
    await c.close();
    await c.close();
    expect(c.status().state).toBe('closed');
    expect(c.isEnabled('seeded', 'user-1')).toBe(before);
    await expect(c.ready()).resolves.toBeUndefined();
  });

  it('rejects a pending ready() with CLIENT_CLOSED', async () => {
    const c = client({ baseUrl: 'http://127.0.0.1:9/api/v1' });
    const pending = c.ready();
    await c.close();
    await expect(pending).rejects.toMatchObject({ code: 'CLIENT_CLOSED' });
  });
});
