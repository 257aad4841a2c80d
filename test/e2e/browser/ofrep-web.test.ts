/**
 * OFREP in a real browser (`docs/protocol.md` §11): `@openfeature/web-sdk` with the real
 * `@openfeature/ofrep-web-provider`, on a page of another origin in headless Chromium, with a
 * read-only key. A flag flipped through the API reaches the page as a configuration-changed
 * event, by the event stream (no polling) and by polling; an unchanged poll is a 304.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchedChromium } from '../../helpers/browser.js';
import { servePage, type TestPage } from '../../helpers/page-server.js';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';

const browser = launchedChromium();
let t: TestServer;
let page: TestPage;

beforeAll(async () => {
  page = await servePage(new URL('../../fixtures/ofrep-web-page.ts', import.meta.url));
  t = await startTestServer();
  await t.api('POST', '/flags', { key: 'web-flag', type: 'boolean' });
}, 60_000);

afterAll(async () => {
  page?.close();
  await t?.close();
});

async function open(mode: 'sse' | 'polling') {
  // A fresh context per page: the provider caches in localStorage by default.
  const context = await browser().newContext();
  const tab = await context.newPage();
  const errors: string[] = [];
  tab.on('pageerror', (e) => errors.push(e.message));
  const bulk: number[] = [];
  tab.on('response', (r) => {
    if (r.url().endsWith('/ofrep/v1/evaluate/flags') || r.url().includes('/ofrep/v1/evaluate/flags?'))
      bulk.push(r.status());
  });
  const query = new URLSearchParams({ base: t.server.url, key: KEYS.acmeProdRead, mode });
  await tab.goto(`${page.url}/?${query}`);
  await tab.waitForFunction(() => window.__ready === true || window.__error !== undefined);
  expect(await tab.evaluate(() => window.__error)).toBeUndefined();
  return { context, tab, errors, bulk };
}

it('follows a flag flipped through the API over the event stream, without polling', async () => {
  const { context, tab, errors, bulk } = await open('sse');
  expect(await tab.evaluate(() => window.__value)).toBe(false);
  await t.api('PATCH', '/flags/web-flag', { enabled: true });
  await tab.waitForFunction(() => window.__value === true);
  expect(await tab.evaluate(() => window.__changes)).toBeGreaterThanOrEqual(1);
  await t.api('PATCH', '/flags/web-flag', { enabled: false });
  await tab.waitForFunction(() => window.__value === false);
  // One bulk load, then one refetch per change: nothing polled in between.
  expect(bulk.filter((s) => s === 200).length).toBe(3);
  expect(errors).toEqual([]);
  await context.close();
});

it('follows it by polling too, each unchanged poll answered 304', async () => {
  const { context, tab, errors, bulk } = await open('polling');
  await expect.poll(() => bulk.filter((s) => s === 304).length).toBeGreaterThanOrEqual(2);
  const changesBefore = await tab.evaluate(() => window.__changes);
  expect(changesBefore).toBe(0); // a 304 is no change
  await t.api('PATCH', '/flags/web-flag', { enabled: true });
  await tab.waitForFunction(() => window.__value === true);
  await t.api('PATCH', '/flags/web-flag', { enabled: false });
  await tab.waitForFunction(() => window.__value === false);
  expect(errors).toEqual([]);
  await context.close();
});

it('re-evaluates when the context changes, even when the targetingKey stays', async () => {
  await t.api('POST', '/flags', { key: 'split', type: 'rollout', percentage: 50 });
  await t.api('PATCH', '/flags/split', { enabled: true });
  const { context, tab, bulk } = await open('sse');
  const before = bulk.length;
  await tab.evaluate(() => window.__setContext({ targetingKey: 'user-1', plan: 'pro' }));
  await expect.poll(() => bulk.length).toBeGreaterThan(before);
  expect(bulk.at(-1)).toBe(200); // a new context is never answered 304 from the old ETag
  await context.close();
});
