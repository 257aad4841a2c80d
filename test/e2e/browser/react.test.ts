/**
 * React through OpenFeature, with no React package of ours: `@openfeature/react-sdk` with
 * `FlagwireWebProvider`, in headless Chromium on a page of another origin with a read-only key.
 * A component reading `useBooleanFlagValue` re-renders when the flag flips through the API.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchedChromium } from '../../helpers/browser.js';
import { servePage, type TestPage } from '../../helpers/page-server.js';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';

const browser = launchedChromium();
let t: TestServer;
let page: TestPage;

beforeAll(async () => {
  page = await servePage(new URL('../../fixtures/react-page.tsx', import.meta.url));
  t = await startTestServer();
  await t.api('POST', '/flags', { key: 'react-flag', type: 'boolean' });
}, 60_000);

afterAll(async () => {
  page?.close();
  await t?.close();
});

it('bundles FlagwireWebProvider for the browser without any node: module or the server SDK', () => {
  expect(page.bundle).not.toMatch(/from\s*["']node:/);
  expect(page.bundle).not.toContain('@openfeature/server-sdk');
});

it('re-renders a component on useBooleanFlagValue when the flag flips through the API', async () => {
  const context = await browser().newContext();
  const tab = await context.newPage();
  const errors: string[] = [];
  tab.on('pageerror', (e) => errors.push(e.message));
  const query = new URLSearchParams({ base: t.base, key: KEYS.acmeProdRead });
  await tab.goto(`${page.url}/?${query}`);
  await tab.getByText('Old checkout').waitFor();
  const before = await tab.evaluate(() => window.__renders);
  await t.api('PATCH', '/flags/react-flag', { enabled: true });
  await tab.getByText('New checkout').waitFor();
  expect(await tab.evaluate(() => window.__renders)).toBeGreaterThan(before);
  await t.api('PATCH', '/flags/react-flag', { enabled: false });
  await tab.getByText('Old checkout').waitFor();
  expect(await tab.evaluate(() => window.__error)).toBeUndefined();
  expect(errors).toEqual([]);
  await context.close();
});
