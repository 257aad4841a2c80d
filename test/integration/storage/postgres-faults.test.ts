/**
 * Faults of the database under several instances (`docs/scaling.md`): an unreachable database at
 * start, Postgres stopped and started again under load, the `LISTEN` connection cut while
 * writes happen. A Postgres cluster of this file's own, since the tests stop it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FlagwireServer, type StartServerOptions, startServer } from '../../../server/index.js';
import { createClient, type FlagwireClient } from '../../../src/index.js';
import { PostgresCluster } from '../../helpers/postgres.js';
import { KEYS, startInstances } from '../../helpers/server.js';
import { openStream, type SseReader } from '../../helpers/sse.js';

const auth = { authorization: `Bearer ${KEYS.acmeProdFull}` };
const json = { ...auth, 'content-type': 'application/json' };

let cluster: PostgresCluster;
const cleanups: Array<() => unknown> = [];

beforeAll(async () => {
  cluster = await PostgresCluster.start();
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await cluster?.close();
});

async function instances(n: number, options: StartServerOptions = {}): Promise<FlagwireServer[]> {
  const databaseUrl = await cluster.createDatabase();
  const servers = await startInstances(n, databaseUrl, options);
  cleanups.push(() => Promise.all(servers.map((s) => s.close())));
  return servers;
}

function patch(server: FlagwireServer, key: string, body: unknown): Promise<Response> {
  return fetch(`${server.url}/api/v1/flags/${key}`, {
    method: 'PATCH',
    headers: json,
    body: JSON.stringify(body),
  });
}

function client(server: FlagwireServer): FlagwireClient {
  const made = createClient({ apiKey: KEYS.acmeProdRead, baseUrl: server.url });
  cleanups.push(() => made.close());
  return made;
}

describe('a database that is not there', () => {
  it('fails start-up after the bounded wait with a message naming it, never the password', async () => {
    const free = await cluster.createDatabase(); // a real URL, then its port made wrong
    const url = free.replace(`:${cluster.port}/`, ':1/');
    const error = await startServer({
      port: 0,
      logger: false,
      databaseUrl: url,
      databaseConnectTimeoutMs: 300,
    }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(
      /^cannot reach the database at 127\.0\.0\.1:1\/t_\w+ within 0\.3 s/,
    );
    expect((error as Error).message).not.toContain('flagwire-test-password');
  });
});

describe('Postgres stopped and started again under load', () => {
  it('answers 503 UNAVAILABLE meanwhile, keeps streams open, recovers by itself, and every client converges', async () => {
    const [a, b] = await instances(2);
    const clients = [client(a!), client(b!), client(b!)];
    await Promise.all(clients.map((c) => c.ready()));
    const stream = await openStream(`${b!.url}/sdk/events`, auth);
    cleanups.push(() => stream.close());
    let streamEnded = false;
    void stream.ended.then(() => {
      streamEnded = true;
    });
    // Load: a writer on each instance, until the end of the test.
    let writing = true;
    const statuses = new Set<number>();
    const writer = async (server: FlagwireServer, offset: number) => {
      for (let i = 0; writing; i++) {
        const res = await patch(server, 'seeded', { percentage: (offset + i) % 101 });
        statuses.add(res.status);
        await res.arrayBuffer();
      }
    };
    const writers = [writer(a!, 0), writer(b!, 50)];

    await cluster.stop();
    for (const server of [a!, b!]) {
      const res = await patch(server, 'seeded', { enabled: false });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(await res.json()).toEqual({ error: 'UNAVAILABLE', message: expect.any(String) });
      const read = await fetch(`${server.url}/api/v1/flags`, { headers: auth });
      expect(read.status).toBe(503);
      // The SDK's snapshot and OFREP evaluations are served from memory meanwhile.
      expect((await fetch(`${server.url}/sdk/flags`, { headers: auth })).status).toBe(200);
      const evaluated = await fetch(`${server.url}/ofrep/v1/evaluate/flags/seeded`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ context: { targetingKey: 'u' } }),
      });
      expect(evaluated.status).toBe(200);
    }
    await cluster.startServer();

    await expect.poll(async () => (await patch(a!, 'seeded', { description: 'after' })).status).toBe(200);
    await expect.poll(async () => (await patch(b!, 'seeded', { description: 'after b' })).status).toBe(200);
    writing = false;
    await Promise.all(writers);
    expect([...statuses].filter((s) => s !== 200 && s !== 503)).toEqual([]);
    expect(statuses.has(503)).toBe(true);
    expect(streamEnded).toBe(false);

    const final = await patch(a!, 'seeded', { percentage: 77, enabled: true });
    expect(final.status).toBe(200);
    // The instance that wrote it holds it already; the others follow.
    const { flags } = await (await fetch(`${a!.url}/sdk/flags`, { headers: auth })).json();
    const version = flags.seeded.version as number;
    for (const c of clients)
      await expect.poll(() => c.isEnabledDetail('seeded', { key: 'x' }).version).toBe(version);
  });
});

describe('the LISTEN connection cut while writes happen', () => {
  it('misses nothing: every change reaches the other instance, in order', async () => {
    // No safety-net timer: what the cut made B miss, only its catch-up on reconnecting brings.
    const [a, b] = await instances(2, { databaseCatchUpIntervalMs: 3_600_000 });
    const watcher: SseReader = await openStream(`${b!.url}/sdk/events`, auth);
    cleanups.push(() => watcher.close());
    const sync = JSON.parse((await watcher.next()).data);
    const writes = 40;
    const database = /\/(t_\w+)\)$/.exec(a!.storage)![1];
    const listeners = async () =>
      (
        await cluster.query(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'flagwire-listen' AND datname = current_database()",
          [],
          database,
        )
      )[0]!.n;
    for (let i = 0; i < writes; i++) {
      if (i === 10 || i === 25) {
        // Both instances' LISTEN connections are up (again), then cut, and writes go on.
        await expect.poll(listeners).toBe(2);
        const cut = await cluster.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'flagwire-listen' AND datname = current_database()",
          [],
          database,
        );
        expect(cut.length).toBe(2);
      }
      const res = await patch(a!, 'seeded', { percentage: i === 25 ? 100 : i });
      expect(res.status).toBe(200);
    }
    const versions: number[] = [];
    while (versions.length < writes)
      versions.push(JSON.parse((await watcher.next({ skipPings: true })).data).version);
    expect(versions).toEqual(Array.from({ length: writes }, (_, i) => sync.revision + 1 + i));
  });
});
