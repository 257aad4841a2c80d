/**
 * The dashboard tells the truth about what it saved, in real headless Chromium against
 * a real server reached through a front the test takes down and brings back (test/helpers/front.ts):
 * a change the server never took (unreachable, or refusing) returns to the saved state with the
 * error next to its control, in view and announced; a connection banner while the live stream is
 * down that clears when it is back, together with the errors it caused; keyboard steps on a slider
 * saved once; an out-of-range row percentage kept and explained next to its input; "Saved" that
 * comes and goes; empty states that say what to do; the New flag form at the top.
 */
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminCaller, adminCaller } from '../../helpers/admin.js';
import { launchedChromium } from '../../helpers/browser.js';
import { type DashboardPage, openDashboard } from '../../helpers/dashboard-page.js';
import { startFront, type TestFront } from '../../helpers/front.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const browser = launchedChromium();
let t: TestServer;
let admin: AdminCaller;
let front: TestFront;
let d: DashboardPage;
let page: Page;

const staging = (path: string) => `/environments/acme/staging${path}`;
const openFlags = (env: string) => d.open(`#/env/acme/${env}/flags`);

/** The text of the elements that `aria-describedby` names: what a screen reader reads with the control. */
const describedBy = (control: Locator) =>
  control.evaluate((el) =>
    (el.getAttribute('aria-describedby') ?? '')
      .split(/\s+/)
      .map((id) => (id ? (document.getElementById(id)?.textContent ?? '') : ''))
      .join(' '),
  );

/** Whether the element is wholly inside the viewport as the page is scrolled now. */
const inView = (target: Locator) =>
  target.evaluate((el) => {
    const r = el.getBoundingClientRect();
    return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth;
  });

const serverFlag = async (key: string) => (await admin.call('GET', staging(`/flags/${key}`))).json();

/** The row (`<tr>`) that holds `control`. */
const rowOf = (control: Locator) => page.locator('tr', { has: control });

const banner = () => page.getByRole('status').filter({ hasText: /lost the connection/i });

beforeAll(async () => {
  // The front first: the server takes the page's Origin only as its public URL (§10.2).
  front = await startFront(() => t.server.port);
  t = await startTestServer({ publicUrl: front.url });
  admin = await adminCaller(t.server);
  // Enough flags that the ones under test sit far below the top of the list.
  for (let i = 1; i <= 24; i++) {
    await admin.call('POST', staging('/flags'), { key: `a-${String(i).padStart(2, '0')}`, type: 'boolean' });
  }
  await admin.call('POST', staging('/flags'), { key: 'zz-ramp', type: 'rollout', percentage: 40 });
  await admin.call('POST', staging('/flags'), { key: 'zz-switch', type: 'boolean' });
  await admin.call('POST', '/projects/acme/environments', { key: 'empty' });
  // Signed in through the front, which the page then reaches the server by.
  d = await openDashboard(browser(), t.server, { origin: front.url });
  page = d.page;
}, 60_000);

afterAll(async () => {
  await d?.context.close();
  await front?.close();
  await t?.close();
});

describe('changes the server never took', () => {
  it('a toggle the server cannot be reached for returns to its saved state, the error next to it, in view', async () => {
    await openFlags('staging');
    const toggle = page.getByRole('switch', { name: 'Enabled: zz-switch' });
    await toggle.scrollIntoViewIfNeeded();
    expect(await toggle.isChecked()).toBe(false);
    await front.down();
    await toggle.click();
    const alert = rowOf(toggle).getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/could not reach the server/i);
    await expect.poll(() => toggle.isChecked()).toBe(false);
    expect(await inView(alert)).toBe(true);
    expect(await describedBy(toggle)).toContain((await alert.textContent())!.trim());
    expect((await serverFlag('zz-switch')).enabled).toBe(false);
  });

  it('says the live connection is lost while it is, and clears that and the errors it caused when it is back', async () => {
    await banner().waitFor();
    expect(await inView(banner())).toBe(true);
    await d.checkA11y('flags, connection lost, a toggle not saved');
    await front.up();
    await banner().waitFor({ state: 'hidden' });
    await expect.poll(() => page.getByRole('alert').count()).toBe(0);
    // And things work again, with a confirmation that comes and goes.
    const toggle = page.getByRole('switch', { name: 'Enabled: zz-switch' });
    await toggle.click();
    await expect.poll(async () => (await serverFlag('zz-switch')).enabled).toBe(true);
    const saved = rowOf(toggle).getByRole('status').filter({ hasText: /saved/i });
    await saved.waitFor();
    expect(await toggle.isChecked()).toBe(true);
    await saved.waitFor({ state: 'hidden' });
  });

  it('a rollout change the server refuses returns to the saved percentage, the error next to it', async () => {
    const number = page.getByLabel('Rollout percent number: zz-ramp');
    const slider = page.getByLabel('Rollout percentage: zz-ramp');
    await number.scrollIntoViewIfNeeded();
    front.refuse(true);
    await number.fill('55');
    await number.press('Enter');
    const alert = rowOf(number).getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/unavailable/i);
    await expect.poll(() => number.inputValue()).toBe('40');
    expect(await slider.inputValue()).toBe('40');
    expect(await inView(alert)).toBe(true);
    expect(await describedBy(number)).toContain((await alert.textContent())!.trim());
    await d.checkA11y('flags, a rollout not saved');
    front.refuse(false);
    expect((await serverFlag('zz-ramp')).percentage).toBe(40);
    await banner().waitFor({ state: 'hidden' });
  });
});

describe('the rollout controls', () => {
  it('saves keyboard steps on the slider once, when the user stops', async () => {
    const slider = page.getByLabel('Rollout percentage: zz-ramp');
    await slider.focus();
    for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
    await expect.poll(async () => (await serverFlag('zz-ramp')).percentage).toBe(45);
    const history = await (await admin.call('GET', staging('/history?flag=zz-ramp'))).json();
    const steps = history.filter(
      (e: { action: string; changes: Array<{ field: string }> }) =>
        e.action === 'updated' && e.changes.some((c) => c.field === 'percentage'),
    );
    expect(steps.map((e: { changes: unknown }) => e.changes)).toEqual([
      [{ field: 'percentage', from: 40, to: 45 }],
    ]);
    const saved = rowOf(slider).getByRole('status').filter({ hasText: /saved/i });
    await saved.waitFor();
    await saved.waitFor({ state: 'hidden' });
  });

  it('keeps an out-of-range percentage in its input and says why next to it, in view', async () => {
    const number = page.getByLabel('Rollout percent number: zz-ramp');
    await number.scrollIntoViewIfNeeded();
    await number.fill('101');
    await number.press('Enter');
    const alert = rowOf(number).getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/0 to 100/);
    expect(await number.inputValue()).toBe('101');
    expect(await number.getAttribute('aria-invalid')).toBe('true');
    expect(await inView(alert)).toBe(true);
    expect(await describedBy(number)).toContain((await alert.textContent())!.trim());
    expect((await serverFlag('zz-ramp')).percentage).toBe(45);
    // Escape gives the saved value back, and the error goes with it.
    await number.press('Escape');
    await expect.poll(() => number.inputValue()).toBe('45');
    expect(await rowOf(number).getByRole('alert').count()).toBe(0);
  });
});

describe('where things are and what to do next', () => {
  it('puts the New flag form above the list, and its success message clears', async () => {
    const form = page.getByRole('region', { name: 'New flag' });
    const table = page.getByRole('table');
    expect((await form.boundingBox())!.y).toBeLessThan((await table.boundingBox())!.y);
    await page.getByLabel('Flag key', { exact: true }).fill('b-new');
    await page.getByRole('button', { name: 'Create flag' }).click();
    const done = form.getByRole('status').filter({ hasText: 'b-new' });
    await done.waitFor();
    await done.waitFor({ state: 'hidden' });
  });

  it('gives every empty list a next step', async () => {
    await openFlags('empty');
    await page.getByText(/no flags yet/i).waitFor();
    await d.checkA11y('flags, none yet');
    await page.getByRole('button', { name: /create (the first|one)/i }).click();
    expect(
      await page.getByLabel('Flag key', { exact: true }).evaluate((el) => el === document.activeElement),
    ).toBe(true);
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByText(/no API keys yet/i).waitFor();
    await d.checkA11y('API keys, none yet');
    await page.getByRole('button', { name: /create (the first|one)/i }).click();
    expect(await page.getByLabel('Key name').evaluate((el) => el === document.activeElement)).toBe(true);
    await page.getByRole('link', { name: 'History' }).click();
    await page.getByText(/no changes yet/i).waitFor();
    await d.checkA11y('history, none yet');
    await page.getByRole('main').getByRole('link', { name: /flags/i }).click();
    await page.getByRole('heading', { name: 'Flags' }).waitFor();
  });

  it('had no accessibility problem and no script error', () => {
    expect(d.a11y).toEqual({});
    // Failed requests are expected here (the front was down and refusing); script errors are not.
    expect(d.problems.filter((p) => p.startsWith('pageerror:'))).toEqual([]);
  });
});
