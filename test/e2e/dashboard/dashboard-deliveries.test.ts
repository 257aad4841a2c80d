/**
 * The deliveries log in real headless Chromium (`docs/protocol.md` §8.3): a receiver answers the
 * first attempt at `checkout`'s event 500 with a long, hostile body and the second 200, and every
 * attempt at `broken`'s 500. The log shows each delivery's flag and event; the status filter
 * (`?status=failed`) shows only the failed one and the flag filter (`?flag=checkout`) only
 * checkout's; a delivery's expanded row shows per attempt the request body sent (the receiver's
 * bytes), the response status and body and the duration, the receiver's text as text, isolated,
 * and inside a box that says when there is more. axe in light and dark mode at 1280 and 390 px.
 */
import { createServer, type Server } from 'node:http';
import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchedChromium } from '../../helpers/browser.js';
import {
  checkEveryMode,
  type DashboardPage,
  openDashboard,
  PHONE,
  screenshot,
} from '../../helpers/dashboard-page.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const browser = launchedChromium();
let t: TestServer;
let d: DashboardPage;
let receiver: Server;
let url = '';
let hookId = '';
/** The bodies the receiver got, by flag key, in order. */
const received: Record<string, string[]> = {};

/** A receiver's answer: long, many lines, markup, a right-to-left override. */
const HOSTILE = [
  'upstream exploded <img src=x onerror="window.__xss=1"> \u202Egnp.exe',
  ...Array.from({ length: 60 }, (_, i) => `line ${i + 1} of the stack trace`),
].join('\n');

beforeAll(async () => {
  // Two attempts per delivery: the first, then one retry 50 ms later.
  t = await startTestServer({ webhookRetryDelaysMs: [50] });
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const event = JSON.parse(body) as { data: { flag?: { key: string } }; delivery: { attempt: number } };
      const key = event.data.flag?.key ?? '';
      received[key] = [...(received[key] ?? []), body];
      if (key === 'checkout' && event.delivery.attempt > 1) res.writeHead(200).end('thanks, got it');
      else res.writeHead(500, { 'content-type': 'text/plain' }).end(HOSTILE);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
  for (const key of ['broken', 'checkout']) await t.api('POST', '/flags', { key, type: 'boolean' });
  const hook = await t.api('POST', '/webhooks', { url, events: ['flag.updated'] });
  expect(hook.status).toBe(201);
  for (const key of ['broken', 'checkout'])
    expect((await t.api('PATCH', `/flags/${key}`, { description: `about ${key}` })).status).toBe(200);
  hookId = ((await hook.json()) as { id: string }).id;
}, 60_000);

afterAll(async () => {
  await d?.context.close();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
  await t?.close();
});

/** The delivery cards (one `<tbody>` each) as the page shows them now. */
const deliveries = (): Locator => d.page.locator('tbody.delivery');

describe('the deliveries log', () => {
  it('has both deliveries finished, each retried once, before the page looks', async () => {
    await expect
      .poll(async () => {
        const list = (await (await t.api('GET', `/webhooks/${hookId}/deliveries`)).json()) as Array<{
          status: string;
          attempts: number;
        }>;
        return list.map((x) => `${x.status}/${x.attempts}`).sort();
      })
      .toEqual(['failed/2', 'succeeded/2']);
  });

  it("shows each delivery's flag, event, status and last response", async () => {
    d = await openDashboard(browser(), t.server, { path: '#/env/acme/production/webhooks' });
    const { page } = d;
    await page.getByRole('button', { name: `Deliveries: ${url}` }).click();
    await page.getByRole('heading', { name: `Deliveries to ${url}` }).waitFor();
    await expect.poll(() => deliveries().count()).toBe(2);
    const checkout = deliveries().filter({ hasText: 'flag checkout' });
    const broken = deliveries().filter({ hasText: 'flag broken' });
    expect(await checkout.getByRole('cell', { name: 'flag.updated' }).count()).toBe(1);
    expect(await checkout.getByRole('cell', { name: 'succeeded' }).count()).toBe(1);
    expect(await checkout.getByRole('cell', { name: '200', exact: true }).count()).toBe(1);
    expect(await broken.getByRole('cell', { name: 'failed' }).count()).toBe(1);
    expect(await broken.getByRole('cell', { name: /^500/ }).count()).toBe(1);
  });

  it('filters by status through the API: failed shows only the failed delivery', async () => {
    const { page } = d;
    const asked = page.waitForRequest((r) => new URL(r.url()).searchParams.get('status') === 'failed');
    await page.getByLabel('Delivery status').selectOption('failed');
    await asked;
    await expect.poll(() => deliveries().count()).toBe(1);
    expect(await deliveries().first().textContent()).toContain('flag broken');
    expect(await deliveries().filter({ hasText: 'succeeded' }).count()).toBe(0);
    await page.getByLabel('Delivery status').selectOption('succeeded');
    await expect.poll(() => deliveries().filter({ hasText: 'flag checkout' }).count()).toBe(1);
    expect(await deliveries().count()).toBe(1);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => deliveries().count()).toBe(2);
  });

  it('filters by flag key through the API', async () => {
    const { page } = d;
    const asked = page.waitForRequest((r) => new URL(r.url()).searchParams.get('flag') === 'checkout');
    await page.getByLabel('Flag or segment key').fill('checkout');
    await page.getByLabel('Flag or segment key').press('Enter');
    await asked;
    await expect.poll(() => deliveries().count()).toBe(1);
    expect(await deliveries().first().textContent()).toContain('flag checkout');
    await page.getByLabel('Flag or segment key').fill('nothing-like-it');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.getByText('No delivery matches these filters.').waitFor();
    await page.getByLabel('Flag or segment key').fill('checkout');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await expect.poll(() => deliveries().count()).toBe(1);
  });

  it('expands a delivery: per attempt the request body sent, the response status and body, the duration', async () => {
    const { page } = d;
    const row = deliveries().first();
    await row.getByText(/2 attempts of flag\.updated flag checkout/).click();
    const attempts = row.locator('li.attempt');
    await expect.poll(() => attempts.count()).toBe(2);
    // Newest first: the 200, then the 500.
    const [second, first] = [attempts.nth(0), attempts.nth(1)];
    expect(await second.getByRole('heading').textContent()).toMatch(/^Attempt 2/);
    expect(await first.getByRole('heading').textContent()).toMatch(/^Attempt 1/);
    expect(await fact(first, 'Response status')).toBe('500');
    expect(await fact(second, 'Response status')).toBe('200');
    for (const attempt of [first, second]) expect(await fact(attempt, 'Duration')).toMatch(/^\d[\d,]* ms$/);
    // The body sent is the receiver's bytes (shown indented).
    const sent = [await body(first, 'Request body sent'), await body(second, 'Request body sent')];
    expect(sent.map((s) => JSON.parse(s))).toEqual(received.checkout!.map((s) => JSON.parse(s)));
    expect(sent[0]).toContain('"key": "checkout"');
    // The response: the first KiB of what the receiver answered, as text.
    const answered = await body(first, 'Response body');
    expect(answered.length).toBeGreaterThan(900);
    expect(Buffer.byteLength(answered)).toBeLessThanOrEqual(1024);
    expect(HOSTILE.startsWith(answered)).toBe(true);
    expect(await body(second, 'Response body')).toBe('thanks, got it');
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await page.locator('main img').count()).toBe(0);
  });

  it('keeps long and hostile bodies in their box: wrapped, isolated, scrolling with a visible cue', async () => {
    const { page } = d;
    const first = deliveries().first().locator('li.attempt').nth(1);
    const box = first.locator('figure', { hasText: 'Response body' }).locator('pre');
    expect(await first.getByText('Longer than the box: scroll inside it to read the rest.').count()).toBe(2);
    const measured = await box.evaluate((el) => ({
      sideways: el.scrollWidth - el.clientWidth,
      more: el.scrollHeight - el.clientHeight,
      bidi: getComputedStyle(el).unicodeBidi,
      tabIndex: el.tabIndex,
    }));
    expect(measured).toMatchObject({ sideways: 0, bidi: 'isolate', tabIndex: 0 });
    expect(measured.more).toBeGreaterThan(0);
    await screenshot(page, 'deliveries');
    // On a phone: each delivery a card, its actions in view, nothing wider than the screen.
    await page.setViewportSize(PHONE);
    await screenshot(page, 'deliveries-390');
    await screenshot(page, 'deliveries-390-dark', { colorScheme: 'dark' });
    const redeliver = deliveries()
      .first()
      .getByRole('button', { name: /^Redeliver / });
    const at = (await redeliver.boundingBox())!;
    expect(at.x + at.width).toBeLessThanOrEqual(PHONE.width);
    expect(await box.evaluate((el) => el.scrollWidth - el.clientWidth)).toBe(0);
    // Neither the webhooks list nor the deliveries scrolls sideways inside its own box either.
    const tables = await page
      .locator('.table-wrap')
      .evaluateAll((els) =>
        els.map((el) => `${el.getAttribute('aria-label')}: ${el.scrollWidth - el.clientWidth}`),
      );
    expect(tables).toEqual(['Webhooks: 0', 'Delivery list: 0']);
    expect(await checkEveryMode(page)).toEqual({});
    expect(d.problems).toEqual([]);
  });
});

/** The value of a fact (`<dt>`/`<dd>`) of an attempt. */
function fact(attempt: Locator, name: string): Promise<string | null> {
  return attempt.locator('dt', { hasText: name }).locator('xpath=following-sibling::dd[1]').textContent();
}

/** The text of an attempt's body box named `caption`. */
async function body(attempt: Locator, caption: string): Promise<string> {
  return (await attempt.locator('figure', { hasText: caption }).locator('pre').textContent()) ?? '';
}
