/**
 * The SDK's usage reporting against a real server (`docs/protocol.md` §13.2, §13.6): what each
 * evaluation call counts (per flag, version, variant and reason; unknown keys; before any load),
 * what is not counted (allFlags, bootstrap), flush(), close() flushing, the interval, a report
 * retried with its id after a lost answer and after a 429, what stops reporting (404, usage:
 * false, offline), and that no user key or attribute ever leaves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type FlagwireClient } from '../src/index.js';
import { KEYS, startTestServer, type TestServer } from './helpers/server.js';
import { totalsOf } from './helpers/usage.js';
import { whenState } from './helpers/wait.js';

let t: TestServer;
let version: Record<string, number>;
const USER = { key: 'user-secret-key-42', email: 'someone@private.example', plan: 'gold' };

/** Every usage request a client sends: its body, and what the server answered. */
interface Sent {
  body: Record<string, unknown>;
  status: number;
}

/** A fetch that records usage reports (and may lose `lose` answers after the server has them). */
function recording(options: { lose?: number } = {}) {
  const sent: Sent[] = [];
  let lose = options.lose ?? 0;
  const fetchImpl: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (String(input).endsWith('/sdk/usage')) {
      sent.push({ body: JSON.parse(String(init?.body)), status: response.status });
      if (lose > 0) {
        lose--;
        await response.text();
        throw new TypeError('fetch failed: the answer was lost');
      }
    }
    return response;
  };
  return { sent, fetch: fetchImpl };
}

function client(extra: Parameters<typeof createClient>[0] extends infer O ? Partial<O> : never = {}) {
  return createClient({ baseUrl: t.base, apiKey: KEYS.acmeProdRead, logger: false, ...extra });
}

beforeAll(async () => {
  t = await startTestServer();
  await t.api('POST', '/flags', { key: 'plain', type: 'boolean' });
  await t.api('PATCH', '/flags/plain', { enabled: true });
  await t.api('POST', '/flags', { key: 'half', type: 'rollout', percentage: 50 });
  await t.api('PATCH', '/flags/half', { enabled: true });
  await t.api('POST', '/flags', {
    key: 'banner',
    type: 'string',
    variants: { blue: 'blue', red: 'red' },
    fallthrough: { variant: 'red' },
    rules: [{ clauses: [{ attribute: 'plan', op: 'in', values: ['gold'] }], serve: { variant: 'blue' } }],
  });
  await t.api('PATCH', '/flags/banner', { enabled: true });
  await t.api('POST', '/flags', { key: 'limit', type: 'number', variants: { low: 1, high: 9 } });
  await t.api('POST', '/flags', { key: 'config', type: 'json', variants: { a: { x: 1 } } });
  const snapshot = (await (await t.api('GET', '/sdk/flags?capabilities=targeting')).json()) as {
    flags: Record<string, { version: number }>;
  };
  version = Object.fromEntries(Object.entries(snapshot.flags).map(([k, f]) => [k, f.version]));
});
afterAll(() => t?.close());

/** The server's rows of `key` (all time in the last 24 h) by `variant/reason`. */
const rows = async (key: string) => (await totalsOf(t.base, key, KEYS.acmeProdRead)).byVariant;

describe('counting', () => {
  let c: FlagwireClient;
  let sent: Sent[];
  beforeAll(async () => {
    const r = recording();
    sent = r.sent;
    c = client({ fetch: r.fetch, usage: { app: { name: 'shop', version: '2.0.0' } } });
    await c.ready();
    await whenState(c, 'connected');
  });
  afterAll(() => c?.close());

  it('counts every single-flag call per version, variant and reason, and sends them on flush()', async () => {
    const users = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    let inHalf = 0;
    for (const key of users) if (c.isEnabled('half', { key })) inHalf++;
    c.isEnabled('half'); // no key: MISSING_USER_KEY
    c.isEnabledDetail('plain', USER);
    c.getDetail('plain', USER, false);
    expect(c.getString('banner', USER, 'none')).toBe('blue');
    expect(c.getString('banner', { key: 'x', plan: 'free' }, 'none')).toBe('red');
    c.getDetail('banner', USER, 'none');
    c.getNumber('limit', USER, 0); // disabled: OFF, the off variant
    c.getJson('config', USER, {});
    c.getString('plain', USER, 'wrong type'); // the default: ERROR
    c.isEnabled('no-such-flag', USER);
    c.isEnabled('no-such-flag');
    c.allFlags();
    expect(await c.flush()).toBe(true);
    expect(await rows('half')).toEqual({
      'on/ROLLOUT_IN': inHalf,
      'off/ROLLOUT_OUT': users.length - inHalf,
      'off/MISSING_USER_KEY': 1,
    });
    expect(await rows('plain')).toEqual({ 'on/ON': 2, 'null/ERROR': 1 });
    expect(await rows('banner')).toEqual({ 'blue/RULE_MATCH': 2, 'red/FALLTHROUGH': 1 });
    expect(await rows('limit')).toEqual({ 'low/OFF': 1 });
    expect(await rows('config')).toEqual({ 'a/OFF': 1 });
    const report = sent.at(-1)!.body;
    expect(report.unknown).toEqual([{ key: 'no-such-flag', count: 2 }]);
    expect(report).toMatchObject({
      sdk: { name: 'flagwire-js', version: expect.any(String) },
      runtime: `node/${process.versions.node}`,
      app: { name: 'shop', version: '2.0.0' },
      state: 'connected',
      eventId: expect.stringMatching(/^.+:\d+$/),
    });
    const series = (await (await t.api('GET', '/usage/flags/half')).json()) as {
      series: Array<{ reason: string }>;
    };
    expect(series.series.length).toBe(3);
  });

  it('never sends a user key or attribute', () => {
    const text = JSON.stringify(sent.map((s) => s.body));
    for (const secret of [USER.key, USER.email, 'gold', 'plan'])
      expect(text.includes(secret), `report contains ${secret}`).toBe(false);
  });

  it('counts a version replaced before the report under that version', async () => {
    c.isEnabled('plain', USER);
    const changed = new Promise((resolve) => c.on('change:plain', resolve));
    await t.api('PATCH', '/flags/plain', { description: 'v2' });
    await changed;
    c.isEnabled('plain', USER);
    c.isEnabled('plain', USER);
    expect(await c.flush()).toBe(true);
    const report = sent.at(-1)!.body as { counts: Array<{ key: string; version: number; count: number }> };
    const plain = report.counts.filter((r) => r.key === 'plain');
    expect(plain.map((r) => [r.version > version.plain!, r.count]).sort()).toEqual([
      [false, 1],
      [true, 2],
    ]);
  });

  it('sends nothing on flush() when nothing was evaluated', async () => {
    const before = sent.length;
    expect(await c.flush()).toBe(true);
    expect(sent.length).toBe(before);
  });
});

describe('what is not counted, and what sends nothing', () => {
  it('counts evaluations before anything loaded as notReady, and none of a bootstrap load', async () => {
    const r = recording();
    const c = client({ fetch: r.fetch, bootstrap: [] });
    const early = client({ fetch: r.fetch });
    early.isEnabled('plain');
    early.isEnabled('plain');
    await early.ready();
    expect(await early.flush()).toBe(true);
    expect(r.sent.at(-1)!.body).toMatchObject({ notReady: 2, counts: [], unknown: [] });
    await c.ready();
    expect(await c.flush()).toBe(true);
    expect(r.sent).toHaveLength(1);
    await Promise.all([c.close(), early.close()]);
  });

  it('sends nothing with usage: false, or offline', async () => {
    const r = recording();
    const off = client({ fetch: r.fetch, usage: false });
    await off.ready();
    off.isEnabled('plain');
    expect(await off.flush()).toBe(true);
    await off.close();
    const offline = client({
      fetch: r.fetch,
      offline: true,
      bootstrap: [{ key: 'plain', type: 'boolean', enabled: true, description: null }],
    });
    offline.isEnabled('plain');
    await offline.flush();
    await offline.close();
    expect(r.sent).toEqual([]);
  });

  it('stops reporting for good when the server has usage off (404)', async () => {
    const off = await startTestServer({ usage: false });
    try {
      const r = recording();
      const c = createClient({ baseUrl: off.base, apiKey: KEYS.acmeProdRead, logger: false, fetch: r.fetch });
      await c.ready();
      c.isEnabled('seeded', { key: 'u' });
      expect(await c.flush()).toBe(false);
      c.isEnabled('seeded', { key: 'u' });
      expect(await c.flush()).toBe(false);
      expect(r.sent.map((s) => s.status)).toEqual([404]);
      await c.close();
    } finally {
      await off.close();
    }
  });
});

describe('delivery', () => {
  it('retries a report whose answer was lost with the same id: counted once', async () => {
    await t.api('POST', '/flags', { key: 'lossy', type: 'boolean' });
    const r = recording({ lose: 1 });
    const c = client({ fetch: r.fetch });
    await c.ready();
    for (let i = 0; i < 7; i++) c.isEnabled('lossy');
    expect(await c.flush()).toBe(false);
    expect(await c.flush()).toBe(true);
    expect(r.sent.map((s) => s.status)).toEqual([202, 202]);
    expect(r.sent[1]!.body.id).toBe(r.sent[0]!.body.id);
    expect(await rows('lossy')).toEqual({ 'off/OFF': 7 });
    await c.close();
  });

  it('waits out a 429 and sends the same report again', async () => {
    const limited = await startTestServer({ usage: { reportsPerSecond: 1, burst: 1 } });
    try {
      const r = recording();
      const c = createClient({
        baseUrl: limited.base,
        apiKey: KEYS.acmeProdRead,
        logger: false,
        fetch: r.fetch,
      });
      await c.ready();
      c.isEnabled('seeded', { key: 'u' });
      expect(await c.flush()).toBe(true);
      c.isEnabled('seeded', { key: 'u' });
      c.start();
      expect(await c.flush()).toBe(false);
      // The retry comes by itself, after the Retry-After, with the same id.
      await expect.poll(() => r.sent.map((s) => s.status), { timeout: 15_000 }).toEqual([202, 429, 202]);
      expect(r.sent[2]!.body.id).toBe(r.sent[1]!.body.id);
      expect((await totalsOf(limited.base, 'seeded', KEYS.acmeProdRead)).total).toBe(2);
      await c.close();
    } finally {
      await limited.close();
    }
  });

  it('reports by itself every flushIntervalMs once started, and close() sends the rest', async () => {
    await t.api('POST', '/flags', { key: 'ticking', type: 'boolean' });
    const r = recording();
    const c = client({ fetch: r.fetch, usage: { flushIntervalMs: 20 } });
    await c.ready();
    c.isEnabled('ticking');
    await expect.poll(() => r.sent.length).toBeGreaterThan(0);
    // Quiet intervals send nothing, but every fifth one says the client is there.
    await expect
      .poll(() => r.sent.filter((s) => (s.body.counts as unknown[]).length === 0).length)
      .toBeGreaterThan(0);
    c.isEnabled('ticking');
    c.isEnabled('ticking');
    await c.close();
    expect(await rows('ticking')).toEqual({ 'off/OFF': 3 });
  });

  it('close() sends what was counted before it resolves, saying the client is closed', async () => {
    await t.api('POST', '/flags', { key: 'closing', type: 'boolean' });
    const r = recording();
    const c = client({ fetch: r.fetch });
    await c.ready();
    c.isEnabled('closing');
    await c.close();
    expect(await rows('closing')).toEqual({ 'off/OFF': 1 });
    expect(r.sent.at(-1)!.body.state).toBe('closed');
    // Idempotent: nothing more to send.
    await c.close();
    expect(r.sent).toHaveLength(1);
  });
});
