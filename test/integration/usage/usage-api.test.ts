/**
 * Usage reports on a real server (`docs/protocol.md` §13.1-§13.5), on the journal and, in the
 * postgres project, on Postgres: 202 once durable, a retried id counted once, 400 naming the
 * JSON path, 413, 429 with Retry-After, 404 when usage is off, 403 for a client key, exact sums
 * from concurrent reporters, counts and marks kept across a restart, hourly rows rolled up into
 * daily ones, OFREP's own counts, and the same id sent to two instances at once counted once.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlagwireConfig } from '../../../server/index.js';
import { FLAGWIRE_VERSION } from '../../../src/core/version.js';
import { adminCaller } from '../../helpers/admin.js';
import { expectError } from '../../helpers/assert.js';
import {
  freshDatabase,
  KEYS,
  startInstances,
  startTestServer,
  TEST_CONFIG,
  TEST_STORE,
  type TestServer,
  type TestServerOptions,
} from '../../helpers/server.js';
import { postReport, randomId, reportBody, totalsOf } from '../../helpers/usage.js';

const DAY = 24 * 60 * 60 * 1000;

/** Options that keep the data across a restart, on the store of this run. */
async function durable(): Promise<TestServerOptions> {
  return TEST_STORE === 'postgres'
    ? { databaseUrl: await freshDatabase() }
    : { dataDir: mkdtempSync(join(tmpdir(), 'flagwire-usage-')) };
}

const row = (key: string, version: number, variant: string | null, reason: string, count: number) => ({
  key,
  version,
  variant,
  reason,
  count,
});

describe('POST /sdk/usage', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
    await t.api('POST', '/flags', { key: 'counted', type: 'boolean' });
  });
  afterAll(() => t?.close());

  it('answers 202 once counted, at both addresses, with a read-only key', async () => {
    const body = reportBody({ counts: [row('counted', 1, 'off', 'OFF', 5)] });
    const response = await postReport(t.base, KEYS.acmeProdRead, body);
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ id: body.id, duplicate: false });
    const root = await postReport(
      t.server.url,
      KEYS.acmeProdFull,
      reportBody({ counts: [row('counted', 1, 'off', 'OFF', 2)] }),
    );
    expect(root.status).toBe(202);
    expect((await totalsOf(t.base, 'counted', KEYS.acmeProdRead)).byVariant).toEqual({ 'off/OFF': 7 });
  });

  it('counts a retried id once, and says it was a duplicate', async () => {
    const body = reportBody({ counts: [row('counted', 1, 'on', 'ON', 11)] });
    const before = (await totalsOf(t.base, 'counted', KEYS.acmeProdRead)).byVariant['on/ON'] ?? 0;
    const answers = await Promise.all([1, 2, 3].map(() => postReport(t.base, KEYS.acmeProdRead, body)));
    const bodies = await Promise.all(answers.map((a) => a.json() as Promise<{ duplicate: boolean }>));
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202]);
    expect(bodies.filter((b) => !b.duplicate)).toHaveLength(1);
    const again = await postReport(t.base, KEYS.acmeProdRead, body);
    expect(await again.json()).toEqual({ id: body.id, duplicate: true });
    expect((await totalsOf(t.base, 'counted', KEYS.acmeProdRead)).byVariant['on/ON']).toBe(before + 11);
  });

  it.each([
    [{ id: 'short' }, 'id: must be 16 to 64 of [A-Za-z0-9_-]'],
    [{ sdk: { name: 'flagwire js', version: '1' } }, 'sdk.name'],
    [{ state: 'asleep' }, 'state: must be one of'],
    [{ window: { start: 5, end: 4 } }, 'window.end'],
    [{ counts: [row('counted', 1, 'on', 'ON', 1), row('counted', 1, 'on', 'ON', 0)] }, 'counts[1].count'],
    [{ counts: [row('counted', 1, 'on', 'MAYBE', 1)] }, 'counts[0].reason'],
    [{ counts: [row('no spaces', 1, 'on', 'ON', 1)] }, 'counts[0].key'],
    [{ unknown: [{ key: '', count: 1 }] }, 'unknown[0].key'],
    [{ app: { name: 'tab\there' } }, 'app.name'],
  ])('refuses %j with 400 naming the JSON path, and counts none of it', async (fields, path) => {
    const body = reportBody({ counts: [row('counted', 1, 'on', 'FALLTHROUGH', 1)], ...fields });
    const response = await postReport(t.base, KEYS.acmeProdRead, body);
    expect(await expectError(response, 400, 'VALIDATION_ERROR')).toContain(path);
    expect(
      (await totalsOf(t.base, 'counted', KEYS.acmeProdRead)).byVariant['on/FALLTHROUGH'],
    ).toBeUndefined();
  });

  it('ignores fields it does not know (a newer SDK)', async () => {
    const body = reportBody({ counts: [row('counted', 1, 'off', 'OFF', 1)], futureField: { x: 1 } });
    expect((await postReport(t.base, KEYS.acmeProdRead, body)).status).toBe(202);
  });

  it('answers 413 for a body over 2 MiB and 400 for JSON that is not a report', async () => {
    const huge = reportBody({ padding: 'x'.repeat(2 * 1024 * 1024) });
    await expectError(await postReport(t.base, KEYS.acmeProdRead, huge), 413, 'PAYLOAD_TOO_LARGE');
    await expectError(await postReport(t.base, KEYS.acmeProdRead, '[1,2]'), 400, 'VALIDATION_ERROR');
    await expectError(await postReport(t.base, KEYS.acmeProdRead, '{"id":'), 400, 'INVALID_JSON');
  });

  it('keeps clients with what they hold, and unknown keys', async () => {
    const instance = randomId('i_');
    const snapshot = (await (await t.api('GET', '/sdk/flags')).json()) as { eventId: string; epoch: string };
    const held = `${snapshot.epoch}:1`;
    const body = reportBody({ instance, eventId: held, unknown: [{ key: 'ghost', count: 4 }] });
    expect((await postReport(t.base, KEYS.acmeProdRead, body)).status).toBe(202);
    const { clients, revision } = (await (await t.api('GET', '/usage/clients')).json()) as {
      clients: Array<Record<string, unknown>>;
      revision: number;
    };
    expect(clients.find((c) => c.instance === instance)).toMatchObject({
      sdk: { name: 'flagwire-js', version: '0.1.0' },
      app: { name: 'checkout', version: '1.0.0' },
      eventId: held,
      revision: 1,
      behind: revision - 1,
      state: 'connected',
      connected: true,
    });
    expect(await (await t.api('GET', '/usage/unknown')).json()).toContainEqual(
      expect.objectContaining({ key: 'ghost', count: 4, deletedAt: null }),
    );
  });

  it('adds up exactly what several concurrent reporters sent, retries included', async () => {
    await t.api('POST', '/flags', { key: 'busy', type: 'rollout', percentage: 50 });
    const reporters = 8;
    const reportsEach = 25;
    let expected = 0;
    const sends: Promise<Response>[] = [];
    for (let r = 0; r < reporters; r++) {
      for (let i = 0; i < reportsEach; i++) {
        const count = 1 + ((r * 31 + i * 17) % 97);
        expected += count;
        const body = reportBody({ counts: [row('busy', 2, 'on', 'ROLLOUT_IN', count)] });
        sends.push(postReport(t.base, KEYS.acmeProdRead, body));
        // Every fifth report is sent twice at once, as a retry racing its first attempt.
        if (i % 5 === 0) sends.push(postReport(t.base, KEYS.acmeProdRead, body));
      }
    }
    const statuses = (await Promise.all(sends)).map((r) => r.status);
    expect(new Set(statuses)).toEqual(new Set([202]));
    expect(await totalsOf(t.base, 'busy', KEYS.acmeProdRead)).toMatchObject({ total: expected });
  });
});

describe('switches and credentials', () => {
  it('answers 404 on every usage path with usage off', async () => {
    const t = await startTestServer({ usage: false });
    try {
      const body = reportBody();
      await expectError(await postReport(t.base, KEYS.acmeProdRead, body), 404, 'NOT_FOUND');
      await expectError(await postReport(t.server.url, KEYS.acmeProdRead, body), 404, 'NOT_FOUND');
      for (const path of [
        '/usage/stale',
        '/usage/flags',
        '/usage/clients',
        '/usage/unknown',
        '/usage/flags/seeded',
      ])
        await expectError(await t.api('GET', path), 404, 'NOT_FOUND');
    } finally {
      await t.close();
    }
  });

  it("tells the dashboard usage is off with usage: false on the admin API's usage paths, and only then", async () => {
    const off = await startTestServer({ usage: false });
    const on = await startTestServer();
    try {
      const offAdmin = await adminCaller(off.server);
      const env = '/environments/acme/production';
      const bodyOf = async (res: Response) => {
        expect(res.status).toBe(404);
        return (await res.json()) as Record<string, unknown>;
      };
      for (const [method, path] of [
        ['GET', '/usage/flags'],
        ['GET', '/usage/flags/seeded?range=7d'],
        ['PATCH', '/usage/flags/seeded'],
        ['GET', '/usage/clients'],
        ['GET', '/usage/unknown'],
        ['GET', '/usage/stale'],
      ] as const) {
        const body = method === 'PATCH' ? { permanent: true } : undefined;
        expect(await bodyOf(await offAdmin.call(method, `${env}${path}`, body))).toEqual({
          error: 'NOT_FOUND',
          message: expect.stringContaining('usage is off'),
          usage: false,
        });
      }
      // Other 404s are not "usage off": an unknown environment, an unknown admin route, a key
      // that is neither a flag nor reported on a server that keeps usage.
      expect(
        await bodyOf(await offAdmin.call('GET', '/environments/acme/nowhere/usage/flags')),
      ).not.toHaveProperty('usage');
      expect(await bodyOf(await offAdmin.call('GET', `${env}/usage/nothing`))).not.toHaveProperty('usage');
      const onAdmin = await adminCaller(on.server);
      expect(await bodyOf(await onAdmin.call('GET', `${env}/usage/flags/never-reported`))).not.toHaveProperty(
        'usage',
      );
      expect((await onAdmin.call('GET', `${env}/usage/flags`)).status).toBe(200);
    } finally {
      await off.close();
      await on.close();
    }
  });

  it('refuses a client key with 403 and a missing key with 401', async () => {
    const clientKey = 'fw_live_AcmeProdClient000000000000000000';
    const config: FlagwireConfig = structuredClone(TEST_CONFIG);
    config.projects[0]!.environments[0]!.apiKeys!.push({ key: clientKey, access: 'client' });
    const t = await startTestServer({ config });
    try {
      await expectError(await postReport(t.base, clientKey, reportBody()), 403, 'FORBIDDEN');
      await expectError(await postReport(t.base, 'fw_live_nope', reportBody()), 401, 'UNAUTHORIZED');
      await expectError(await t.api('GET', '/usage/stale', undefined, clientKey), 403, 'FORBIDDEN');
    } finally {
      await t.close();
    }
  });

  it("answers 429 with Retry-After past the key's rate, per key, and counts nothing refused", async () => {
    const t = await startTestServer({ usage: { reportsPerSecond: 0.001, burst: 3 } });
    try {
      await t.api('POST', '/flags', { key: 'limited', type: 'boolean' });
      const send = (key: string) =>
        postReport(t.base, key, reportBody({ counts: [row('limited', 1, 'off', 'OFF', 1)] }));
      for (let i = 0; i < 3; i++) expect((await send(KEYS.acmeProdRead)).status).toBe(202);
      const refused = await send(KEYS.acmeProdRead);
      await expectError(refused, 429, 'RATE_LIMITED');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // Another key of the environment has a bucket of its own.
      expect((await send(KEYS.acmeProdFull)).status).toBe(202);
      expect((await totalsOf(t.base, 'limited', KEYS.acmeProdRead)).total).toBe(4);
    } finally {
      await t.close();
    }
  });
});

describe('durability and rollup', () => {
  it('keeps counts, ids, clients and marks across a restart', async () => {
    const store = await durable();
    const a = await startTestServer(store);
    await a.api('POST', '/flags', { key: 'kept', type: 'boolean' });
    const body = reportBody({ counts: [row('kept', 1, 'off', 'OFF', 41)] });
    expect((await postReport(a.base, KEYS.acmeProdRead, body)).status).toBe(202);
    expect((await a.api('PATCH', '/usage/flags/kept', { permanent: true })).status).toBe(200);
    await a.close();
    const b = await startTestServer(store);
    try {
      expect(await totalsOf(b.base, 'kept', KEYS.acmeProdRead)).toMatchObject({ total: 41 });
      // The id is remembered: the SDK's retry after the restart adds nothing.
      expect(await (await postReport(b.base, KEYS.acmeProdRead, body)).json()).toEqual({
        id: body.id,
        duplicate: true,
      });
      expect(await totalsOf(b.base, 'kept', KEYS.acmeProdRead)).toMatchObject({ total: 41 });
      const flags = (await (await b.api('GET', '/usage/flags')).json()) as Array<{
        key: string;
        permanent: boolean;
      }>;
      expect(flags.find((f) => f.key === 'kept')).toMatchObject({ permanent: true });
      const { clients } = (await (await b.api('GET', '/usage/clients')).json()) as {
        clients: Array<{ instance: string }>;
      };
      expect(clients.map((c) => c.instance)).toContain(body.instance);
    } finally {
      await b.close();
    }
  });

  it('rolls hourly rows older than 35 days into daily rows, the same after a restart', async () => {
    let offset = 0;
    const store = await durable();
    const options = { ...store, usage: { now: () => Date.now() + offset } };
    const a = await startTestServer(options);
    await a.api('POST', '/flags', { key: 'old', type: 'boolean' });
    const send = (server: TestServer, count: number) =>
      postReport(
        server.base,
        KEYS.acmeProdRead,
        reportBody({ counts: [row('old', 1, 'off', 'OFF', count)] }),
      );
    expect((await send(a, 100)).status).toBe(202);
    expect((await send(a, 23)).status).toBe(202);
    offset = 40 * DAY;
    // A report 40 days later moves the environment's clock: the old hour is past its retention.
    expect((await send(a, 1)).status).toBe(202);
    const check = async (server: TestServer) => {
      // The hourly view of the last 7 days holds only the new report...
      expect(await totalsOf(server.base, 'old', KEYS.acmeProdRead, '7d')).toMatchObject({ total: 1 });
      // ...the daily view of 90 days the rolled-up day too, summed exactly.
      const days = await totalsOf(server.base, 'old', KEYS.acmeProdRead, '90d');
      expect(days.total).toBe(124);
      const series = (await (await server.api('GET', '/usage/flags/old?range=90d')).json()) as {
        step: string;
        series: Array<{ points: number[] }>;
      };
      expect(series.step).toBe('day');
      expect(series.series[0]!.points.filter((p) => p > 0)).toEqual([123, 1]);
    };
    await check(a);
    await a.close();
    const b = await startTestServer(options);
    try {
      await check(b);
    } finally {
      await b.close();
    }
  });
});

it("names the package version in reports (FLAGWIRE_VERSION is package.json's)", () => {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  expect(FLAGWIRE_VERSION).toBe(pkg.version);
});

describe('OFREP counts', () => {
  it('counts single-flag and bulk evaluations under SDK ofrep, with Flagwire reasons', async () => {
    const t = await startTestServer({ usage: { ofrepFlushIntervalMs: 20 } });
    try {
      await t.api('POST', '/flags', { key: 'remote', type: 'boolean' });
      await t.api('PATCH', '/flags/remote', { enabled: true });
      const evaluate = (path: string) =>
        fetch(`${t.server.url}/ofrep/v1/evaluate/flags${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${KEYS.acmeProdRead}`, 'content-type': 'application/json' },
          body: JSON.stringify({ context: { targetingKey: 'u1' } }),
        });
      for (let i = 0; i < 3; i++) expect((await evaluate('/remote')).status).toBe(200);
      expect((await evaluate('/missing-one')).status).toBe(404);
      expect((await evaluate('')).status).toBe(200);
      await expect
        .poll(async () => (await totalsOf(t.base, 'remote', KEYS.acmeProdRead)).byVariant)
        .toEqual({ 'on/ON': 4 });
      const series = (await (await t.api('GET', '/usage/flags/remote')).json()) as {
        apps: Array<{ sdk: string; count: number }>;
      };
      expect(series.apps).toEqual([{ app: null, sdk: 'ofrep', count: 4 }]);
      await expect
        .poll(async () => (await (await t.api('GET', '/usage/unknown')).json()) as unknown[])
        .toContainEqual(expect.objectContaining({ key: 'missing-one', count: 1 }));
    } finally {
      await t.close();
    }
  });
});

describe('OFREP counts across a rename', () => {
  it('keeps what was counted when the environment is renamed before the counts are committed', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'flagwire-ofrep-rename-'));
    // An hour-long interval: the counts are committed by close(), after the rename.
    const options = { dataDir, usage: { ofrepFlushIntervalMs: 3_600_000 } };
    const t = await startTestServer(options);
    let key = '';
    try {
      const admin = await adminCaller(t.server);
      // An environment of the dashboard's (those of the config file cannot be renamed).
      expect((await admin.call('POST', '/projects/acme/environments', { key: 'temp' })).status).toBe(201);
      const created = await admin.call('POST', '/environments/acme/temp/keys', { access: 'full' });
      key = ((await created.json()) as { key: string }).key;
      await t.api('POST', '/flags', { key: 'remote', type: 'boolean' }, key);
      await t.api('PATCH', '/flags/remote', { enabled: true }, key);
      for (let i = 0; i < 3; i++) {
        const answer = await fetch(`${t.server.url}/ofrep/v1/evaluate/flags/remote`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ context: { targetingKey: 'u1' } }),
        });
        expect(answer.status).toBe(200);
      }
      expect((await admin.call('PATCH', '/environments/acme/temp', { key: 'renamed' })).status).toBe(200);
    } finally {
      await t.close();
    }
    const again = await startTestServer(options);
    try {
      expect((await totalsOf(again.base, 'remote', key)).byVariant).toEqual({ 'on/ON': 3 });
    } finally {
      await again.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe.runIf(TEST_STORE === 'postgres')('two instances', () => {
  it("count one id sent to both at once once, and follow each other's counts", async () => {
    const databaseUrl = await freshDatabase();
    const [a, b] = await startInstances(2, databaseUrl);
    try {
      const base = (s: typeof a) => `${s!.url}/api/v1`;
      await fetch(`${base(a)}/flags`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEYS.acmeProdFull}`, 'content-type': 'application/json' },
        body: JSON.stringify({ key: 'shared', type: 'boolean' }),
      });
      let expected = 0;
      const sends: Promise<Response>[] = [];
      for (let i = 0; i < 40; i++) {
        const body = reportBody({ counts: [row('shared', 1, 'off', 'OFF', i + 1)] });
        expected += i + 1;
        sends.push(
          postReport(base(a), KEYS.acmeProdRead, body),
          postReport(base(b), KEYS.acmeProdRead, body),
        );
      }
      const answers = await Promise.all(sends);
      expect(new Set(answers.map((r) => r.status))).toEqual(new Set([202]));
      const duplicates = await Promise.all(answers.map((r) => r.json() as Promise<{ duplicate: boolean }>));
      expect(duplicates.filter((d) => d.duplicate)).toHaveLength(40);
      expect((await totalsOf(base(a), 'shared', KEYS.acmeProdRead)).total).toBe(expected);
      expect((await totalsOf(base(b), 'shared', KEYS.acmeProdRead)).total).toBe(expected);
    } finally {
      await Promise.all([a!.close(), b!.close()]);
    }
  });
});
