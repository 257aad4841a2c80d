/**
 * The SDK's usage reporting against a real server (`docs/protocol.md` §13.2, §13.6): what each
 * evaluation call counts (per flag, version, variant and reason; unknown keys; before any load),
 * what is not counted (allFlags, bootstrap), flush(), close() flushing and saying so, the
 * interval, a report retried with its id after a lost answer, a 429 and a proxy's 404, a report
 * over 900 KB split, what stops reporting (usage off: for an hour; a refused key; usage: false,
 * offline), only flag-like unknown keys, the runtime's first token, and that no user key or
 * attribute ever leaves.
 */
import { createServer, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { createClient, type FlagwireClient } from '../../../src/index.js';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';
import { totalsOf } from '../../helpers/usage.js';
import { whenState } from '../../helpers/wait.js';

let t: TestServer;
let version: Record<string, number>;
const USER = { key: 'user-secret-key-42', email: 'someone@private.example', plan: 'gold' };

/** Every usage request a client sends: its body (and its length), and what the server answered. */
interface Sent {
  body: Record<string, unknown>;
  size: number;
  status: number;
}

/** A fetch that records usage reports (and may lose `lose` answers after the server has them). */
function recording(options: { lose?: number } = {}) {
  const sent: Sent[] = [];
  let lose = options.lose ?? 0;
  const fetchImpl: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (String(input).endsWith('/sdk/usage')) {
      const text = String(init?.body);
      sent.push({ body: JSON.parse(text), size: text.length, status: response.status });
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

  it('lists only unknown keys that could be flag keys; counts the others as unknownDropped', async () => {
    c.isEnabled(`beta-${USER.email}`, USER);
    c.isEnabled('user 42', USER);
    c.isEnabled(`${'k'.repeat(128)}x`, USER);
    c.isEnabled('old-banner', USER);
    c.isEnabled('k'.repeat(128), USER);
    expect(await c.flush()).toBe(true);
    expect(sent.at(-1)!.body).toMatchObject({
      unknown: [
        { key: 'old-banner', count: 1 },
        { key: 'k'.repeat(128), count: 1 },
      ],
      unknownDropped: 3,
    });
    expect(JSON.stringify(sent.map((s) => s.body))).not.toContain(USER.email);
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

  it('makes no report for an hour once a Flagwire server says usage is off (404 NOT_FOUND), then asks again', async () => {
    const off = await startTestServer({ usage: false });
    const on = await startTestServer();
    onTestFinished(async () => {
      vi.restoreAllMocks();
      await Promise.all([off.close(), on.close()]);
    });
    // The usage route moves from `off` to `on` (a server turned usage on, a rolling upgrade done).
    let usageAt = off.base;
    const r = recording();
    const warnings: string[] = [];
    const c = createClient({
      baseUrl: off.base,
      apiKey: KEYS.acmeProdRead,
      logger: { warn: (m) => warnings.push(m), error() {} },
      fetch: (input, init) =>
        r.fetch(String(input).replace(`${off.base}/sdk/usage`, `${usageAt}/sdk/usage`), init),
    });
    await c.ready();
    c.isEnabled('seeded', { key: 'u' });
    expect(await c.flush()).toBe(false);
    c.isEnabled('seeded', { key: 'u' });
    c.isEnabled('seeded', { key: 'u' });
    expect(await c.flush()).toBe(false);
    expect(r.sent.map((s) => s.status)).toEqual([404]);
    expect(warnings).toEqual([expect.stringContaining('usage is off on the server')]);
    // An hour later (the clock moved on), the next report goes: counted meanwhile, and accepted.
    const now = Date.now;
    vi.spyOn(Date, 'now').mockImplementation(() => now() + 3_600_001);
    usageAt = on.base;
    expect(await c.flush()).toBe(true);
    expect(r.sent.map((s) => s.status)).toEqual([404, 202]);
    expect((await totalsOf(on.base, 'seeded', KEYS.acmeProdRead)).total).toBe(2);
    await c.close();
  });

  it('retries a report a proxy answered 404 (no Flagwire answer): usage is not off', async () => {
    await t.api('POST', '/flags', { key: 'proxied', type: 'boolean' });
    const front = await notFoundFront(t.base, 1);
    onTestFinished(() => front.close());
    const r = recording();
    const c = createClient({ baseUrl: front.base, apiKey: KEYS.acmeProdRead, logger: false, fetch: r.fetch });
    await c.ready();
    for (let i = 0; i < 3; i++) c.isEnabled('proxied');
    expect(await c.flush()).toBe(false);
    expect(await c.flush()).toBe(true);
    expect(r.sent.map((s) => s.status)).toEqual([404, 202]);
    expect(r.sent[1]!.body.id).toBe(r.sent[0]!.body.id);
    expect(await rows('proxied')).toEqual({ 'off/OFF': 3 });
    await c.close();
  });

  it('stops reporting on a refused key (401), as the client stops', async () => {
    const r = recording();
    const c = client({ fetch: r.fetch, apiKey: `fw_live_${'0'.repeat(32)}` });
    await c.ready().catch(() => {});
    expect(c.status().state).toBe('failed');
    c.isEnabled('plain');
    expect(await c.flush()).toBe(false);
    c.isEnabled('plain');
    expect(await c.flush()).toBe(false);
    await c.close();
    expect(r.sent.map((s) => s.status)).toEqual([401]);
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

  it('close() after flush() still sends a last report, empty, so the server shows the client closed', async () => {
    const r = recording();
    const c = client({ fetch: r.fetch });
    await c.ready();
    await whenState(c, 'connected');
    c.isEnabled('plain');
    expect(await c.flush()).toBe(true);
    await c.close();
    expect(r.sent.map((s) => [s.status, s.body.state, (s.body.counts as unknown[]).length])).toEqual([
      [202, 'connected', 1],
      [202, 'closed', 0],
    ]);
    const { clients } = (await (await t.api('GET', '/usage/clients')).json()) as {
      clients: Array<{ instance: string; state: string }>;
    };
    expect(clients.find((x) => x.instance === r.sent[0]!.body.instance)).toMatchObject({
      state: 'closed',
      connected: false,
    });
    // A client never started has nothing to say.
    const idle = client({ fetch: r.fetch });
    await idle.close();
    expect(r.sent).toHaveLength(2);
  });

  it('splits a report over 900 KB of JSON in several, each with its own id, all counted', async () => {
    // 50 flags of 128-character keys, 100 variants of 64-character names each, a rule per
    // variant: 5,000 rows (a report's most), about 1.3 MB of JSON in one report.
    const big = await startTestServer();
    onTestFinished(() => big.close());
    const keys = Array.from({ length: 50 }, (_, i) => `big-${i}-`.padEnd(128, 'k'));
    const names = Array.from({ length: 100 }, (_, j) => `v${j}-`.padEnd(64, 'n'));
    for (const key of keys) {
      const created = await big.api('POST', '/flags', {
        key,
        type: 'string',
        variants: Object.fromEntries(names.map((n) => [n, 'x'])),
        fallthrough: { variant: names[0] },
        rules: names.map((n, j) => ({
          clauses: [{ attribute: 'n', op: 'in', values: [String(j)] }],
          serve: { variant: n },
        })),
      });
      expect(created.status).toBe(201);
      await big.api('PATCH', `/flags/${key}`, { enabled: true });
    }
    const r = recording();
    const c = createClient({ baseUrl: big.base, apiKey: KEYS.acmeProdRead, logger: false, fetch: r.fetch });
    await c.ready();
    for (const key of keys) for (let j = 0; j < 100; j++) c.getString(key, { key: 'u', n: String(j) }, 'd');
    expect(await c.flush()).toBe(true);
    expect(r.sent.length).toBeGreaterThan(1);
    expect(r.sent.map((s) => s.status)).toEqual(r.sent.map(() => 202));
    expect(Math.max(...r.sent.map((s) => s.size))).toBeLessThanOrEqual(900_000);
    expect(new Set(r.sent.map((s) => s.body.id)).size).toBe(r.sent.length);
    const counted = r.sent.flatMap((s) => s.body.counts as Array<{ count: number }>);
    expect(counted).toHaveLength(5000);
    for (const key of [keys[0]!, keys[49]!])
      expect((await totalsOf(big.base, key, KEYS.acmeProdRead)).total).toBe(100);
    await c.close();
  }, 60_000);

  it.each([
    ['Deno/2.1.4 (x86_64-unknown-linux-gnu) V8/13.0.245.12-rusty TypeScript/5.6.2', 'deno/2.1.4'],
    ['Bun/1.2.0 (Linux; ünknown)', 'bun/1.2.0'],
  ])('names the runtime by the first token of %j, as the server takes it', async (userAgent, runtime) => {
    vi.stubGlobal('navigator', { userAgent });
    onTestFinished(() => {
      vi.unstubAllGlobals();
    });
    const r = recording();
    const c = client({ fetch: r.fetch });
    await c.ready();
    c.isEnabled('plain');
    expect(await c.flush()).toBe(true);
    expect(r.sent.map((s) => [s.status, s.body.runtime])).toEqual([[202, runtime]]);
    await c.close();
  });
});

/**
 * A front as a proxy would be (an HTTP server forwarding to `target`'s origin) that answers the
 * first `notFound` usage reports itself, with an HTML `404` as nginx does for a path it does not
 * route.
 */
async function notFoundFront(target: string, notFound: number) {
  const server = createServer((req, res) => {
    if (req.method === 'POST' && req.url?.endsWith('/sdk/usage') && notFound-- > 0) {
      req.resume();
      res
        .writeHead(404, { 'content-type': 'text/html' })
        .end('<html><body><h1>404 Not Found</h1></body></html>');
      return;
    }
    const upstream = request(
      new URL(req.url!, target),
      { method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    base: `http://127.0.0.1:${port}${new URL(target).pathname}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
