/**
 * Renaming, deleting and copying flags in the dashboard, driven in real headless Chromium
 * against a real server (`docs/protocol.md` §10.3): a mistyped project and environment renamed
 * while an SDK client stays connected through it; "Copy flags…" showing the preview (created,
 * changed, unchanged) before it copies, a preview gone stale refreshed with the reason; an
 * environment deleted only after its name is typed, its SDK client refused; nothing offered for
 * what the config file names. axe on every dialog in light and dark mode at 1280 and 390 px.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type FlagwireClient } from '../../../src/index.js';
import { type AdminCaller, adminCaller } from '../../helpers/admin.js';
import { launchedChromium } from '../../helpers/browser.js';
import { type DashboardPage, openDashboard } from '../../helpers/dashboard-page.js';
import { makeEnv, makeKey, sendOk } from '../../helpers/lifecycle.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { whenState, whenTrue } from '../../helpers/wait.js';

const browser = launchedChromium();
let t: TestServer;
let admin: AdminCaller;
let d: DashboardPage;
let sdk: FlagwireClient | undefined;
const dialog = () => d.page.getByRole('dialog');
/** The overview's section of project `key`. */
const project = (key: string) => d.page.getByRole('region', { name: key, exact: true });

beforeAll(async () => {
  t = await startTestServer();
  admin = await adminCaller(t.server);
  const staging = await makeEnv(admin, 'shpo', 'stagin');
  await makeEnv(admin, 'shpo', 'production');
  for (const key of ['banner', 'checkout', 'search'])
    await sendOk(admin, 'POST', `${staging}/flags`, { key, type: 'boolean' }, 201);
  await sendOk(admin, 'PATCH', `${staging}/flags/banner`, { enabled: true });
  const key = await makeKey(admin, staging, 'read-only');
  sdk = createClient({ baseUrl: t.base, apiKey: key.key, logger: false });
  await sdk.ready({ timeoutMs: 10_000 });
  d = await openDashboard(browser(), t.server);
}, 60_000);

afterAll(async () => {
  await sdk?.close();
  await d?.context.close();
  await t?.close();
});

describe('renaming', () => {
  it('renames a mistyped project, checking the new key as it is typed', async () => {
    await d.page.getByRole('button', { name: 'Rename project shpo' }).click();
    await dialog().getByRole('heading', { name: 'Rename project shpo' }).waitFor();
    await d.checkA11y('rename dialog');
    const field = dialog().getByLabel('New project key');
    const submit = dialog().getByRole('button', { name: 'Rename project' });
    await field.fill('acme');
    expect(await dialog().getByText('Project "acme" already exists.').isVisible()).toBe(true);
    expect(await submit.isDisabled()).toBe(true);
    await field.fill('shop');
    await submit.click();
    await d.page.getByRole('heading', { name: 'shop', exact: true }).waitFor();
    expect(await dialog().count()).toBe(0);
    expect(await d.page.getByRole('heading', { name: 'shpo' }).count()).toBe(0);
    const projects = (await sendOk(admin, 'GET', '/overview', undefined)).projects;
    expect(projects.map((p: { key: string }) => p.key)).toContain('shop');
  });

  it('renames an environment while an SDK client stays connected through its key', async () => {
    await d.page.getByRole('button', { name: 'Rename environment shop/stagin' }).click();
    await dialog().getByLabel('New environment key').fill('staging');
    await dialog().getByRole('button', { name: 'Rename environment' }).click();
    await project('shop').getByRole('link', { name: 'staging', exact: true }).waitFor();
    // Focus is on the renamed environment's Rename button, not lost with the old row.
    await expect
      .poll(() => d.page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
      .toBe('Rename environment shop/staging');
    expect(await project('shop').getByRole('link', { name: 'stagin', exact: true }).count()).toBe(0);
    await sendOk(admin, 'PATCH', '/environments/shop/staging/flags/checkout', { enabled: true });
    await whenTrue(sdk!, () => sdk!.isEnabled('checkout'));
    expect(sdk!.status().state).toBe('connected');
  });
});

describe('copying flags', () => {
  it('shows what the copy would do before it copies, and copies only what was chosen', async () => {
    await d.page.getByRole('button', { name: 'Copy flags from shop/staging' }).click();
    await dialog().getByRole('heading', { name: 'Copy flags from shop/staging' }).waitFor();
    await dialog().getByLabel('Copy to').selectOption('shop/production');
    await dialog().getByLabel('search').uncheck();
    await d.checkA11y('copy dialog: choosing');
    await dialog().getByRole('button', { name: 'Preview the copy' }).click();
    await dialog().getByRole('region', { name: 'What the copy would do' }).waitFor();
    const text = (await dialog().textContent())!;
    expect(text).toContain('2 created, 0 changed, 0 unchanged');
    expect(text).toContain('enabled: null → true');
    expect(text).not.toContain('search');
    await d.checkA11y('copy dialog: preview');
    // Nothing is written by the preview.
    expect(await sendOk(admin, 'GET', '/environments/shop/production/flags', undefined)).toEqual([]);
    await dialog().getByRole('button', { name: 'Copy 2 flags to shop/production' }).click();
    await dialog().getByText('Copied 2 flags to shop/production.').waitFor();
    await d.checkA11y('copy dialog: done');
    await dialog().getByRole('button', { name: 'Done' }).click();
    const flags = await sendOk(admin, 'GET', '/environments/shop/production/flags', undefined);
    expect(flags.map((f: { key: string; enabled: boolean }) => [f.key, f.enabled])).toEqual([
      ['banner', true],
      ['checkout', true],
    ]);
    const copied = (
      await sendOk(admin, 'GET', '/environments/shop/staging/history?flag=banner', undefined)
    )[0];
    expect(copied).toMatchObject({ action: 'copied', copiedTo: 'shop/production' });
    // Both histories say so on the page, one row per copied flag.
    const base = d.page.url().split('#')[0];
    await d.page.goto(`${base}#/env/shop/staging/history`);
    const note = (text: string) => d.page.locator('table.history .copied', { hasText: text });
    await note('to shop/production').first().waitFor();
    expect(await note('to shop/production').count()).toBe(2);
    await d.page.goto(`${base}#/env/shop/production/history`);
    await note('(copied from shop/staging)').first().waitFor();
    expect(await note('(copied from shop/staging)').count()).toBe(2);
    await d.page.goto(`${base}#/`);
  });

  it('says what changed since a stale preview, and shows the preview as it is now', async () => {
    await sendOk(admin, 'PATCH', '/environments/shop/staging/flags/banner', { enabled: false });
    await d.page.getByRole('button', { name: 'Copy flags from shop/staging' }).click();
    // The same project's other environment is offered first.
    expect(await dialog().getByLabel('Copy to').inputValue()).toBe('shop/production');
    await dialog().getByRole('button', { name: 'Preview the copy' }).click();
    await dialog().getByRole('region', { name: 'What the copy would do' }).waitFor();
    expect(await dialog().textContent()).toContain('1 created, 1 changed, 1 unchanged');
    // Someone changes the target meanwhile.
    await sendOk(admin, 'PATCH', '/environments/shop/production/flags/checkout', { enabled: false });
    await dialog().getByRole('button', { name: 'Copy 2 flags to shop/production' }).click();
    await dialog().getByRole('alert').filter({ hasText: 'preview the copy again' }).waitFor();
    // The refusal is the one failed request the page makes.
    const refused = d.problems.findIndex((p) => /status of 409 \(Conflict\)/.test(p));
    expect(refused).toBeGreaterThanOrEqual(0);
    d.problems.splice(refused, 1);
    await expect
      .poll(async () => (await dialog().textContent())!)
      .toContain('1 created, 2 changed, 0 unchanged');
    await dialog().getByRole('button', { name: 'Copy 3 flags to shop/production' }).click();
    await dialog().getByText('Copied 3 flags to shop/production.').waitFor();
    await dialog().getByRole('button', { name: 'Done' }).click();
    const flags = await sendOk(admin, 'GET', '/environments/shop/production/flags', undefined);
    expect(flags.map((f: { key: string }) => f.key)).toEqual(['banner', 'checkout', 'search']);
  });
});

describe('deleting', () => {
  it('offers nothing for what the config file names', async () => {
    await d.page.getByRole('heading', { name: 'acme' }).waitFor();
    for (const name of [
      'Rename project acme',
      'Delete project acme',
      'Rename environment acme/production',
      'Delete environment acme/production',
    ])
      expect(await d.page.getByRole('button', { name }).count()).toBe(0);
    expect(await d.page.getByRole('button', { name: 'Copy flags from acme/production' }).count()).toBe(1);
  });

  it('deletes an environment only after its name is typed; its SDK client is refused', async () => {
    await d.page.getByRole('button', { name: 'Delete environment shop/staging' }).click();
    await dialog().getByRole('heading', { name: 'Delete environment shop/staging?' }).waitFor();
    await d.checkA11y('delete dialog');
    const confirm = dialog().getByRole('button', { name: 'Delete environment' });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog().getByLabel('Environment to delete').fill('staging');
    expect(await confirm.isDisabled()).toBe(true);
    await dialog().getByLabel('Environment to delete').fill('shop/staging');
    await confirm.click();
    await whenState(sdk!, 'failed');
    expect(sdk!.status().lastError?.code).toBe('UNAUTHORIZED');
    await expect
      .poll(() => project('shop').getByRole('link', { name: 'staging', exact: true }).count())
      .toBe(0);
    expect(await dialog().count()).toBe(0);
    // Focus went back to the screen, not to the body.
    await expect.poll(() => d.page.evaluate(() => document.activeElement?.tagName)).toBe('H2');
  });

  it('had no accessibility problem and no script error', () => {
    expect(d.a11y).toEqual({});
    expect(d.problems).toEqual([]);
  });
});
