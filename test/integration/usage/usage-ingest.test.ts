/**
 * Taking usage in, on a real server, each case shown failing without the code it covers:
 * marks sent together both applied in order (`docs/protocol.md` §13.7); reports waiting for a
 * stalled Postgres capped, the rest refused `503 UNAVAILABLE` with a jittered `Retry-After`, and
 * an entry bounded by rows (§13.3); a failed journal answering `503 UNAVAILABLE`, not `500`;
 * a full report under the usage route's 2 MiB body limit; `429` with a jittered `Retry-After`;
 * OFREP bulk answers counted, so a flag only a web provider reads is not `NEVER_EVALUATED` (§13.5).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { expectError } from '../../helpers/assert.js';
import { queryDatabase } from '../../helpers/postgres.js';
import {
  freshDatabase,
  KEYS,
  startTestServer,
  type TestServer,
  type TestServerOptions,
} from '../../helpers/server.js';
import { postReport, reportBody, totalsOf } from '../../helpers/usage.js';

const DAY = 24 * 60 * 60 * 1000;

async function server(options: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const t = await startTestServer(options);
  onTestFinished(() => t.close());
  return t;
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/**
 * Sends `requests` on one connection, pipelined (all written before any answer): the server
 * starts them in this order, so the second is decided while the first is being committed.
 */
function pipelined(
  url: string,
  key: string,
  requests: Array<{ method: string; path: string; body: unknown }>,
): Promise<Answer[]> {
  const { hostname, port } = new URL(url);
  const text = requests
    .map(({ method, path, body }) => {
      const json = JSON.stringify(body);
      return `${method} ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`;
    })
    .join('');
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(text));
    let buffer = Buffer.alloc(0);
    const answers: Answer[] = [];
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end === -1) return;
        const head = buffer.toString('latin1', 0, end);
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffer.length < end + 4 + length) return;
        const body = buffer.toString('utf8', end + 4, end + 4 + length);
        answers.push({
          status: Number(head.split(' ')[1]),
          body: JSON.parse(body) as Record<string, unknown>,
        });
        buffer = buffer.subarray(end + 4 + length);
        if (answers.length === requests.length) {
          socket.destroy();
          resolve(answers);
          return;
        }
      }
    });
  });
}

/**
 * A TCP gate in front of Postgres. Shut, it holds every byte, both ways; opened, it forwards what
 * it held, in order. `trap(marker)` lets bytes through until the server sends one naming
 * `marker`, then holds from there; `cut()` ends every connection. The server's storage stalls,
 * or fails, exactly where a test wants.
 */
async function gate(targetPort: number) {
  let shut = false;
  let marker: { text: string; found: () => void } | undefined;
  let held: Array<() => void> = [];
  let holding: (() => void) | undefined;
  const sockets = new Set<Socket>();
  const proxy = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    const forward = (from: Socket, to: Socket) =>
      from.on('data', (chunk: Buffer) => {
        if (marker && from === client && chunk.includes(marker.text)) {
          marker.found();
          marker = undefined;
          shut = true;
        }
        if (!shut) return void to.write(chunk);
        held.push(() => to.write(chunk));
        holding?.();
        holding = undefined;
      });
    forward(client, upstream);
    forward(upstream, client);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    port: (proxy.address() as { port: number }).port,
    /** Holds from now; resolves once it holds a byte (the server is waiting on it). */
    shut(): Promise<void> {
      shut = true;
      return new Promise((resolve) => (holding = resolve));
    },
    open() {
      shut = false;
      const release = held;
      held = [];
      for (const write of release) write();
    },
    trap(text: string): Promise<void> {
      const found = new Promise<void>((resolve) => (marker = { text, found: resolve }));
      this.open();
      return found;
    },
    cut() {
      held = [];
      shut = false;
      for (const socket of sockets) socket.destroy();
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}

/** A server on a fresh database reached through a `gate`, and the database's own URL. */
async function behindGate(options: TestServerOptions = {}) {
  const direct = await freshDatabase();
  const door = await gate(Number(new URL(direct).port));
  const databaseUrl = direct.replace(/:\d+\//, `:${door.port}/`);
  const t = await startTestServer({ ...options, databaseUrl });
  onTestFinished(async () => {
    door.open();
    await t.close();
    await door.close();
  });
  return { t, door, direct };
}

/** Resolves once `n` of `promises` settled. */
function settledCount<T>(promises: Array<Promise<T>>, n: number): Promise<void> {
  let settled = 0;
  return new Promise((resolve) => {
    for (const promise of promises)
      void promise.finally(() => {
        settled += 1;
        if (settled === n) resolve();
      });
  });
}

describe('marks sent together', () => {
  const markOf = async (t: TestServer, key: string) =>
    ((await (await t.api('GET', '/usage/flags')).json()) as Array<Record<string, unknown>>).find(
      (f) => f.key === key,
    );
  const patch = (path: string, body: unknown) => ({ method: 'PATCH', path: `/api/v1${path}`, body });

  /**
   * Sends `marks` pipelined behind a flag write that the stalled storage holds: they wait, and
   * are decided together in the next group commit, each against the ones before it.
   */
  async function together(marks: Array<{ method: string; path: string; body: unknown }>) {
    const { t, door } = await behindGate();
    await t.api('POST', '/flags', { key: 'other', type: 'boolean' });
    await t.api('POST', '/flags', { key: 'kill', type: 'boolean' });
    const held = door.shut();
    const answers = pipelined(t.server.url, KEYS.acmeProdFull, [
      patch('/flags/other', { enabled: true }),
      ...marks,
    ]);
    await held;
    door.open();
    return { t, door, answers: (await answers).slice(1) };
  }

  it('applies a mark and a snooze sent at once both, in order', async () => {
    const until = new Date(Date.now() + 10 * DAY).toISOString();
    const { t, answers } = await together([
      patch('/usage/flags/kill', { permanent: true }),
      patch('/usage/flags/kill', { snoozedUntil: until }),
    ]);
    expect(answers).toEqual([
      { status: 200, body: { key: 'kill', permanent: true, snoozedUntil: null } },
      { status: 200, body: { key: 'kill', permanent: true, snoozedUntil: until } },
    ]);
    expect(await markOf(t, 'kill')).toMatchObject({ permanent: true, snoozedUntil: until });
  });

  it('stores the value of the mark decided last, as it answered', async () => {
    const { t, answers } = await together([
      patch('/usage/flags/kill', { permanent: true }),
      patch('/usage/flags/kill', { permanent: false }),
      patch('/usage/flags/kill', { permanent: true }),
      patch('/usage/flags/kill', { permanent: false }),
    ]);
    expect(answers.map((a) => [a.status, a.body.permanent])).toEqual([
      [200, true],
      [200, false],
      [200, true],
      [200, false],
    ]);
    expect(await markOf(t, 'kill')).toMatchObject({ permanent: false, snoozedUntil: null });
  });

  it('takes marks back out of memory when their group commit fails', async () => {
    const { t, door } = await behindGate();
    await t.api('POST', '/flags', { key: 'other', type: 'boolean' });
    await t.api('POST', '/flags', { key: 'kill', type: 'boolean' });
    const held = door.shut();
    const answers = pipelined(t.server.url, KEYS.acmeProdFull, [
      patch('/flags/other', { enabled: true }),
      patch('/usage/flags/kill', { permanent: true }),
      patch('/usage/flags/kill', { snoozedUntil: new Date(Date.now() + DAY).toISOString() }),
    ]);
    await held;
    // The flag write commits; the marks' entry is held on its way to Postgres, and cut there.
    await door.trap('usage-mark');
    door.cut();
    expect((await answers).map((a) => [a.status, a.body.error])).toEqual([
      [200, undefined],
      [503, 'UNAVAILABLE'],
      [503, 'UNAVAILABLE'],
    ]);
    expect(await markOf(t, 'kill')).toMatchObject({ permanent: false, snoozedUntil: null });
  });
});

describe('reports waiting for a stalled storage', () => {
  // §13.3: at most 100,000 rows (a report: its rows, plus one) and 1,000 reports wait per
  // environment; an entry holds at most 10,000 rows.
  const WAITING_ROWS = 100_000;
  const ENTRY_ROWS = 10_000;

  it('refuses reports past the cap with 503 and a jittered Retry-After, counts the rest in bounded entries', async () => {
    const { t, door, direct } = await behindGate({ usage: { burst: 5000 } });
    await t.api('POST', '/flags', { key: 'queued', type: 'boolean' });
    const rows = 3000;
    const counts = Array.from({ length: rows }, (_, i) => ({
      key: 'queued',
      version: 1,
      variant: `v${i}`,
      reason: 'RULE_MATCH',
      count: 1,
    }));
    const sent = 40;
    const fit = Math.floor(WAITING_ROWS / (rows + 1));
    void door.shut();
    const answers = Array.from({ length: sent }, () =>
      postReport(t.base, KEYS.acmeProdRead, reportBody({ counts })),
    );
    // The storage is stalled: only the refused are answered.
    await settledCount(answers, sent - fit);
    const refused: Response[] = [];
    const waiting: Array<Promise<Response>> = [];
    for (const answer of answers) {
      const done = await Promise.race([answer, Promise.resolve(undefined)]);
      if (done) refused.push(done);
      else waiting.push(answer);
    }
    expect(waiting).toHaveLength(fit);
    for (const response of refused) {
      expect(await expectError(response, 503, 'UNAVAILABLE')).toContain('retry');
      const after = Number(response.headers.get('retry-after'));
      expect(Number.isInteger(after) && after >= 1 && after <= 5).toBe(true);
    }
    door.open();
    const accepted = await Promise.all(waiting);
    expect(accepted.map((r) => r.status)).toEqual(Array(fit).fill(202));
    expect((await totalsOf(t.base, 'queued', KEYS.acmeProdRead)).total).toBe(fit * rows);
    // Each entry holds at most 10,000 rows: three of these reports, not all of them at once.
    const entries = await queryDatabase(direct, 'SELECT ops FROM flagwire_entries');
    const usage = (entries as Array<{ ops: Array<{ t: string; reports?: Array<{ counts: unknown[] }> }> }>)
      .flatMap((e) => e.ops)
      .filter((op) => op.t === 'usage');
    const weights = usage.map((op) => op.reports!.reduce((sum, r) => sum + 1 + r.counts.length, 0));
    expect(weights.reduce((a, b) => a + b, 0)).toBe(fit * (rows + 1));
    expect(Math.max(...weights)).toBe(3 * (rows + 1));
    expect(Math.max(...weights)).toBeLessThanOrEqual(ENTRY_ROWS);
  });

  it('refuses past 1,000 waiting reports however small', async () => {
    const { t, door } = await behindGate({ usage: { burst: 5000 } });
    void door.shut();
    const sent = 1010;
    const answers = Array.from({ length: sent }, () => postReport(t.base, KEYS.acmeProdRead, reportBody()));
    await settledCount(answers, sent - 1000);
    const statuses = await Promise.all(
      answers.map(async (a) => (await Promise.race([a, Promise.resolve(undefined)]))?.status ?? 'waiting'),
    );
    expect(statuses.filter((s) => s === 503)).toHaveLength(10);
    expect(statuses.filter((s) => s === 'waiting')).toHaveLength(1000);
    door.open();
    expect(new Set((await Promise.all(answers)).map((r) => r.status))).toEqual(new Set([202, 503]));
  });
});

describe('a journal that failed', () => {
  it('answers writes and reads 503 UNAVAILABLE with {error, message}, not 500, without naming the directory', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'flagwire-failed-'));
    onTestFinished(() => rmSync(dataDir, { recursive: true, force: true }));
    const t = await server({ dataDir, compactAfterEntries: 1 });
    // A settled read answers once the start-up's compaction is over; the next one cannot write
    // its temporary file: the store fails.
    expect((await t.api('GET', '/flags')).status).toBe(200);
    mkdirSync(join(dataDir, 'snapshot.json.tmp'));
    expect((await t.api('POST', '/flags', { key: 'last-one', type: 'boolean' })).status).toBe(201);
    const write = await t.api('PATCH', '/flags/last-one', { enabled: true });
    const message = await expectError(write, 503, 'UNAVAILABLE');
    expect(write.headers.get('retry-after')).toBe('1');
    expect(message).not.toContain(dataDir);
    await expectError(await postReport(t.base, KEYS.acmeProdRead, reportBody()), 503, 'UNAVAILABLE');
    await expectError(await t.api('PATCH', '/usage/flags/last-one', { permanent: true }), 503, 'UNAVAILABLE');
    await expectError(await t.api('GET', '/flags'), 503, 'UNAVAILABLE');
  });
});

describe('body limit and rate limit of POST /sdk/usage', () => {
  it('takes a full report of the longest keys and variants, and refuses one over 2 MiB with 413', async () => {
    const t = await server();
    const key = (i: number) => `k${String(i).padStart(4, '0')}`.padEnd(128, 'x');
    const counts = Array.from({ length: 5000 }, (_, i) => ({
      key: key(i),
      version: 3,
      variant: 'v'.repeat(64),
      reason: 'RULE_MATCH',
      count: 1713,
    }));
    const body = JSON.stringify(reportBody({ counts }));
    expect(Buffer.byteLength(body)).toBeGreaterThan(1024 * 1024);
    const response = await postReport(t.base, KEYS.acmeProdRead, body);
    expect(response.status).toBe(202);
    const huge = reportBody({ padding: 'x'.repeat(2 * 1024 * 1024) });
    expect(
      await expectError(await postReport(t.base, KEYS.acmeProdRead, huge), 413, 'PAYLOAD_TOO_LARGE'),
    ).toContain('2 MiB');
  });

  it('spreads the Retry-After of 429s over 1 to 5 s', async () => {
    const t = await server({ usage: { reportsPerSecond: 1, burst: 1 } });
    const answers = await Promise.all(
      Array.from({ length: 40 }, () => postReport(t.base, KEYS.acmeProdRead, reportBody())),
    );
    const limited = answers.filter((a) => a.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(30);
    const seconds = limited.map((a) => Number(a.headers.get('retry-after')));
    for (const s of seconds) {
      expect(Number.isInteger(s)).toBe(true);
      expect(s).toBeGreaterThanOrEqual(1);
      expect(s).toBeLessThanOrEqual(5);
    }
    // 30 draws of 5 values all equal: about 1 in 10^20.
    expect(new Set(seconds).size).toBeGreaterThan(1);
  });
});

describe('OFREP bulk evaluations', () => {
  it('count each flag served, so a flag only read in bulk is evaluated and not NEVER_EVALUATED 8 days later', async () => {
    let offset = 0;
    const t = await server({ usage: { ofrepFlushIntervalMs: 20, now: () => Date.now() + offset } });
    await t.api('POST', '/flags', { key: 'web-only', type: 'boolean' });
    await t.api('PATCH', '/flags/web-only', { enabled: true });
    const bulk = (user: string, etag?: string) =>
      fetch(`${t.server.url}/ofrep/v1/evaluate/flags`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${KEYS.acmeProdRead}`,
          'content-type': 'application/json',
          ...(etag ? { 'if-none-match': etag } : {}),
        },
        body: JSON.stringify({ context: { targetingKey: user } }),
      });
    let etag = '';
    for (let i = 0; i < 200; i++) {
      const response = await bulk(`user-${i}`);
      expect(response.status).toBe(200);
      etag = response.headers.get('etag')!;
    }
    await expect
      .poll(async () => (await totalsOf(t.base, 'web-only', KEYS.acmeProdRead)).byVariant)
      .toEqual({ 'on/ON': 200 });
    const series = (await (await t.api('GET', '/usage/flags/web-only')).json()) as {
      apps: Array<{ sdk: string; count: number }>;
    };
    expect(series.apps).toEqual([{ app: null, sdk: 'ofrep', count: 200 }]);
    // A 304 answers nothing new: it counts nothing.
    expect((await bulk('user-199', etag)).status).toBe(304);
    const flags = (await (await t.api('GET', '/usage/flags')).json()) as Array<{
      key: string;
      lastEvaluatedAt: string | null;
      last24h: number[];
    }>;
    const webOnly = flags.find((f) => f.key === 'web-only')!;
    expect(webOnly.lastEvaluatedAt).toEqual(expect.any(String));
    expect(webOnly.last24h.reduce((a, b) => a + b, 0)).toBe(200);
    offset = 8 * DAY;
    const stale = (await (await t.api('GET', '/usage/stale')).json()) as { flags: Array<{ key: string }> };
    expect(stale.flags.map((f) => f.key)).not.toContain('web-only');
    expect((await totalsOf(t.base, 'web-only', KEYS.acmeProdRead, '30d')).total).toBe(200);
  });
});
