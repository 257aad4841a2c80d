/**
 * Stale flags and marks (`docs/protocol.md` §13.7) through the management client, on a real
 * server whose usage clock the test moves (`startServer({ usage: { now } })`), so 30 days pass
 * without waiting: UNUSED, NEVER_EVALUATED, SINGLE_VALUE with the value to hard-code, a default
 * served breaking a single value, permanent and snoozed flags left out, the per-flag summary. A
 * server upgraded to keep usage measures "never evaluated" from when it began, not from each
 * flag's creation. A rich case (flags of every type, variants, reasons, versions, apps, 245 hours,
 * hours rolled up into days) where every read answers what the test itself reported. A flag
 * used only as another's prerequisite is in use, not stale, until no flag lists it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManagementClient, type ManagementClient } from '../../../src/index.js';
import { Rng } from '../../helpers/prng.js';
import { freshDatabase, KEYS, startTestServer, TEST_STORE, type TestServer } from '../../helpers/server.js';
import { postReport, reportBody } from '../../helpers/usage.js';

const DAY = 24 * 60 * 60 * 1000;
let offset = 0;
let t: TestServer;
let management: ManagementClient;
let reader: ManagementClient;

const report = (key: string, version: number, variant: string | null, reason: string, count = 1) =>
  postReport(t.base, KEYS.acmeProdRead, reportBody({ counts: [{ key, version, variant, reason, count }] }));

const versionOf = async (key: string) =>
  (
    (await (await t.api('GET', '/sdk/flags?capabilities=targeting')).json()) as {
      flags: Record<string, { version: number }>;
    }
  ).flags[key]!.version;

beforeAll(async () => {
  t = await startTestServer({ usage: { now: () => Date.now() + offset } });
  management = createManagementClient({ baseUrl: t.base, apiKey: t.fullKey });
  reader = createManagementClient({ baseUrl: t.base, apiKey: KEYS.acmeProdRead });
  for (const key of ['forgotten', 'never', 'single', 'mixed', 'defaulted', 'kill-switch', 'snoozed'])
    await management.flags.create({ key, type: 'boolean' });
  await management.flags.update('single', { enabled: true });
  await management.flags.create({
    key: 'banner',
    type: 'string',
    variants: { blue: 'blue', red: 'red' },
  } as never);
});
afterAll(() => t?.close());

describe('GET /usage/stale', () => {
  it('lists nothing for flags just created', async () => {
    expect((await reader.usage.stale()).flags).toEqual([]);
  });

  it('names each stale flag with its reason, and the value to hard-code', async () => {
    // Day 0: everything but "never" and the marked ones is evaluated once.
    expect((await report('forgotten', await versionOf('forgotten'), 'off', 'OFF')).status).toBe(202);
    offset = 20 * DAY;
    const single = await versionOf('single');
    expect((await report('single', single, 'on', 'ON', 40)).status).toBe(202);
    expect((await report('banner', await versionOf('banner'), 'red', 'FALLTHROUGH', 3)).status).toBe(202);
    expect((await report('mixed', await versionOf('mixed'), 'off', 'OFF')).status).toBe(202);
    expect((await report('mixed', await versionOf('mixed'), 'on', 'ON')).status).toBe(202);
    const defaulted = await versionOf('defaulted');
    expect((await report('defaulted', defaulted, 'off', 'OFF', 5)).status).toBe(202);
    expect((await report('defaulted', defaulted, null, 'ERROR')).status).toBe(202);
    await management.usage.mark('kill-switch', { permanent: true });
    await management.usage.mark('snoozed', { snoozedUntil: new Date(Date.now() + 60 * DAY).toISOString() });
    offset = 32 * DAY;
    const stale = await reader.usage.stale();
    expect(stale.rules).toEqual({ unusedDays: 30, neverEvaluatedDays: 7, singleValueDays: 7 });
    expect(stale.flags.map((f) => [f.key, f.reason])).toEqual([
      ['forgotten', 'UNUSED'],
      ['never', 'NEVER_EVALUATED'],
      ['seeded', 'NEVER_EVALUATED'],
    ]);
    expect(stale.flags[0]!.message).toBe('not evaluated for 32 days');
    // Created just before usage began (the first report, above): measured from its creation.
    expect(stale.flags[1]!.message).toBe('never evaluated, created 32 days ago');
    // Evaluated 12 days ago only: no evaluation in the last 7 days is no single value.
    offset = 22 * DAY;
    const later = (await reader.usage.stale()).flags;
    expect(later.find((f) => f.key === 'single')).toEqual({
      key: 'single',
      reason: 'SINGLE_VALUE',
      value: true,
      variant: 'on',
      lastEvaluatedAt: expect.any(String),
      message: expect.stringMatching(
        /^served only true \(on\) for 7 days, unchanged for 2[12] days: hard-code true$/,
      ),
    });
    expect(later.find((f) => f.key === 'banner')).toMatchObject({ reason: 'SINGLE_VALUE', value: 'red' });
    // Two values, or the caller's default among them: not a single value.
    expect(later.map((f) => f.key)).not.toContain('mixed');
    expect(later.map((f) => f.key)).not.toContain('defaulted');
    expect(later.map((f) => f.key)).not.toContain('kill-switch');
    expect(later.map((f) => f.key)).not.toContain('snoozed');
  });

  it('shows marks and stale reasons per flag, and clears a snooze', async () => {
    offset = 32 * DAY;
    const flags = await reader.usage.flags();
    expect(flags.find((f) => f.key === 'kill-switch')).toMatchObject({ permanent: true, stale: null });
    expect(flags.find((f) => f.key === 'forgotten')).toMatchObject({ stale: { reason: 'UNUSED' } });
    expect(flags.find((f) => f.key === 'snoozed')!.snoozedUntil).toEqual(expect.any(String));
    expect(await management.usage.mark('snoozed', { snoozedUntil: null })).toEqual({
      key: 'snoozed',
      permanent: false,
      snoozedUntil: null,
    });
    expect((await reader.usage.stale()).flags.map((f) => f.key)).toContain('snoozed');
    // The clients' read is told by the server's clock (moved 32 days here), not the reader's.
    const { at, revision } = await reader.usage.clients();
    expect(Date.parse(at) - Date.now()).toBeGreaterThan(31 * DAY);
    expect(revision).toEqual(expect.any(Number));
  });

  it('refuses a mark from a read-only key, of an unknown flag, or a bad body', async () => {
    await expect(reader.usage.mark('single', { permanent: true })).rejects.toMatchObject({ status: 403 });
    await expect(management.usage.mark('nope', { permanent: true })).rejects.toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
    });
    await expect(management.usage.mark('single', { snoozedUntil: 'tomorrow' })).rejects.toMatchObject({
      status: 400,
      code: 'VALIDATION_ERROR',
    });
    await expect(
      management.usage.mark('single', { permanent: true, extra: 1 } as never),
    ).rejects.toMatchObject({ status: 400 });
  });

  it("gives a flag's series per variant and reason, and 404 for a key never seen", async () => {
    const series = await reader.usage.flag('banner', { range: '30d' });
    expect(series).toMatchObject({ key: 'banner', range: '30d', step: 'day', total: 3 });
    expect(series.series).toEqual([
      { variant: 'red', value: 'red', reason: 'FALLTHROUGH', points: expect.any(Array) },
    ]);
    expect(series.series[0]!.points).toHaveLength(30);
    await expect(reader.usage.flag('never-seen-anywhere')).rejects.toMatchObject({ status: 404 });
  });
});

describe('a flag used only as a prerequisite', () => {
  it('is in use while another flag lists it, and can be stale once none does', async () => {
    let offset = 0;
    const server = await startTestServer({ usage: { now: () => Date.now() + offset } });
    const writer = createManagementClient({ baseUrl: server.base, apiKey: KEYS.acmeProdFull });
    const read = createManagementClient({ baseUrl: server.base, apiKey: KEYS.acmeProdRead });
    try {
      await writer.flags.create({ key: 'base', type: 'boolean' });
      await writer.flags.create({
        key: 'gated',
        type: 'boolean',
        prerequisites: [{ flag: 'base', variants: ['on'] }],
      } as never);
      const sdk = (await (await server.api('GET', '/sdk/flags?capabilities=targeting')).json()) as {
        flags: Record<string, { version: number }>;
      };
      // Only "gated" is ever evaluated (both values, so it is not SINGLE_VALUE); "base" never is.
      const counts = [
        { key: 'gated', version: sdk.flags.gated!.version, variant: 'off', reason: 'OFF', count: 2 },
        { key: 'gated', version: sdk.flags.gated!.version, variant: 'on', reason: 'ON', count: 1 },
      ];
      expect((await postReport(server.base, KEYS.acmeProdRead, reportBody({ counts }))).status).toBe(202);
      offset = 9 * DAY;
      expect((await postReport(server.base, KEYS.acmeProdRead, reportBody({ counts }))).status).toBe(202);
      // Nine days on, "base" was never evaluated, but "gated" needs it (deleting it is refused).
      const keys = async () => (await read.usage.stale()).flags.map((f) => f.key);
      expect(await keys()).not.toContain('base');
      expect((await read.usage.flags()).find((f) => f.key === 'base')!.stale).toBeNull();
      await expect(writer.flags.delete('base')).rejects.toMatchObject({ status: 409 });
      // Once "gated" drops it, nothing uses it: never evaluated, and stale.
      await writer.flags.update('gated', { prerequisites: [] } as never);
      expect((await read.usage.stale()).flags.find((f) => f.key === 'base')).toEqual({
        key: 'base',
        reason: 'NEVER_EVALUATED',
        createdAt: expect.any(String),
        message: 'never evaluated, created 9 days ago',
      });
    } finally {
      await server.close();
    }
  });
});

describe('a server that begins keeping usage long after its flags were made (an upgrade)', () => {
  it('measures "never evaluated" from when usage began, not from each flag\'s creation', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'flagwire-usage-since-'));
    const store = TEST_STORE === 'postgres' ? { databaseUrl: await freshDatabase() } : { dataDir: dir };
    let offset = 0;
    // A server that keeps no usage (as one before usage insights): flags made, then shut down.
    const before = await startTestServer({ ...store, usage: false });
    const writer = createManagementClient({ baseUrl: before.base, apiKey: KEYS.acmeProdFull });
    for (const key of ['kept', 'untouched', 'steady']) await writer.flags.create({ key, type: 'boolean' });
    await before.close();
    // Twenty days later by the usage clock, the same store on a server that keeps usage.
    const after = await startTestServer({ ...store, usage: { now: () => Date.now() + offset } });
    const read = createManagementClient({ baseUrl: after.base, apiKey: KEYS.acmeProdRead });
    try {
      offset = 20 * DAY;
      // Upgrade day, before any report: nothing was ever counted, so nothing is "never evaluated".
      expect((await read.usage.stale()).flags).toEqual([]);
      const sdk = (await (await after.api('GET', '/sdk/flags?capabilities=targeting')).json()) as {
        flags: Record<string, { version: number }>;
      };
      const version = sdk.flags.kept!.version;
      // Both values served (one would make it SINGLE_VALUE, a rule this test is not about).
      const steady = {
        key: 'steady',
        version: sdk.flags.steady!.version,
        variant: 'off',
        reason: 'OFF',
        count: 5,
      };
      const counts = [
        { key: 'kept', version, variant: 'off', reason: 'OFF', count: 2 },
        { key: 'kept', version, variant: 'on', reason: 'ON', count: 1 },
        steady,
      ];
      expect((await postReport(after.base, KEYS.acmeProdRead, reportBody({ counts }))).status).toBe(202);
      // The flags are 20 days old, but no evaluation could be counted before today; and one day
      // of "steady" serving one value is not 7 (its configuration unchanged for 20 days).
      expect((await read.usage.stale()).flags).toEqual([]);
      offset = 26 * DAY;
      expect((await read.usage.stale()).flags).toEqual([]);
      // Still serving one value two days later: once usage has been kept 7 days, that is stale.
      offset = 28 * DAY;
      expect((await postReport(after.base, KEYS.acmeProdRead, reportBody({ counts: [steady] }))).status).toBe(
        202,
      );
      // Nine days after usage began: never evaluated since, told so (not "created 29 days ago").
      offset = 29 * DAY;
      const never = (key: string) => ({
        key,
        reason: 'NEVER_EVALUATED',
        createdAt: expect.any(String),
        message: 'never evaluated since usage was first kept, 9 days ago',
      });
      // "kept": evaluated 9 days ago only, neither unused nor serving one value lately.
      expect((await read.usage.stale()).flags).toEqual([
        never('seeded'),
        expect.objectContaining({ key: 'steady', reason: 'SINGLE_VALUE', value: false, variant: 'off' }),
        never('untouched'),
      ]);
      const summary = await read.usage.flags();
      expect(summary.find((f) => f.key === 'untouched')!.stale).toEqual(never('untouched'));
      expect(summary.find((f) => f.key === 'kept')!.stale).toBeNull();
    } finally {
      await after.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a rich case: every read answers what was reported', () => {
  const HOUR = 60 * 60 * 1000;
  type Served = [variant: string | null, reason: string];
  /** Each flag, and what it serves in a report of `app` at hour `k` (`undefined`: not evaluated). */
  const RICH: Array<{
    body: { key: string; type: string; variants?: Record<string, unknown>; percentage?: number };
    serves: (app: string | null, k: number, rng: Rng) => Served | undefined;
  }> = [
    { body: { key: 'one-true', type: 'boolean' }, serves: () => ['on', 'ON'] },
    {
      body: { key: 'mixed', type: 'boolean' },
      serves: (_a, _k, rng) =>
        rng.pick([
          ['on', 'ON'],
          ['off', 'OFF'],
        ]),
    },
    {
      body: { key: 'blue-only', type: 'string', variants: { blue: 'Blue', red: 'Red' } },
      serves: (_a, _k, rng) => ['blue', rng.pick(['FALLTHROUGH', 'TARGET_MATCH', 'RULE_MATCH'])],
    },
    {
      body: { key: 'defaulted-lately', type: 'string', variants: { blue: 'Blue', red: 'Red' } },
      serves: (_a, k) => (k === 200 ? [null, 'ERROR'] : ['red', 'FALLTHROUGH']),
    },
    {
      body: { key: 'defaulted-long-ago', type: 'string', variants: { blue: 'Blue', red: 'Red' } },
      serves: (_a, k) => (k < 30 ? [null, 'ERROR'] : ['red', 'FALLTHROUGH']),
    },
    {
      body: { key: 'rollout-out', type: 'rollout', percentage: 0 },
      serves: (_a, _k, rng) => ['off', rng.pick(['ROLLOUT_OUT', 'MISSING_USER_KEY'])],
    },
    {
      body: { key: 'mixed-rollout', type: 'rollout', percentage: 50 },
      serves: (_a, _k, rng) =>
        rng.pick([
          ['on', 'ROLLOUT_IN'],
          ['off', 'ROLLOUT_OUT'],
        ]),
    },
    {
      body: { key: 'early-only', type: 'boolean' },
      serves: (_a, k) => (k < 48 ? ['off', 'OFF'] : undefined),
    },
    {
      body: { key: 'per-app', type: 'boolean' },
      serves: (app) => (app === 'web' ? ['on', 'ON'] : ['off', 'OFF']),
    },
    {
      body: { key: 'big-number', type: 'number', variants: { small: 1, big: 100 } },
      serves: () => ['big', 'FALLTHROUGH'],
    },
    { body: { key: 'never', type: 'boolean' }, serves: () => undefined },
  ];
  const APPS = ['web', 'worker', 'api', null];
  /** Every row reported, with its commit time: what the reads must add up to. */
  const sent: Array<{
    key: string;
    variant: string | null;
    reason: string;
    app: string | null;
    count: number;
    at: number;
  }> = [];
  let usageNow = 0;
  let r: TestServer;
  let read: ManagementClient;
  let created = { from: 0, to: 0 };
  let changedAt = 0;
  let h0 = 0;

  const servedValue = (key: string, variant: string | null) => {
    const { body } = RICH.find((f) => f.body.key === key)!;
    if (variant === null) return null;
    return body.type === 'boolean' || body.type === 'rollout' ? variant === 'on' : body.variants![variant];
  };

  /** The stale rules (§13.7) applied to what was sent. */
  function expectedStale(key: string, now: number, createdAt: string | undefined) {
    const rows = sent.filter((s) => s.key === key);
    const last = rows.length === 0 ? undefined : Math.max(...rows.map((s) => s.at));
    if (last === undefined) {
      // Usage began with the first report, right after the flags were made: from their creation.
      const age = Math.floor((now - Date.parse(createdAt!)) / DAY);
      return {
        key,
        reason: 'NEVER_EVALUATED',
        createdAt,
        message: `never evaluated, created ${age} days ago`,
      };
    }
    const lastEvaluatedAt = new Date(last).toISOString();
    if (now - last > 30 * DAY)
      return {
        key,
        reason: 'UNUSED',
        lastEvaluatedAt,
        message: `not evaluated for ${Math.floor((now - last) / DAY)} days`,
      };
    const lately = rows.filter((s) => Math.floor(s.at / HOUR) > Math.floor(now / HOUR) - 7 * 24);
    const variants = new Set(lately.map((s) => s.variant));
    const [variant] = variants;
    if (variants.size !== 1 || variant === null || lately.some((s) => s.reason === 'ERROR')) return null;
    const shown = JSON.stringify(servedValue(key, variant!));
    const unchanged = Math.floor((now - changedAt) / DAY);
    return {
      key,
      reason: 'SINGLE_VALUE',
      value: servedValue(key, variant!),
      variant,
      lastEvaluatedAt,
      message: `served only ${shown} (${variant}) for 7 days, unchanged for ${unchanged} days: hard-code ${shown}`,
    };
  }

  /** `GET /usage/flags/:key` as what was sent adds up; series and apps in one order on both sides. */
  function expectedSeries(key: string, range: '24h' | '7d' | '30d' | '90d', now: number) {
    const sizes: Record<string, [size: number, points: number]> = {
      '24h': [HOUR, 24],
      '7d': [HOUR, 168],
      '30d': [DAY, 30],
      '90d': [DAY, 90],
    };
    const [size, points] = sizes[range]!;
    const end = Math.floor(now / size);
    const first = end - points + 1;
    const series = new Map<
      string,
      { variant: string | null; value: unknown; reason: string; points: number[] }
    >();
    const apps = new Map<string, { app: string | null; sdk: string; count: number }>();
    let total = 0;
    const rows = sent.filter((s) => s.key === key);
    for (const s of rows) {
      const index = Math.floor(s.at / size);
      if (index < first || index > end) continue;
      const id = `${s.variant}\t${s.reason}`;
      const line = series.get(id) ?? {
        variant: s.variant,
        value: servedValue(key, s.variant),
        reason: s.reason,
        points: new Array<number>(points).fill(0),
      };
      series.set(id, line);
      line.points[index - first]! += s.count;
      const app = apps.get(String(s.app)) ?? { app: s.app, sdk: 'flagwire-js', count: 0 };
      apps.set(String(s.app), app);
      app.count += s.count;
      total += s.count;
    }
    const last = rows.length === 0 ? null : new Date(Math.max(...rows.map((s) => s.at))).toISOString();
    return normalized({
      key,
      range,
      step: size === HOUR ? 'hour' : 'day',
      from: new Date(first * size).toISOString(),
      to: new Date((end + 1) * size).toISOString(),
      lastEvaluatedAt: last,
      total,
      series: [...series.values()],
      apps: [...apps.values()],
    });
  }
  function normalized<
    T extends { series: Array<{ variant: unknown; reason: string }>; apps: Array<{ app: unknown }> },
  >(answer: T): T {
    const by =
      <X>(id: (x: X) => string) =>
      (a: X, b: X) =>
        id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0;
    return {
      ...answer,
      series: [...answer.series].sort(by((x) => `${x.variant}\t${x.reason}`)),
      apps: [...answer.apps].sort(by((x) => String(x.app))),
    };
  }

  /** Compares every read at `now` with what was sent. */
  async function expectReadsAt(now: number): Promise<void> {
    usageNow = now;
    const stale = await read.usage.stale();
    const createdAt = new Map(stale.flags.map((f) => [f.key, f.createdAt]));
    for (const at of createdAt.values())
      if (at !== undefined) expect(Date.parse(at)).toBeGreaterThanOrEqual(created.from);
    const keys = RICH.map((f) => f.body.key).sort();
    const expected = keys.map((key) => expectedStale(key, now, createdAt.get(key))).filter((f) => f !== null);
    expect(stale.flags).toEqual(expected);
    const hour = Math.floor(now / HOUR);
    expect(await read.usage.flags()).toEqual(
      keys.map((key) => ({
        key,
        lastEvaluatedAt: expectedSeries(key, '90d', now).lastEvaluatedAt,
        last24h: Array.from({ length: 24 }, (_, i) =>
          sent
            .filter((s) => s.key === key && Math.floor(s.at / HOUR) === hour - 23 + i)
            .reduce((sum, s) => sum + s.count, 0),
        ),
        stale: expected.find((f) => f.key === key) ?? null,
        permanent: false,
        snoozedUntil: null,
      })),
    );
    for (const key of keys)
      for (const range of ['24h', '7d', '30d', '90d'] as const)
        expect(normalized(await read.usage.flag(key, { range })), `${key} ${range}`).toEqual(
          expectedSeries(key, range, now),
        );
  }

  async function report(
    k: number,
    at: number,
    app: string | null,
    rng: Rng,
    versions: Map<string, number[]>,
  ) {
    usageNow = at;
    const counts = [];
    for (const flag of RICH) {
      const served = rng.chance(0.8) ? flag.serves(app, k, rng) : undefined;
      if (!served) continue;
      const [variant, reason] = served;
      const count = rng.range(1, 40);
      const key = flag.body.key;
      counts.push({ key, version: rng.pick(versions.get(key)!), variant, reason, count });
      sent.push({ key, variant, reason, app, count, at });
    }
    const body = reportBody({ app: app === null ? null : { name: app, version: '1.0.0' }, counts });
    expect((await postReport(r.base, KEYS.acmeStageFull, body)).status).toBe(202);
  }

  beforeAll(async () => {
    r = await startTestServer({ usage: { now: () => usageNow } });
    const write = createManagementClient({ baseUrl: r.base, apiKey: KEYS.acmeStageFull });
    read = write;
    created.from = Date.now();
    for (const { body } of RICH) await write.flags.create(body as never);
    created = { from: created.from, to: Date.now() };
    const version = async (key: string) =>
      (
        (await (
          await r.api('GET', '/sdk/flags?capabilities=targeting', undefined, KEYS.acmeStageFull)
        ).json()) as {
          flags: Record<string, { version: number }>;
        }
      ).flags[key]!.version;
    // Two versions of some flags in the rows: reports of before and after a change.
    const versions = new Map<string, number[]>();
    for (const { body } of RICH) versions.set(body.key, [await version(body.key)]);
    for (const key of ['one-true', 'blue-only', 'mixed']) {
      await write.flags.update(key, { description: `changed ${key}` });
      versions.get(key)!.push(await version(key));
    }
    changedAt = Date.now();
    const rng = new Rng(2024);
    // Usage begins with a report right after the flags were made, then hours 1 to 245 after.
    const first = Date.now();
    h0 = Math.floor(first / HOUR) * HOUR;
    await report(0, first, 'web', rng, versions);
    const hours = new Set([2, 20, 29, 47, 200, 244, 245]);
    while (hours.size < 60) hours.add(rng.range(1, 245));
    for (const k of [...hours].sort((a, b) => a - b))
      await report(k, h0 + k * HOUR + 30 * 60_000, rng.pick(APPS), rng, versions);
  }, 60_000);
  afterAll(() => r?.close());

  it('answers stale flags, summaries and every series as what was sent adds up, 245 hours in', async () => {
    await expectReadsAt(h0 + 245 * HOUR + 30 * 60_000);
    // The case covers each rule's branches (checked here, so a change of seed cannot hide them).
    expect((await read.usage.stale()).flags.map((f) => `${f.key} ${f.reason}`)).toEqual([
      'big-number SINGLE_VALUE',
      'blue-only SINGLE_VALUE',
      'defaulted-long-ago SINGLE_VALUE',
      'never NEVER_EVALUATED',
      'one-true SINGLE_VALUE',
      'rollout-out SINGLE_VALUE',
    ]);
  });

  it('still does 45 days in, its oldest hours rolled up into days by a later report', async () => {
    // Two reports 20 minutes apart: a time far past the usage clock is believed once reports
    // keep coming at it (§13.4), and then the hours older than 35 days are rolled up.
    const later = h0 + 45 * DAY + 30 * 60_000;
    const versions = new Map(RICH.map((f) => [f.body.key, [1]]));
    await report(1080, later - 20 * 60_000, 'worker', new Rng(7), versions);
    await report(1080, later, 'api', new Rng(8), versions);
    await expectReadsAt(later);
    expect((await read.usage.stale()).flags.map((f) => f.reason)).toContain('UNUSED');
  });
});
