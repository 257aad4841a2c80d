/**
 * User text and phones in the dashboard, in real headless Chromium against a real
 * server: descriptions and key names counted against the server's limits and never cut; long
 * text shortened in the flags list and the history with a way to see it whole; user text
 * isolated, so a right-to-left override does not move the row's buttons; at 390x844 every action
 * of the flags and keys pages in reach without sideways scrolling, and the Connect snippet whole;
 * axe on each screen in light and dark mode at 1280 and 390 px. The flags screen on a phone is
 * saved as flags-phone.png in SCREENSHOT_DIR (default: a temp folder).
 */
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminCaller, adminCaller } from '../../helpers/admin.js';
import { launchedChromium } from '../../helpers/browser.js';
import {
  type DashboardPage,
  DESKTOP,
  openDashboard,
  PHONE,
  screenshot,
} from '../../helpers/dashboard-page.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const browser = launchedChromium();
let t: TestServer;
let admin: AdminCaller;
let dash: DashboardPage;
let page: Page;

const staging = (path: string) => `/environments/acme/staging${path}`;
const RLO = '\u202E';
/** Words, so that it wraps as prose does: `n` characters of them. */
const prose = (n: number) =>
  'The quick brown fox jumps over the lazy dog. '.repeat(Math.ceil(n / 45)).slice(0, n);
const LONG = prose(1000);

/** Opens a tab of acme/staging and waits for its heading, exactly as given. */
const open = (tab: string, heading: string) =>
  dash.open(`#/env/acme/staging/${tab}`, new RegExp(`^${heading}$`));

/** Where the element is on the page (not in the viewport), rounded to the pixel. */
const box = (target: Locator) =>
  target.evaluate((el) => {
    const r = el.getBoundingClientRect();
    return [r.left + scrollX, r.top + scrollY, r.width, r.height].map(Math.round);
  });

/**
 * The controls of `main` a user cannot reach without scrolling sideways: outside the viewport's
 * width, or hidden by a box that clips or scrolls sideways. Named by their accessible label.
 */
const outOfReach = () =>
  page.evaluate(() => {
    const far: string[] = [];
    for (const el of document.querySelectorAll<HTMLElement>('main button, main input, main select, main a')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      let clipped = r.left < 0 || r.right > innerWidth;
      for (let p = el.parentElement; p && !clipped; p = p.parentElement) {
        if (getComputedStyle(p).overflowX === 'visible') continue;
        const c = p.getBoundingClientRect();
        clipped = r.left < c.left - 0.5 || r.right > c.right + 0.5;
      }
      if (clipped) far.push(el.getAttribute('aria-label') ?? el.textContent ?? el.tagName);
    }
    return far;
  });

const scrollsSideways = () => page.evaluate(() => document.scrollingElement!.scrollWidth > window.innerWidth);

beforeAll(async () => {
  t = await startTestServer();
  admin = await adminCaller(t.server);
  await admin.call('POST', staging('/flags'), {
    key: 'bidi',
    type: 'boolean',
    description: 'Ship it to the beta group',
  });
  await admin.call('POST', staging('/flags'), { key: 'long', type: 'boolean', description: LONG });
  await admin.call('PATCH', staging('/flags/long'), { description: `${LONG.slice(0, 999)}!` });
  await admin.call('POST', staging('/flags'), { key: 'ramp', type: 'rollout', percentage: 30 });
  await admin.call('PATCH', staging('/flags/ramp'), { enabled: true });
  await admin.call('POST', staging('/keys'), { access: 'read-only', name: 'checkout service' });
  dash = await openDashboard(browser(), t.server);
  page = dash.page;
}, 60_000);

afterAll(async () => {
  await dash?.context.close();
  await t?.close();
});

describe('text users write', () => {
  it('counts a description against the limit and never cuts a paste', async () => {
    await open('flags', 'Flags');
    const form = page.getByRole('region', { name: 'New flag' });
    await page.getByLabel('Flag key', { exact: true }).fill('pasted');
    const description = page.getByLabel('Flag description');
    await description.fill(prose(5040));
    expect((await description.inputValue()).length).toBe(5040);
    expect(await form.getByText('5,040 / 1,000 characters').isVisible()).toBe(true);
    expect(await form.getByRole('alert').textContent()).toMatch(/too long/i);
    expect(await description.getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByRole('button', { name: 'Create flag' }).isDisabled()).toBe(true);
    await description.fill(prose(1000));
    await form.getByText('1,000 / 1,000 characters').waitFor();
    await page.getByRole('button', { name: 'Create flag' }).click();
    await page.getByRole('switch', { name: 'Enabled: pasted' }).waitFor();
    expect((await (await admin.call('GET', staging('/flags/pasted'))).json()).description).toBe(prose(1000));
  });

  it('counts a description being edited, and a key name, the same way', async () => {
    await page.getByRole('button', { name: 'Edit description: ramp' }).click();
    const editor = page.getByLabel('Description of ramp');
    await editor.fill(prose(1001));
    expect((await editor.inputValue()).length).toBe(1001);
    await page.getByText('1,001 / 1,000 characters').waitFor();
    expect(await page.getByRole('button', { name: 'Save description' }).isDisabled()).toBe(true);
    await editor.press('Escape');
    await open('keys', 'API keys');
    const name = page.getByLabel('Key name');
    await name.fill('n'.repeat(101));
    expect((await name.inputValue()).length).toBe(101);
    await page.getByText('101 / 100 characters').waitFor();
    expect(await page.getByRole('button', { name: 'Create key' }).isDisabled()).toBe(true);
  });

  it('shortens long text in the flags list and the history, with a way to see it whole', async () => {
    await open('flags', 'Flags');
    const cell = page.locator('td', { has: page.getByRole('button', { name: 'Edit description: long' }) });
    const more = cell.getByRole('button', {
      name: /^show (all [\d,]+ characters|less) of the description of long$/i,
    });
    expect((await cell.textContent())!.length).toBeLessThan(300);
    expect(await more.getAttribute('aria-expanded')).toBe('false');
    expect(await more.textContent()).toMatch(/show all 1,000 characters/i);
    await more.click();
    expect(await more.getAttribute('aria-expanded')).toBe('true');
    expect(await cell.textContent()).toContain(`${LONG.slice(0, 999)}!`);
    await dash.checkA11y('flags, a long description open');

    await open('history', 'History');
    const changes = page.getByRole('region', { name: 'History' });
    await changes
      .getByRole('cell', { name: /^long$/ })
      .first()
      .waitFor();
    expect((await changes.textContent())!).not.toContain(LONG);
    const whole = page.getByRole('button', { name: /show all .* of the new description of long/i });
    expect(await whole.count()).toBe(2);
    await whole.first().click();
    expect(await page.getByRole('main').textContent()).toContain(`${LONG.slice(0, 999)}!`);
    await dash.checkA11y('history');
  });

  it('isolates user text: a right-to-left override in a description does not move the row’s buttons', async () => {
    await open('flags', 'Flags');
    const edit = page.getByRole('button', { name: 'Edit description: bidi' });
    const del = page.getByRole('button', { name: 'Delete bidi' });
    const toggle = page.getByRole('switch', { name: 'Enabled: bidi' });
    const measure = async () => {
      const boxes: number[][] = [];
      for (const size of [DESKTOP, PHONE]) {
        await page.setViewportSize(size);
        for (const target of [edit, del, toggle]) boxes.push(await box(target));
      }
      await page.setViewportSize(DESKTOP);
      return boxes;
    };
    const plain = await measure();
    await admin.call('PATCH', staging('/flags/bidi'), { description: `${RLO}Ship it to the beta group` });
    await page.getByText(`${RLO}Ship it to the beta group`).waitFor();
    expect(await measure()).toEqual(plain);
    await admin.call('PATCH', staging('/flags/bidi'), { description: 'Ship it to the beta group' });
    await page.getByText('Ship it to the beta group', { exact: true }).waitFor();
  });
});

describe('a phone, 390 x 844', () => {
  it('keeps every action of the flags page in reach without scrolling sideways', async () => {
    await page.setViewportSize(PHONE);
    await open('flags', 'Flags');
    await page.getByRole('switch', { name: 'Enabled: ramp' }).waitFor();
    expect(await scrollsSideways()).toBe(false);
    expect(await outOfReach()).toEqual([]);
    await screenshot(page, 'flags-phone');
    await dash.checkA11y('flags');
  });

  it('keeps every action of the API keys page in reach without scrolling sideways', async () => {
    await page.setViewportSize(PHONE);
    await open('keys', 'API keys');
    await page.getByRole('button', { name: 'Revoke checkout service' }).waitFor();
    expect(await scrollsSideways()).toBe(false);
    expect(await outOfReach()).toEqual([]);
    await dash.checkA11y('keys');
  });

  it('shows the Connect snippet whole', async () => {
    await page.setViewportSize(PHONE);
    await open('connect', 'Connect your app');
    const pre = page.locator('main pre').first();
    expect(await pre.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    expect(await scrollsSideways()).toBe(false);
    await page.setViewportSize(DESKTOP);
  });

  it('had no accessibility problem and no script error on any of these screens', () => {
    expect(dash.a11y).toEqual({});
    expect(dash.problems).toEqual([]);
  });
});
