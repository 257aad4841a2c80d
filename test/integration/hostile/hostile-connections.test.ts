/**
 * Hostile suite, connections (`docs/protocol.md` §4.1): a client that sends a request
 * slowly, or not at all, is answered `408 REQUEST_TIMEOUT` and let go at its deadline, with or
 * without a key, and a flood of such connections cannot take every slot from other clients.
 * Raw sockets on 127.0.0.1 only.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';

let t: TestServer | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await t?.close();
  t = undefined;
});

/** A raw connection that records what it receives and when the server closes it. */
interface Raw {
  socket: Socket;
  received(): string;
  /** Settles with everything received once the server has ended or closed the connection. */
  closed: Promise<string>;
  isClosed(): boolean;
}

async function open(url: string, bytes = ''): Promise<Raw> {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  sockets.push(socket);
  let text = '';
  let done = false;
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    text += chunk;
  });
  socket.on('error', () => {});
  const closed = new Promise<string>((resolve) => {
    const finish = () => {
      done = true;
      resolve(text);
    };
    socket.once('end', finish);
    socket.once('close', finish);
  });
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  if (bytes) socket.write(bytes);
  return { socket, received: () => text, closed, isClosed: () => done };
}

/** The status and JSON body of one raw HTTP answer. */
function parseAnswer(text: string): { status: number; body: { error?: string; message?: string } } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
  const body = text.slice(text.indexOf('\r\n\r\n') + 4);
  return { status, body: body ? JSON.parse(body) : {} };
}

const head = (method: string, path: string, headers: string[]) =>
  `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n`;

describe('deadlines (§4.1)', () => {
  const bodyless = [
    [
      'POST /api/v1/flags with a key',
      'POST',
      '/api/v1/flags',
      [`Authorization: Bearer ${KEYS.acmeProdFull}`],
    ],
    ['POST /admin/api/session without a key', 'POST', '/admin/api/session', ['Origin: ORIGIN']],
    [
      'OFREP with a key',
      'POST',
      '/ofrep/v1/evaluate/flags/seeded',
      [`Authorization: Bearer ${KEYS.acmeProdFull}`],
    ],
    ['POST /sdk/usage with a key', 'POST', '/sdk/usage', [`Authorization: Bearer ${KEYS.acmeProdRead}`]],
    [
      'OFREP bulk with a client key',
      'POST',
      '/ofrep/v1/evaluate/flags',
      [`Authorization: Bearer ${KEYS.acmeProdRead}`],
    ],
  ] as const;

  for (const [name, method, path, auth] of bodyless) {
    for (const framing of ['Content-Length: 100', 'Transfer-Encoding: chunked']) {
      it(`a body that never comes is answered 408 and closed: ${name}, ${framing}`, async () => {
        t = await startTestServer({ headersTimeoutMs: 200, requestTimeoutMs: 400, memory: true });
        const headers = auth.map((h) => h.replace('ORIGIN', t!.server.url));
        const raw = await open(
          t.server.url,
          head(method, path, [...headers, 'Content-Type: application/json', framing]),
        );
        const answer = parseAnswer(await raw.closed);
        expect(answer.status).toBe(408);
        expect(answer.body.error).toBe('REQUEST_TIMEOUT');
        expect(typeof answer.body.message).toBe('string');
      });
    }
  }

  it('a body sent halfway is answered 408 at the request deadline', async () => {
    t = await startTestServer({ headersTimeoutMs: 200, requestTimeoutMs: 400, memory: true });
    const raw = await open(
      t.server.url,
      `${head('POST', '/api/v1/flags', [`Authorization: Bearer ${KEYS.acmeProdFull}`, 'Content-Type: application/json', 'Content-Length: 40'])}{"key":`,
    );
    expect(parseAnswer(await raw.closed).status).toBe(408);
  });

  it('headers that never end are answered 408 at the headers deadline', async () => {
    t = await startTestServer({ headersTimeoutMs: 200, requestTimeoutMs: 400, memory: true });
    const raw = await open(t.server.url, 'GET /api/v1/flags HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    const answer = parseAnswer(await raw.closed);
    expect(answer.status).toBe(408);
    expect(answer.body.error).toBe('REQUEST_TIMEOUT');
  });

  it('the deadlines are options with documented defaults, and refused when inconsistent', async () => {
    const { resolveServerOptions } = await import('../../../server/options.js');
    const resolved = resolveServerOptions({});
    expect(resolved.headersTimeoutMs).toBe(20_000);
    expect(resolved.requestTimeoutMs).toBe(30_000);
    expect(resolved.maxConnections).toBeGreaterThanOrEqual(64);
    expect(() => resolveServerOptions({ headersTimeoutMs: 5000, requestTimeoutMs: 1000 })).toThrow(
      /requestTimeoutMs/,
    );
  });
});

describe('a bound on open connections (§4.1)', () => {
  it('a flood of slow connections cannot take every slot: the oldest slow one makes way', async () => {
    const max = 64;
    t = await startTestServer({ maxConnections: max, memory: true });
    const flood: Raw[] = [];
    // Three times the bound, each with headers begun and never finished.
    for (let i = 0; i < 3 * max; i++) flood.push(await open(t.server.url, 'GET /api/v1/flags HTTP/1.1\r\n'));
    // Every newcomer past the bound took the place of the oldest: those are told and let go.
    const evicted = flood.slice(0, 2 * max);
    for (const raw of evicted) {
      const answer = parseAnswer(await raw.closed);
      expect(answer.status).toBe(408);
      expect(answer.body.error).toBe('REQUEST_TIMEOUT');
    }
    expect(flood.slice(2 * max).some((raw) => raw.isClosed())).toBe(false);
    // A legitimate client is served while the flood is held.
    const res = await t.api('GET', '/flags');
    expect(res.status).toBe(200);
    expect((await res.json()) as unknown[]).toHaveLength(1);
  });

  it('an idle keep-alive connection makes way silently, a slow body with a 408', async () => {
    t = await startTestServer({ maxConnections: 2, memory: true });
    const idle = await open(
      t.server.url,
      head('GET', '/api/v1/flags', [`Authorization: Bearer ${KEYS.acmeProdFull}`]),
    );
    await expect.poll(() => idle.received()).toMatch(/^HTTP\/1\.1 200/);
    const slowBody = await open(
      t.server.url,
      `${head('POST', '/api/v1/flags', [`Authorization: Bearer ${KEYS.acmeProdFull}`, 'Content-Type: application/json', 'Content-Length: 40'])}{"k`,
    );
    const third = await open(t.server.url);
    const idleText = await idle.closed;
    expect(idleText.match(/HTTP\/1\.1/g)).toHaveLength(1);
    const fourth = await open(t.server.url);
    const answer = parseAnswer(await slowBody.closed);
    expect(answer.status).toBe(408);
    expect(third.isClosed() || fourth.isClosed()).toBe(false);
  });

  it('when every connection is busy, a newcomer is refused 503 UNAVAILABLE with Retry-After', async () => {
    t = await startTestServer({ maxConnections: 4, memory: true });
    const streams: Raw[] = [];
    for (let i = 0; i < 4; i++) {
      const s = await open(
        t.server.url,
        head('GET', '/sdk/events', [
          `Authorization: Bearer ${KEYS.acmeProdRead}`,
          'Accept: text/event-stream',
        ]),
      );
      await expect.poll(() => s.received()).toMatch(/^HTTP\/1\.1 200/);
      streams.push(s);
    }
    const refused = await open(
      t.server.url,
      head('GET', '/api/v1/flags', [`Authorization: Bearer ${KEYS.acmeProdFull}`]),
    );
    const text = await refused.closed;
    const answer = parseAnswer(text);
    expect(answer.status).toBe(503);
    expect(answer.body.error).toBe('UNAVAILABLE');
    expect(text).toMatch(/\r\nretry-after: [1-5]\r\n/i);
    expect(streams.some((s) => s.isClosed())).toBe(false);
    // A stream ends: its slot is free again.
    streams[0]!.socket.destroy();
    await streams[0]!.closed;
    await expect
      .poll(async () => {
        const res = await fetch(`${t!.base}/flags`, {
          headers: { authorization: `Bearer ${KEYS.acmeProdFull}` },
        });
        await res.arrayBuffer();
        return res.status;
      })
      .toBe(200);
  });
});

describe('an answer before the body closes the connection (§4)', () => {
  it('OFREP 401 to a request whose body has not arrived says Connection: close', async () => {
    t = await startTestServer({ memory: true });
    const raw = await open(
      t.server.url,
      head('POST', '/ofrep/v1/evaluate/flags', ['Content-Type: application/json', 'Content-Length: 100']),
    );
    const text = await raw.closed;
    expect(text).toMatch(/^HTTP\/1\.1 401/);
    expect(text).toMatch(/\r\nconnection: close\r\n/i);
    expect(text.match(/HTTP\/1\.1/g)).toHaveLength(1);
  });
});

describe('flagwire-server --headers-timeout, --request-timeout, --max-connections (§4.1)', () => {
  it('takes the deadlines and the bound from its flags', async () => {
    const { startCli } = await import('../../helpers/cli.js');
    const run = await startCli([
      '--memory',
      '--headers-timeout',
      '0.2',
      '--request-timeout',
      '0.4',
      '--max-connections',
      '2',
    ]);
    try {
      // A request whose body never comes: answered 408 at the request deadline.
      const slow = await open(
        run.url,
        head('POST', '/api/v1/flags', [
          `Authorization: Bearer ${run.fullKey}`,
          'Content-Type: application/json',
          'Content-Length: 10',
        ]),
      );
      expect(parseAnswer(await slow.closed).status).toBe(408);
      // Two idle connections fill the bound: a third makes the oldest go.
      const first = await open(run.url);
      await open(run.url);
      await open(run.url);
      await first.closed;
    } finally {
      run.child.kill('SIGTERM');
      await run.exited;
    }
  });

  it('refuses a request timeout shorter than the headers timeout, and a bound that is not a count', async () => {
    const { spawnCli } = await import('../../helpers/cli.js');
    for (const args of [
      ['--headers-timeout', '10', '--request-timeout', '5'],
      ['--max-connections', '1.5'],
    ]) {
      const run = spawnCli(['--memory', ...args]);
      expect((await run.exited).code).toBe(1);
      expect(run.err()).toMatch(/request-timeout|max-connections/);
    }
  });
});
