/**
 * Usage from a browser page (`docs/protocol.md` §13.6), in headless Chromium, on a page of
 * another origin with a read-only key: the page evaluates, then is left; its report, sent on
 * `pagehide`/`visibilitychange` with `fetch(..., { keepalive: true })` and the key in
 * `Authorization`, arrives after the page is gone, and is counted in the key's environment. The
 * waiting reports go at once when the page is left: during a backoff (a front answered `503` to
 * the last report), and while an attempt that never gets an answer is under way.
 */
import type { Page, Route } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchedChromium } from '../../helpers/browser.js';
import { servePage, type TestPage } from '../../helpers/page-server.js';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';
import { totalsOf } from '../../helpers/usage.js';

let t: TestServer;
let page: TestPage;
const browser = launchedChromium();

beforeAll(async () => {
  page = await servePage(new URL('../../fixtures/usage-page.ts', import.meta.url));
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

/** A tab of the usage page that evaluated `n` times; its usage reports go through `route`. */
async function openPage(n: number, route: (route: Route) => unknown): Promise<Page> {
  const tab = await (await browser().newContext()).newPage();
  await tab.route(`${t.base}/sdk/usage`, route);
  const query = new URLSearchParams({ base: t.base, key: KEYS.acmeProdRead, n: String(n) });
  await tab.goto(`${page.url}/?${query}`);
  await tab.waitForFunction(() => window.__evaluated !== undefined || window.__error !== undefined);
  expect(await tab.evaluate(() => window.__error)).toBeUndefined();
  return tab;
}

const counted = async () => (await totalsOf(t.base, 'page-flag', KEYS.acmeProdRead)).total;

it('sends the waiting reports at once when the page is left during a backoff (the last report was answered 503)', async () => {
  const before = await counted();
  // A front answers the first report 503 with a Retry-After of an hour; the rest reach the server.
  let answered = 0;
  const tab = await openPage(120, (route) =>
    route.request().method() === 'POST' && answered++ === 0
      ? route.fulfill({
          status: 503,
          headers: { 'access-control-allow-origin': '*', 'retry-after': '3600' },
          contentType: 'application/json',
          body: JSON.stringify({ error: 'SERVICE_UNAVAILABLE', message: 'busy' }),
        })
      : route.fallback(),
  );
  expect(await tab.evaluate(() => window.__flush!())).toBe(false);
  expect(await counted()).toBe(before);
  await tab.evaluate(() => window.__evaluate!(30));
  await tab.unrouteAll({ behavior: 'ignoreErrors' });
  await tab.goto('about:blank');
  // Both reports, the one in its backoff and the one made on leaving.
  await expect.poll(counted, { timeout: 15_000 }).toBe(before + 150);
  await tab.context().close();
});

it('sends the waiting reports at once when the page is left while an attempt waits for its answer', async () => {
  const before = await counted();
  // The first report's request is held, never answered: the attempt stays under way.
  let held!: () => void;
  const holding = new Promise<void>((resolve) => (held = resolve));
  let seen = 0;
  const tab = await openPage(80, (route) => {
    if (route.request().method() !== 'POST' || seen++ > 0) return route.fallback();
    held();
  });
  await tab.evaluate(() => {
    void window.__flush!();
  });
  await holding;
  await tab.evaluate(() => window.__evaluate!(20));
  // The route stays: the held request is never let go; what follows it passes.
  await tab.goto('about:blank');
  await expect.poll(counted, { timeout: 15_000 }).toBe(before + 100);
  await tab.context().close();
});
