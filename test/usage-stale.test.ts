/**
 * Stale flags and marks (`docs/protocol.md` §13.7) through the management client, on a real
 * server whose usage clock the test moves (`startServer({ usage: { now } })`), so 30 days pass
 * without waiting: UNUSED, NEVER_EVALUATED, SINGLE_VALUE with the value to hard-code, a default
 * served breaking a single value, permanent and snoozed flags left out, the per-flag summary.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManagementClient, type ManagementClient } from '../src/index.js';
import { KEYS, startTestServer, type TestServer } from './helpers/server.js';
import { postReport, reportBody } from './helpers/usage.js';

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
