/**
 * The client under network trouble (`docs/protocol.md` §5.3): server restarts, cut and
 * silently stalled connections, an unreachable server. Each test awaits convergence to the
 * server's state; none uses a timing threshold.
 */
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../../../server/index.js';
import {
  type ClientOptions,
  createClient,
  type FlagwireClient,
  type FlagwireError,
} from '../../../src/index.js';
import { startProxy, type TestProxy } from '../../helpers/proxy.js';
import { KEYS, startTestServer, TEST_CONFIG, type TestServer } from '../../helpers/server.js';
import { whenState, whenTrue } from '../../helpers/wait.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

/** Fast reconnection and a short watchdog, so the tests converge quickly. */
const FAST: Partial<ClientOptions> = {
  initialRetryDelayMs: 20,
  maxRetryDelayMs: 200,
  streamReadTimeoutMs: 400,
  timeoutMs: 2000,
  pollIntervalMs: 100,
  logger: false,
};

function client(baseUrl: string, overrides: Partial<ClientOptions> = {}): FlagwireClient {
  const c = createClient({ baseUrl, apiKey: KEYS.acmeProdRead, ...FAST, ...overrides });
  cleanups.push(() => c.close());
  return c;
}

async function server(options: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const s = await startTestServer({ pingIntervalMs: 100, ...options });
  cleanups.push(() => s.close());
  return s;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Whether the client's view of every flag equals the server's SDK snapshot. */
async function converged(s: TestServer, c: FlagwireClient): Promise<boolean> {
  const res = await fetch(`${s.base}/sdk/flags`, {
    headers: { authorization: `Bearer ${KEYS.acmeProdRead}` },
  });
  const { flags } = (await res.json()) as { flags: Record<string, unknown> };
  const sorted = (o: Record<string, unknown>) => Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1));
  return JSON.stringify(sorted(flags)) === JSON.stringify(sorted(c.allFlags()));
}

async function waitConverged(s: TestServer, c: FlagwireClient): Promise<void> {
  for (;;) {
    if (await converged(s, c)) return;
    await new Promise<void>((resolve) => {
      const off = c.on('change', () => {
        off();
        resolve();
      });
    });
  }
}

describe('client resilience', () => {
  it('resumes after the connection is cut while changes happen, missing none', async () => {
    const s = await server();
    const proxy: TestProxy = await startProxy(s.server.port);
    cleanups.push(() => proxy.close());
    const c = client(`${proxy.url}/api/v1`);
    await c.ready();
    await whenState(c, 'connected');
    for (let round = 0; round < 5; round++) {
      proxy.cutAll();
      await s.api('POST', '/flags', { key: `cut-${round}`, type: 'rollout', percentage: round * 10 });
      await s.api('PATCH', '/flags/seeded', { percentage: 40 + round });
      if (round % 2 === 1) await s.api('DELETE', `/flags/cut-${round - 1}`);
    }
    await s.api('PATCH', '/flags/cut-4', { enabled: true });
    await whenTrue(c, () => c.allFlags()['cut-4']?.enabled === true);
    expect(await converged(s, c)).toBe(true);
    expect(proxy.accepted).toBeGreaterThan(2);
  });

  it('reconnects after a silent stall (no bytes, no close) through its watchdog', async () => {
    const s = await server();
    const proxy = await startProxy(s.server.port);
    cleanups.push(() => proxy.close());
    const c = client(`${proxy.url}/api/v1`);
    await c.ready();
    await whenState(c, 'connected');
    const errors: string[] = [];
    c.on('error', (e) => errors.push(e.code));
    proxy.stallAll();
    await s.api('POST', '/flags', { key: 'after-stall', type: 'boolean' });
    await s.api('PATCH', '/flags/after-stall', { enabled: true });
    await whenTrue(c, () => c.isEnabled('after-stall', 'u'));
    expect(errors).toContain('TIMEOUT');
    await waitConverged(s, c);
  });

  it('follows the server across a restart on the same port and data dir', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'flagwire-client-'));
    const port = await freePort();
    let s = await startServer({ port, dataDir, config: TEST_CONFIG, logger: false, pingIntervalMs: 100 });
    const base = `${s.url}/api/v1`;
    const c = client(base);
    await c.ready();
    await whenState(c, 'connected');
    await s.close();
    s = await startServer({ port, dataDir, config: TEST_CONFIG, logger: false, pingIntervalMs: 100 });
    cleanups.push(() => s.close());
    await fetch(`${base}/flags`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEYS.acmeProdFull}`, 'content-type': 'application/json' },
      body: JSON.stringify({ key: 'after-restart', type: 'boolean' }),
    });
    await whenTrue(c, () => c.allFlags()['after-restart'] !== undefined);
  });

  it('takes a full sync from a memory server restarted with a new epoch', async () => {
    const port = await freePort();
    let s = await startServer({ port, config: TEST_CONFIG, logger: false, pingIntervalMs: 100 });
    const base = `${s.url}/api/v1`;
    const headers = { authorization: `Bearer ${KEYS.acmeProdFull}`, 'content-type': 'application/json' };
    await fetch(`${base}/flags`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ key: 'old-life', type: 'boolean' }),
    });
    const c = client(base);
    await c.ready();
    expect(c.allFlags()['old-life']).toBeDefined();
    await s.close();
    s = await startServer({ port, config: TEST_CONFIG, logger: false, pingIntervalMs: 100 });
    cleanups.push(() => s.close());
    await whenTrue(c, () => c.allFlags()['old-life'] === undefined);
    expect(Object.keys(c.allFlags())).toEqual(['seeded']);
  });

  it('rejects ready() with TIMEOUT when the server is unreachable, keeps trying, and gets ready when it appears', async () => {
    const port = await freePort();
    const c = client(`http://127.0.0.1:${port}/api/v1`);
    await expect(c.ready({ timeoutMs: 150 })).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(c.status()).toMatchObject({
      ready: false,
      lastError: expect.objectContaining({ code: 'NETWORK_ERROR' }),
    });
    const s = await startServer({ port, config: TEST_CONFIG, logger: false });
    cleanups.push(() => s.close());
    await c.ready();
    expect(c.allFlags().seeded).toBeDefined();
  });

  it('polls while the stream cannot be held, and returns to the stream', async () => {
    const s = await server();
    // The first stream attempts fail at once; snapshots still load.
    let streamAttempts = 0;
    const c = client(`${s.base}`, {
      fetch: (input, init) => {
        const url = String(input);
        if (url.includes('/sdk/events')) {
          streamAttempts++;
          if (streamAttempts <= 3) return Promise.reject(new TypeError('connection refused'));
        }
        return fetch(input, init);
      },
    });
    await c.ready();
    await whenState(c, 'polling');
    await whenState(c, 'connected');
    expect(streamAttempts).toBeGreaterThan(3);
  });

  it("backs off by the server's Retry-After when it sheds streams, and keeps its flags meanwhile", async () => {
    const s = await server({ maxStreams: 1 });
    const first = client(s.base);
    await first.ready();
    await whenState(first, 'connected');
    const second = client(s.base);
    const refused = new Promise<FlagwireError>((resolve) =>
      second.on('error', (e) => {
        if (e.status === 503) resolve(e);
      }),
    );
    await second.ready();
    const error = await refused;
    expect(error.retryAfterMs).toBeGreaterThanOrEqual(1000);
    expect(second.allFlags().seeded).toBeDefined();
  });
});
