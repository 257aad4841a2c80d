/**
 * A real browser: the SDK bundled for the browser, in headless Chromium, on a page of
 * another origin, connects to the reference server with a read-only key over the stream
 * (so the `Authorization` header works from a browser) and sees a flag flip live.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchedChromium } from '../../helpers/browser.js';
import { servePage, type TestPage } from '../../helpers/page-server.js';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';

let t: TestServer;
let page: TestPage;
const browser = launchedChromium();

beforeAll(async () => {
  page = await servePage(new URL('../../fixtures/browser-page.ts', import.meta.url));
  t = await startTestServer();
}, 60_000);

afterAll(async () => {
  page?.close();
  await t?.close();
});

it('bundles for the browser without any node: module', () => {
  expect(page.bundle).not.toMatch(/from\s*["']node:/);
  expect(page.bundle).not.toMatch(/require\(["']node:/);
});

it('follows a flag live over the stream from another origin with a read-only key', async () => {
  await t.api('POST', '/flags', { key: 'browser-flag', type: 'boolean' });
  const tab = await browser().newPage();
  const consoleErrors: string[] = [];
  tab.on('pageerror', (e) => consoleErrors.push(e.message));
  const query = new URLSearchParams({ base: t.base, key: KEYS.acmeProdRead });
  await tab.goto(`${page.url}/?${query}`);
  await tab.waitForFunction(() => window.__ready === true || window.__error !== undefined);
  expect(await tab.evaluate(() => window.__error)).toBeUndefined();
  expect(await tab.evaluate(() => window.__flag)).toBe(false);
  await tab.waitForFunction(() => window.__state === 'connected');
  expect(t.server.streamCount).toBeGreaterThanOrEqual(1);

  await t.api('PATCH', '/flags/browser-flag', { enabled: true });
  await tab.waitForFunction(() => window.__flag === true);
  expect(await tab.textContent('body')).toBe('browser-flag: true');

  await t.api('PATCH', '/flags/browser-flag', { enabled: false });
  await tab.waitForFunction(() => window.__flag === false);
  expect(consoleErrors).toEqual([]);
  await tab.close();
});
