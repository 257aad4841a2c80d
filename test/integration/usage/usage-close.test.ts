/**
 * The last usage report at `close()` (`docs/protocol.md` §13.6): a report whose connection is cut
 * before the server reads it is sent again, so those evaluations are counted once; a report that
 * still cannot be delivered after the close attempts is said through the client's logger, with
 * the evaluations it held, not dropped in silence. A real reference server behind a TCP proxy on
 * 127.0.0.1 that cuts the connection carrying a usage report before forwarding a byte of it.
 */
import { connect, createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest';
import { createClient } from '../../../src/index.js';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';
import { totalsOf } from '../../helpers/usage.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t?.close());

/**
 * A proxy to the server that cuts the connection of the first `cuts` usage reports (a request
 * that starts `POST .../sdk/usage`) before a byte of them reaches the server, and forwards
 * everything else; it counts the reports it saw.
 */
async function usageCutter(cuts: number) {
  const target = Number(new URL(t.server.url).port);
  const sockets = new Set<Socket>();
  const seen = { reports: 0, cut: 0 };
  const server = createServer((client) => {
    const upstream = connect(target, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
      socket.on('error', () => socket.destroy());
    }
    upstream.pipe(client);
    // A request starts a chunk (the client sends its head in one write and waits for each answer).
    client.on('data', (chunk: Buffer) => {
      if (/^POST \S*\/sdk\/usage /.test(chunk.toString('latin1', 0, 200))) {
        seen.reports++;
        if (seen.cut < cuts) {
          seen.cut++;
          client.destroy();
          return;
        }
      }
      upstream.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as { port: number };
  return { base: `http://127.0.0.1:${port}/api/v1`, seen };
}

/** A started client through `base` that evaluates `flag` `n` times, and what it logged. */
async function evaluatingClient(base: string, flag: string, n: number) {
  const logged: Array<['warn' | 'error', string]> = [];
  const client = createClient({
    baseUrl: base,
    apiKey: KEYS.acmeProdRead,
    usage: { flushIntervalMs: 3_600_000 },
    logger: { warn: (m) => logged.push(['warn', m]), error: (m) => logged.push(['error', m]) },
  });
  await client.ready();
  for (let i = 0; i < n; i++) client.isEnabled(flag, { key: `user-${i}` });
  return { client, logged };
}

it('sends again a report whose connection was cut before the server read it: every evaluation is counted', async () => {
  await t.api('POST', '/flags', { key: 'cut-once', type: 'boolean' });
  const proxy = await usageCutter(1);
  const { client, logged } = await evaluatingClient(proxy.base, 'cut-once', 40);

  await client.close();
  expect(proxy.seen).toEqual({ reports: 2, cut: 1 });
  expect((await totalsOf(t.base, 'cut-once', KEYS.acmeProdRead)).total).toBe(40);
  expect(logged.filter(([level]) => level === 'error')).toEqual([]);
});

it('says through the logger what it could not deliver after its attempts, and still resolves', async () => {
  await t.api('POST', '/flags', { key: 'never-delivered', type: 'boolean' });
  const proxy = await usageCutter(Number.POSITIVE_INFINITY);
  const { client, logged } = await evaluatingClient(proxy.base, 'never-delivered', 25);

  await client.close();
  // The default: three attempts at close.
  expect(proxy.seen).toEqual({ reports: 3, cut: 3 });
  expect((await totalsOf(t.base, 'never-delivered', KEYS.acmeProdRead)).total).toBe(0);
  const errors = logged.filter(([level]) => level === 'error').map(([, message]) => message);
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatch(
    /^usage: 25 evaluations not delivered at close, 3 attempts failed: POST http:\/\/127\.0\.0\.1:\d+\/api\/v1\/sdk\/usage failed: /,
  );
});
