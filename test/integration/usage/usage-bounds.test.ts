/**
 * What usage reports can make the server keep (`docs/protocol.md` §13.2, §13.4), on a real
 * server, on the journal (and on Postgres with FLAGWIRE_TEST_STORE=postgres): a read-only key's
 * flood of junk keys, versions, apps and sdks stays within the caps while a flag's counts stay
 * exact; one report from a clock three years ahead ages nothing out, keeps ids remembered and
 * leaves nothing in the future; OFREP's unknown keys have a budget of their own; unknown keys that
 * are no flag key are only counted; counts stop at 2^53 - 1; a snapshot written before these
 * bounds still loads. What the server keeps is counted in the state a restart rebuilds (the
 * storage loaded as the server loads it), not in the heap.
 */
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveServerOptions, type StartServerOptions } from '../../../server/options.js';
import { openStorage } from '../../../server/set-up.js';
import { restoreState } from '../../../server/state/domains.js';
import type { Environment } from '../../../server/state/kernel/model.js';
import { USAGE_LIMITS } from '../../../server/state/usage/model.js';
import {
  freshDatabase,
  KEYS,
  startTestServer,
  TEST_STORE,
  type TestServer,
  type TestServerOptions,
} from '../../helpers/server.js';
import { postReport, randomId, reportBody, totalsOf } from '../../helpers/usage.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** A fixed usage clock, half past an hour, so that no run straddles two hours. */
const T0 = Date.UTC(2030, 0, 1, 10, 30);

const row = (key: string, version: number, variant: string | null, reason: string, count: number) => ({
  key,
  version,
  variant,
  reason,
  count,
});

/** Options that keep the data, on the store of this run. */
async function durable(): Promise<TestServerOptions> {
  return TEST_STORE === 'postgres'
    ? { databaseUrl: await freshDatabase() }
    : { dataDir: mkdtempSync(join(tmpdir(), 'flagwire-usage-bounds-')) };
}

/** acme/production as a restart rebuilds it from `options`' storage (the server closed). */
async function storedEnvironment(options: TestServerOptions): Promise<Environment> {
  const resolved = resolveServerOptions({ ...(options as StartServerOptions), logger: false });
  const storage = await openStorage(resolved);
  try {
    const state = restoreState(await storage.load(), resolved.historyLimit);
    return [...state.values()].find((e) => e.project === 'acme' && e.environment === 'production')!;
  } finally {
    await storage.close();
  }
}

/** Everything the environment's usage holds, entry by entry. */
function entriesOf(env: Environment) {
  const usage = env.usage!;
  let hourRows = 0;
  for (const rows of usage.hours.values()) hourRows += rows.size;
  let dayRows = 0;
  for (const rows of usage.days.values()) dayRows += rows.size;
  return {
    hourRows,
    dayRows,
    last: usage.last.size,
    unknown: usage.unknown.size,
    clients: usage.clients.size,
    ids: usage.ids.size,
  };
}

const send = (t: TestServer, fields: Parameters<typeof reportBody>[0]) =>
  postReport(t.base, KEYS.acmeProdRead, reportBody(fields));

/** A flag's version as the SDK endpoint serves it (§5.1). */
const versionOf = async (t: TestServer, key: string) =>
  (
    (await (await t.api('GET', '/sdk/flags?capabilities=targeting')).json()) as {
      flags: Record<string, { version: number }>;
    }
  ).flags[key]!.version;

describe('a flood from a read-only key', () => {
  it('keeps rows only for flags, within the caps, and a flag counted exactly', async () => {
    const store = await durable();
    const options = { ...store, usage: { now: () => T0 } };
    const t = await startTestServer(options);
    let sent = 0;
    try {
      await t.api('POST', '/flags', { key: 'real', type: 'boolean' });
      const version = await versionOf(t, 'real');
      // A key an SDK keeps evaluating that is no flag: counted often, so no flood of keys
      // evaluated once pushes it out.
      expect((await send(t, { counts: [row('legacy-key', 3, 'on', 'ON', 50)] })).status).toBe(202);
      for (let i = 0; i < 40; i++) {
        const counts = [
          row('real', version, 'on', 'ON', 3),
          row('real', version + 1000 + i, 'off', 'OFF', 2),
        ];
        for (let j = 0; j < 4_998; j++) counts.push(row(`junk-${i}-${j}`, 1 + (j % 7), 'on', 'ON', 1));
        const response = await send(t, { counts });
        expect(response.status).toBe(202);
        sent += 5;
      }
      // Apps and SDKs past the hour's 50 pairs: their rows are not kept, only counted as dropped.
      for (let i = 0; i < 60; i++) {
        const fields = { sdk: { name: `sdk-${i}`, version: '1' }, app: { name: `app-${i}` } };
        expect((await send(t, { ...fields, counts: [row('real', version, 'on', 'ON', 1)] })).status).toBe(
          202,
        );
      }
      const series = (await (await t.api('GET', '/usage/flags/real')).json()) as {
        total: number;
        apps: Array<{ app: string | null; sdk: string; count: number }>;
        series: Array<{ variant: string; points: number[] }>;
      };
      expect(series.apps).toHaveLength(USAGE_LIMITS.appsPerHour);
      // The app that reported first is counted exactly, versions ahead of the flag's included.
      expect(series.apps.find((a) => a.app === 'checkout')).toEqual({
        app: 'checkout',
        sdk: 'flagwire-js',
        count: sent,
      });
      expect(series.total).toBe(sent + USAGE_LIMITS.appsPerHour - 1);
      const unknown = (await (await t.api('GET', '/usage/unknown')).json()) as Array<{
        key: string;
        count: number;
      }>;
      expect(unknown.find((u) => u.key === 'legacy-key')).toMatchObject({ count: 50 });
      expect(unknown.length).toBeLessThanOrEqual(USAGE_LIMITS.unknownKeys);
      // A junk key is no flag: no series of its own.
      expect((await t.api('GET', '/usage/flags/junk-0-0')).status).toBe(404);
    } finally {
      await t.close();
    }
    const env = await storedEnvironment(options);
    const entries = entriesOf(env);
    // 40 x 5,000 keys sent; kept: the flag's rows (2 of its first app, 1 per further app up to
    // the cap), the unknown keys' cap, 101 clients and ids.
    expect(entries).toEqual({
      hourRows: 2 + USAGE_LIMITS.appsPerHour - 1,
      dayRows: 0,
      last: 1,
      unknown: USAGE_LIMITS.unknownKeys,
      clients: 101,
      ids: 101,
    });
    const rows = [...env.usage!.hours.values()].flatMap((r) => [...r.values()]);
    const version = env.flags.get('real')!.version;
    expect(rows.every((r) => r.key === 'real' && r.version === version)).toBe(true);
    expect(env.usage!.dropped).toBe(60 + 1 - USAGE_LIMITS.appsPerHour);
  });
});

describe('a report from a clock far ahead', () => {
  it('ages nothing out, keeps ids remembered, and leaves nothing in the future', async () => {
    const store = await durable();
    let offset = 0;
    const options = { ...store, usage: { now: () => T0 + offset } };
    const t = await startTestServer(options);
    const instances: string[] = [];
    const check = async (server: TestServer) => {
      const now = T0 + offset;
      const totals = await totalsOf(server.base, 'steady', KEYS.acmeProdRead, '90d');
      // 20 before, 1 from the clock ahead (moved back to now), 2 after.
      expect(totals.total).toBe(23);
      expect(Date.parse(totals.lastEvaluatedAt!)).toBeLessThanOrEqual(now);
      expect(Date.parse(totals.lastEvaluatedAt!)).toBeGreaterThanOrEqual(T0);
      const { clients } = (await (await server.api('GET', '/usage/clients')).json()) as {
        clients: Array<{ instance: string; lastSeenAt: string }>;
      };
      expect(clients.map((c) => c.instance)).toEqual(expect.arrayContaining(instances));
      for (const client of clients) expect(Date.parse(client.lastSeenAt)).toBeLessThanOrEqual(now);
    };
    try {
      await t.api('POST', '/flags', { key: 'steady', type: 'boolean' });
      const version = await versionOf(t, 'steady');
      const bodies = [1, 2, 3, 4].map(() =>
        reportBody({ counts: [row('steady', version, 'off', 'OFF', 5)] }),
      );
      for (const body of bodies) {
        instances.push(body.instance);
        expect((await postReport(t.base, KEYS.acmeProdRead, body)).status).toBe(202);
      }
      offset = 3 * 365 * DAY;
      expect((await send(t, { counts: [row('steady', version, 'off', 'OFF', 1)] })).status).toBe(202);
      offset = MINUTE;
      const retry = await postReport(t.base, KEYS.acmeProdRead, bodies[0]);
      expect(await retry.json()).toEqual({ id: bodies[0]!.id, duplicate: true });
      expect((await send(t, { counts: [row('steady', version, 'off', 'OFF', 2)] })).status).toBe(202);
      await check(t);
    } finally {
      await t.close();
    }
    const again = await startTestServer(options);
    try {
      await check(again);
    } finally {
      await again.close();
    }
  });

  it('is believed once reports keep coming at that time: then old hours roll up', async () => {
    const store = await durable();
    let offset = 0;
    const options = { ...store, usage: { now: () => T0 + offset } };
    const t = await startTestServer(options);
    try {
      await t.api('POST', '/flags', { key: 'later', type: 'boolean' });
      const version = await versionOf(t, 'later');
      const count = (n: number) => send(t, { counts: [row('later', version, 'on', 'ON', n)] });
      expect((await count(100)).status).toBe(202);
      // 40 days without reports, then reports for 11 minutes.
      for (const minutes of [0, 5, 11]) {
        offset = 40 * DAY + minutes * MINUTE;
        expect((await count(1)).status).toBe(202);
      }
      expect((await totalsOf(t.base, 'later', KEYS.acmeProdRead, '90d')).total).toBe(103);
      expect((await totalsOf(t.base, 'later', KEYS.acmeProdRead, '7d')).total).toBe(3);
    } finally {
      await t.close();
    }
    const usage = (await storedEnvironment(options)).usage!;
    expect(usage.clock).toBe(T0 + 40 * DAY + 11 * MINUTE);
    // The first hour, past its 35 days, is a day now.
    expect([...usage.days.values()].flatMap((rows) => [...rows.values()].map((r) => r.count))).toEqual([100]);
  });
});

describe('unknown keys', () => {
  it("OFREP's have a budget of their own: an SDK's report of a deleted flag is still listed", async () => {
    const t = await startTestServer({ usage: { ofrepFlushIntervalMs: 20 } });
    try {
      await t.api('POST', '/flags', { key: 'retired', type: 'boolean' });
      expect((await t.api('DELETE', '/flags/retired')).status).toBe(204);
      await t.api('POST', '/flags', { key: 'marker', type: 'boolean' });
      const evaluate = async (key: string) => {
        const response = await fetch(`${t.server.url}/ofrep/v1/evaluate/flags/${key}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${KEYS.acmeProdRead}`, 'content-type': 'application/json' },
          body: JSON.stringify({ context: { targetingKey: 'u1' } }),
        });
        await response.arrayBuffer();
        return response.status;
      };
      for (let i = 0; i < 1_100; i++) expect(await evaluate(randomId('k'))).toBe(404);
      // Counted after every random key, so committed after them (OFREP's reports go in order).
      expect(await evaluate('marker')).toBe(200);
      await expect.poll(async () => (await totalsOf(t.base, 'marker', KEYS.acmeProdRead)).total).toBe(1);
      const listed = async () =>
        (await (await t.api('GET', '/usage/unknown')).json()) as Array<{
          key: string;
          deletedAt: string | null;
        }>;
      expect(await listed()).toHaveLength(USAGE_LIMITS.ofrepUnknownKeys);
      expect((await send(t, { unknown: [{ key: 'retired', count: 1 }] })).status).toBe(202);
      const keys = await listed();
      expect(keys.find((k) => k.key === 'retired')).toMatchObject({ deletedAt: expect.any(String) });
      expect(keys).toHaveLength(USAGE_LIMITS.ofrepUnknownKeys + 1);
    } finally {
      await t.close();
    }
  });

  it('keeps only flag keys: the others are counted in unknownDropped', async () => {
    const store = await durable();
    const t = await startTestServer(store);
    try {
      const unknown = [
        { key: 'beta-jane@example.com', count: 4 },
        { key: 'has space', count: 1 },
        { key: 'k'.repeat(129), count: 2 },
        { key: 'fine-key', count: 1 },
      ];
      expect((await send(t, { unknown, unknownDropped: 5 })).status).toBe(202);
      const listed = (await (await t.api('GET', '/usage/unknown')).json()) as Array<{ key: string }>;
      expect(listed.map((k) => k.key)).toEqual(['fine-key']);
    } finally {
      await t.close();
    }
    expect((await storedEnvironment(store)).usage!.unknownDropped).toBe(4 + 1 + 2 + 5);
  });
});

it('adds counts up to 2^53 - 1, no further', async () => {
  const t = await startTestServer();
  try {
    await t.api('POST', '/flags', { key: 'big', type: 'boolean' });
    const version = await versionOf(t, 'big');
    for (let i = 0; i < 2; i++)
      expect(
        (await send(t, { counts: [row('big', version, 'off', 'OFF', Number.MAX_SAFE_INTEGER)] })).status,
      ).toBe(202);
    expect((await totalsOf(t.base, 'big', KEYS.acmeProdRead)).total).toBe(Number.MAX_SAFE_INTEGER);
  } finally {
    await t.close();
  }
});

it('loads usage from a snapshot written before these bounds, and counts on', async () => {
  // Written by the server as it was: a flag "kept" counted 7 times, an unknown key, a client, a mark.
  const dataDir = mkdtempSync(join(tmpdir(), 'flagwire-usage-old-'));
  copyFileSync(
    new URL('../../fixtures/usage-snapshot-before-bounds.json', import.meta.url),
    join(dataDir, 'snapshot.json'),
  );
  const options = { dataDir, usage: { now: () => T0 + MINUTE } };
  const check = async (t: TestServer, total: number) => {
    expect((await totalsOf(t.base, 'kept', KEYS.acmeProdRead)).total).toBe(total);
    expect(await (await t.api('GET', '/usage/unknown')).json()).toEqual([
      expect.objectContaining({ key: 'old-key', count: 3 }),
    ]);
    const { clients } = (await (await t.api('GET', '/usage/clients')).json()) as {
      clients: Array<{ instance: string }>;
    };
    expect(clients.map((c) => c.instance)).toContain('i_fixtureclient000000001');
  };
  const t = await startTestServer(options);
  try {
    await check(t, 7);
    const retry = reportBody({ id: 'u_fixturereport00000000001', counts: [row('kept', 2, 'off', 'OFF', 7)] });
    expect(await (await postReport(t.base, KEYS.acmeProdRead, retry)).json()).toMatchObject({
      duplicate: true,
    });
    expect((await send(t, { counts: [row('kept', 2, 'off', 'OFF', 1)] })).status).toBe(202);
    await check(t, 8);
  } finally {
    await t.close();
  }
  const again = await startTestServer(options);
  try {
    await check(again, 8);
  } finally {
    await again.close();
  }
});
