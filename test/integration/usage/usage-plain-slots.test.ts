/**
 * Usage counting of plain flags (`docs/protocol.md` §13.2) on `isEnabled`'s hot path, which
 * counts the variant and reason the one evaluator left (`src/client/evaluation.ts`): every answer
 * is counted exactly as the same call through `isEnabledDetail`. And a report's id and instance
 * have the form §13.2 asks for.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClient } from '../../../src/index.js';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';
import type { ReportBody } from '../../helpers/usage.js';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
  for (const [key, type, percentage, enabled] of [
    ['p-on', 'boolean', undefined, true],
    ['p-off', 'boolean', undefined, false],
    ['p-half', 'rollout', 50, true],
    ['p-all', 'rollout', 100, true],
    ['p-none', 'rollout', 0, true],
    ['p-disabled', 'rollout', 50, false],
  ] as const) {
    await t.api('POST', '/flags', { key, type, ...(percentage === undefined ? {} : { percentage }) });
    if (enabled) await t.api('PATCH', `/flags/${key}`, { enabled: true });
  }
});
afterAll(() => t?.close());

it('counts each isEnabled answer of a plain flag under the variant and reason isEnabledDetail gives', async () => {
  const reports: ReportBody[] = [];
  const c = createClient({
    baseUrl: t.base,
    apiKey: KEYS.acmeProdRead,
    logger: false,
    fetch: async (input, init) => {
      if (String(input).endsWith('/sdk/usage')) reports.push(JSON.parse(String(init?.body)));
      return fetch(input, init);
    },
  });
  await c.ready();
  const expected = new Map<string, number>();
  const users = [undefined, '', 'u-1', 'u-2', 'u-3', 'u-4', 'u-5', 'u-6', 'u-7', { key: 'u-8' }];
  for (const key of ['p-on', 'p-off', 'p-half', 'p-all', 'p-none', 'p-disabled'])
    for (const user of users) {
      const value = c.isEnabled(key, user);
      const detail = c.isEnabledDetail(key, user);
      expect(detail.value).toBe(value);
      const row = `${key} ${value ? 'on' : 'off'} ${detail.reason}`;
      expect(['ON', 'OFF', 'ROLLOUT_IN', 'ROLLOUT_OUT', 'MISSING_USER_KEY']).toContain(detail.reason);
      expect(detail.reason).not.toBe('ERROR');
      expected.set(row, (expected.get(row) ?? 0) + 2);
    }
  // A call for another kind serves the caller's default: ERROR, no variant.
  c.getString('p-on', 'u-1', 'x');
  expected.set('p-on null ERROR', 1);
  expect(await c.flush()).toBe(true);
  const [report] = reports;
  expect(reports).toHaveLength(1);
  const counted = new Map(report!.counts.map((r) => [`${r.key} ${r.variant} ${r.reason}`, r.count]));
  expect(counted).toEqual(expected);
  // Every reason of a plain flag occurred at least once.
  expect(new Set([...expected.keys()].map((row) => row.split(' ')[2]))).toEqual(
    new Set(['ON', 'OFF', 'ROLLOUT_IN', 'ROLLOUT_OUT', 'MISSING_USER_KEY', 'ERROR']),
  );
  // §13.2: 16 to 64 of [A-Za-z0-9_-], random per report and per client.
  expect(report!.id).toMatch(/^u_[A-Za-z0-9_-]{24}$/);
  expect(report!.instance).toMatch(/^i_[A-Za-z0-9_-]{24}$/);
  expect(report!.id.slice(2)).not.toBe(report!.instance.slice(2));
  await c.close();
});
