/**
 * A real browser: the SDK bundled for the browser, in headless Chromium, on a page of
 * another origin, connects to the reference server with a read-only key over the stream
 * (so the `Authorization` header works from a browser) and sees a flag flip live.
 */
import { createServer, type Server } from 'node:http';
import { build } from 'esbuild';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { useChromium } from './helpers/browser.js';
import { KEYS, startTestServer, type TestServer } from './helpers/server.js';

let t: TestServer;
let page: Server;
let pageUrl: string;
const browser = useChromium();
let bundle: string;

beforeAll(async () => {
  const result = await build({
    entryPoints: [new URL('./fixtures/browser-page.ts', import.meta.url).pathname],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  bundle = result.outputFiles[0]!.text;
  t = await startTestServer();
  page = createServer((req, res) => {
    if (req.url?.startsWith('/app.js')) {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle);
    } else {
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><body>loading</body><script type="module" src="/app.js"></script>');
    }
  });
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  pageUrl = `http://127.0.0.1:${(page.address() as { port: number }).port}`;
}, 60_000);

afterAll(async () => {
  page?.close();
  await t?.close();
});

it('bundles for the browser without any node: module', () => {
  expect(bundle).not.toMatch(/from\s*["']node:/);
  expect(bundle).not.toMatch(/require\(["']node:/);
});

it('follows a flag live over the stream from another origin with a read-only key', async () => {
  await t.api('POST', '/flags', { key: 'browser-flag', type: 'boolean' });
  const tab = await browser().newPage();
  const consoleErrors: string[] = [];
  tab.on('pageerror', (e) => consoleErrors.push(e.message));
  const query = new URLSearchParams({ base: t.base, key: KEYS.acmeProdRead });
  await tab.goto(`${pageUrl}/?${query}`);
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
