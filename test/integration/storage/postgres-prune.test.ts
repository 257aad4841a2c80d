/**
 * Retention of the Postgres log (`docs/scaling.md`, "Retention"): with a small
 * `compactAfterEntries`, flag writes and usage reports leave at most two intervals of entries per
 * scope and a restart serves everything back identical; an instance cut off from the database
 * while another writes past several snapshot intervals catches up with every write, since its
 * reported position keeps the entries it needs; one cut off for longer than positions are kept
 * finds its entries gone and refuses to answer from memory that missed them, until restarted.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { type FlagwireServer, type StartServerOptions, startServer } from '../../../server/index.js';
import { queryDatabase } from '../../helpers/postgres.js';
import { startProxy, type TestProxy } from '../../helpers/proxy.js';
import { freshDatabase, KEYS, TEST_CONFIG } from '../../helpers/server.js';
import { openStream, type SseReader } from '../../helpers/sse.js';
import { postReport, type ReportBody, reportBody } from '../../helpers/usage.js';

const INTERVAL = 5;
const SCOPE = 'acme/production';
const auth = { authorization: `Bearer ${KEYS.acmeProdFull}` };
const json = { ...auth, 'content-type': 'application/json' };

const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function start(
  databaseUrl: string,
  options: Partial<StartServerOptions> = {},
): Promise<FlagwireServer> {
  const server = await startServer({
    port: 0,
    logger: false,
    config: TEST_CONFIG,
    databaseUrl,
    compactAfterEntries: INTERVAL,
    ...options,
  });
  cleanups.push(() => server.close());
  return server;
}

function patch(server: FlagwireServer, key: string, body: unknown): Promise<Response> {
  return fetch(`${server.url}/api/v1/flags/${key}`, {
    method: 'PATCH',
    headers: json,
    body: JSON.stringify(body),
  });
}

/** One flag write and one usage report: two entries of the scope. Answers the report. */
async function writeBoth(server: FlagwireServer, i: number): Promise<ReportBody> {
  expect((await patch(server, 'seeded', { percentage: i % 101 })).status).toBe(200);
  const report = reportBody({
    counts: [{ key: 'seeded', version: 1, variant: 'on', reason: 'ROLLOUT_IN', count: i + 1 }],
  });
  expect((await postReport(`${server.url}/api/v1`, KEYS.acmeProdRead, report)).status).toBe(202);
  return report;
}

/** The scope's counter (every entry ever committed) and the entries the table still holds. */
async function logOf(databaseUrl: string): Promise<{ counter: number; seqs: number[] }> {
  const [row] = await queryDatabase<{ seq: string }>(
    databaseUrl,
    'SELECT seq FROM flagwire_scopes WHERE scope = $1',
    [SCOPE],
  );
  const rows = await queryDatabase<{ seq: string }>(
    databaseUrl,
    'SELECT seq FROM flagwire_entries WHERE scope = $1 ORDER BY seq',
    [SCOPE],
  );
  return { counter: Number(row!.seq), seqs: rows.map((r) => Number(r.seq)) };
}

/** What an instance serves of the environment: management, SDK, usage and history reads. */
async function served(server: FlagwireServer): Promise<Record<string, unknown>> {
  const get = async (path: string, headers: Record<string, string> = auth) => {
    const res = await fetch(`${server.url}${path}`, { headers });
    expect(res.status, path).toBe(200);
    return res.json();
  };
  return {
    flags: await get('/api/v1/flags'),
    sdk: await get('/sdk/flags'),
    usage: await get('/api/v1/usage/flags/seeded?range=24h'),
    // Without `at`: the time of the answer.
    clients: (await get('/api/v1/usage/clients')).clients,
    history: await get('/admin/api/environments/acme/production/history?flag=seeded&limit=1000', {
      authorization: `Bearer ${server.adminToken}`,
    }),
  };
}

/** A database URL that reaches Postgres through a proxy the test can stall and cut. */
async function proxied(databaseUrl: string): Promise<{ url: string; proxy: TestProxy }> {
  const port = new URL(databaseUrl).port;
  const proxy = await startProxy(Number(port));
  cleanups.push(() => proxy.close());
  return { url: databaseUrl.replace(`:${port}/`, `:${new URL(proxy.url).port}/`), proxy };
}

/** The versions of the next `n` flag changes a stream delivers. */
async function versions(reader: SseReader, n: number): Promise<number[]> {
  const seen: number[] = [];
  while (seen.length < n) {
    const event = await reader.next({ skipPings: true });
    expect(event.event).toBe('flags:updated');
    seen.push(JSON.parse(event.data).version);
  }
  return seen;
}

describe('the log after snapshots', () => {
  it('keeps at most two intervals of entries per scope, and a restart serves everything back identical', async () => {
    const databaseUrl = await freshDatabase();
    const first = await start(databaseUrl);
    const oldest = await writeBoth(first, 0);
    for (let i = 1; i < 40; i++) await writeBoth(first, i);
    // The last snapshot's statement deletes what it may: the newest entries stay, gap-free.
    await expect.poll(async () => (await logOf(databaseUrl)).seqs.length).toBeLessThanOrEqual(2 * INTERVAL);
    const { counter, seqs } = await logOf(databaseUrl);
    expect(counter).toBeGreaterThanOrEqual(80);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => counter - seqs.length + 1 + i));
    const [snapshot] = await queryDatabase<{ seq: string }>(
      databaseUrl,
      'SELECT seq FROM flagwire_snapshots WHERE scope = $1',
      [SCOPE],
    );
    // One whole interval is kept before the newest snapshot.
    expect(seqs[0]).toBeLessThanOrEqual(Number(snapshot!.seq) - INTERVAL + 1);

    const before = await served(first);
    await first.close();
    const second = await start(databaseUrl);
    expect(await served(second)).toEqual(before);
    expect((before.usage as { total: number }).total).toBe((40 * 41) / 2);
    // The first report's entry is long deleted; its id is still known (in the snapshot).
    const retried = await postReport(`${second.url}/api/v1`, KEYS.acmeProdRead, oldest);
    expect(await retried.json()).toEqual({ id: oldest.id, duplicate: true });
  });
});

describe('an instance cut off from the database while another writes', () => {
  it('catches up with every write, however many snapshots were taken meanwhile', async () => {
    const databaseUrl = await freshDatabase();
    const writer = await start(databaseUrl);
    const { url, proxy } = await proxied(databaseUrl);
    // No safety-net timer: B reports its position once, at start-up, and is then cut off.
    const lagging = await start(url, { databaseCatchUpIntervalMs: 3_600_000 });
    const watcher = await openStream(`${lagging.url}/sdk/events`, auth);
    cleanups.push(() => watcher.close());
    const sync = JSON.parse((await watcher.next()).data);
    const cutAt = (await logOf(databaseUrl)).counter;

    proxy.stallAll();
    for (let i = 0; i < 6 * INTERVAL; i++) await writeBoth(writer, i);
    const held = await logOf(databaseUrl);
    // Snapshots were taken far past B, and the entries after B's position are all still there.
    const [snapshot] = await queryDatabase<{ seq: string }>(
      databaseUrl,
      'SELECT seq FROM flagwire_snapshots WHERE scope = $1',
      [SCOPE],
    );
    expect(Number(snapshot!.seq) - 2 * INTERVAL).toBeGreaterThan(cutAt);
    expect(held.seqs[0]).toBeLessThanOrEqual(cutAt + 1);

    proxy.cutAll();
    // Every change, in order, none missing, then the same state as the writer.
    expect(await versions(watcher, 6 * INTERVAL)).toEqual(
      Array.from({ length: 6 * INTERVAL }, (_, i) => sync.revision + 1 + i),
    );
    expect(await served(lagging)).toEqual(await served(writer));

    // Once B is gone, nothing holds entries back: the next snapshot prunes down to two intervals.
    await lagging.close();
    for (let i = 0; i < 2 * INTERVAL; i++) await writeBoth(writer, i);
    await expect.poll(async () => (await logOf(databaseUrl)).seqs.length).toBeLessThanOrEqual(2 * INTERVAL);
  });

  it('refuses, once its entries are gone, to answer from memory that missed them; a restart serves them', async () => {
    const databaseUrl = await freshDatabase();
    const writer = await start(databaseUrl);
    const { url, proxy } = await proxied(databaseUrl);
    const warnings: string[] = [];
    const logger = { info() {}, warn: (m: string) => warnings.push(m), error() {} };
    const lagging = await start(url, { databaseCatchUpIntervalMs: 3_600_000, logger });
    await served(lagging);
    const cutAt = (await logOf(databaseUrl)).counter;

    proxy.stallAll();
    // As an instance looks that has not reported for longer than positions are kept.
    await queryDatabase(databaseUrl, "UPDATE flagwire_positions SET seen_at = now() - interval '1 day'");
    for (let i = 0; i < 6 * INTERVAL; i++) await writeBoth(writer, i);
    await expect.poll(async () => (await logOf(databaseUrl)).seqs.length).toBeLessThanOrEqual(2 * INTERVAL);
    const { seqs } = await logOf(databaseUrl);
    expect(seqs[0]).toBeGreaterThan(cutAt + 1);

    proxy.cutAll();
    const read = async () => {
      const res = await fetch(`${lagging.url}/api/v1/flags`, { headers: auth });
      return { status: res.status, body: await res.json() };
    };
    // A pooled connection the cut dropped answers 503 once; never, from here on, a 200.
    let answer = await read();
    while (answer.body.message === 'the database is unavailable; retry shortly') answer = await read();
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual({
      error: 'UNAVAILABLE',
      message: `entries of ${SCOPE} were deleted before this instance read them; it serves that scope again once restarted`,
    });
    const write = await patch(lagging, 'seeded', { percentage: 1 });
    expect(write.status).toBe(503);
    expect(warnings.filter((w) => w.includes('were deleted before this instance read them'))).toEqual([
      expect.stringMatching(
        /^entries \d+ to \d+ of acme\/production were deleted before this instance read them/,
      ),
    ]);
    // Another environment it still follows is served as usual.
    const staging = await fetch(`${lagging.url}/api/v1/flags`, {
      headers: { authorization: `Bearer ${KEYS.acmeStageFull}` },
    });
    expect(staging.status).toBe(200);

    await lagging.close();
    const restarted = await start(url);
    expect(await served(restarted)).toEqual(await served(writer));
  });
});
