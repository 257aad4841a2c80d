/**
 * Usage from a browser page (`docs/protocol.md` §13.6), in headless Chromium, on a page of
 * another origin with a read-only key: the page evaluates, then is left; its report, sent on
 * `pagehide`/`visibilitychange` with `fetch(..., { keepalive: true })` and the key in
 * `Authorization`, arrives after the page is gone, and is counted in the key's environment.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchedChromium } from './helpers/browser.js';
import { servePage, type TestPage } from './helpers/page-server.js';
import { KEYS, startTestServer, type TestServer } from './helpers/server.js';
import { totalsOf } from './helpers/usage.js';

let t: TestServer;
let page: TestPage;
const browser = launchedChromium();

beforeAll(async () => {
  page = await servePage(new URL('./fixtures/usage-page.ts', import.meta.url));
  t = await startTestServer();
  await t.api('POST', '/flags', { key: 'page-flag', type: 'rollout', percentage: 30 });
  await t.api('PATCH', '/flags/page-flag', { enabled: true });
}, 60_000);

afterAll(async () => {
  page?.close();
  await t?.close();
});

it('sends what a page evaluated when the page is left, and it is counted', async () => {
  const context = await browser().newContext();
  const tab = await context.newPage();
  const errors: string[] = [];
  tab.on('pageerror', (e) => errors.push(e.message));
  const n = 250;
  const query = new URLSearchParams({ base: t.base, key: KEYS.acmeProdRead, n: String(n) });
  await tab.goto(`${page.url}/?${query}`);
  await tab.waitForFunction(() => window.__evaluated !== undefined || window.__error !== undefined);
  expect(await tab.evaluate(() => window.__error)).toBeUndefined();
  // Nothing was sent while the page was open: the interval is an hour.
  expect((await totalsOf(t.base, 'page-flag', KEYS.acmeProdRead)).total).toBe(0);
  await tab.goto('about:blank');
  await expect.poll(async () => (await totalsOf(t.base, 'page-flag', KEYS.acmeProdRead)).total).toBe(n);
  const { clients } = (await (await t.api('GET', '/usage/clients')).json()) as {
    clients: Array<{ runtime: string; app: { name: string } | null; state: string }>;
  };
  expect(clients).toContainEqual(
    expect.objectContaining({ runtime: 'browser', app: { name: 'usage-page', version: '1.0.0' } }),
  );
  expect(errors).toEqual([]);
  await context.close();
});
