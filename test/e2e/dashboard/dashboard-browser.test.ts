/**
 * The dashboard driven in real headless Chromium against a real server (`docs/protocol.md` §10):
 * sign in by the printed URL; create a project, an environment and a key, and use that key with
 * the SDK; create, toggle and roll out flags and see the SDK follow; see API changes appear
 * live; history; webhooks with a test delivery; revoke a key and see its stream closed; XSS and
 * CSRF; a wrong token; axe-core on every screen; light, dark and 360 px. Screenshots of the main
 * screens go to SCREENSHOT_DIR (default: a temp folder).
 */
import { createServer, type Server } from 'node:http';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createManagementClient, type FlagwireClient } from '../../../src/index.js';
import { type AdminCaller, adminCaller } from '../../helpers/admin.js';
import { seriousViolations } from '../../helpers/axe.js';
import { launchedChromium } from '../../helpers/browser.js';
import {
  collectProblems,
  type DashboardPage,
  DESKTOP,
  openDashboard,
  screenshot,
  sidewaysOverflow,
} from '../../helpers/dashboard-page.js';
import { startReceiver, type TestReceiver } from '../../helpers/receiver.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { whenState, whenTrue } from '../../helpers/wait.js';

const browser = launchedChromium();
let t: TestServer;
let admin: AdminCaller;
let d: DashboardPage;
let page: Page;
let receiver: TestReceiver;
let sdk: FlagwireClient | undefined;
let sdkKey = '';
const a11y: Record<string, unknown[]> = {};

/** Runs axe on the page as it is, recording serious or critical violations under `screen`. */
async function checkA11y(screen: string): Promise<void> {
  const found = await seriousViolations(page);
  if (found.length > 0) a11y[screen] = found;
}

const env = (path: string) => `/environments/shop/live${path}`;

beforeAll(async () => {
  t = await startTestServer();
  admin = await adminCaller(t.server);
  receiver = await startReceiver();
}, 60_000);

afterAll(async () => {
  await sdk?.close();
  await d?.context.close();
  await receiver?.close();
  await t?.close();
});

describe('signing in', () => {
  it('shows the sign-in screen without a credential and refuses a wrong token', async () => {
    d = await openDashboard(browser(), t.server, { signedIn: false });
    page = d.page;
    await checkA11y('sign-in');
    await screenshot(page, 'sign-in');
    await page.getByLabel('Admin token').fill('fw_admin_wrong0000000000000000000000000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toMatch(/admin token/i);
    expect(await page.getByRole('heading', { name: 'Projects' }).count()).toBe(0);
    await page.goto(`${t.server.url}/#token=fw_admin_wrong0000000000000000000000000`);
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('heading', { name: 'Projects' }).count()).toBe(0);
  });

  it('signs in by the printed URL, drops the token from the address bar, and keeps only an HttpOnly cookie', async () => {
    await page.goto(t.server.dashboardUrl!);
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    expect(page.url()).toBe(`${t.server.url}/`);
    const cookies = await d.context.cookies();
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ name: 'flagwire_admin', httpOnly: true, sameSite: 'Strict' });
    expect(cookies[0]!.value).not.toContain(t.server.adminToken!);
    const stored = await page.evaluate(
      () => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }),
    );
    expect(stored).not.toContain(t.server.adminToken!);
    expect(await page.content()).not.toContain(t.server.adminToken!);
    // The config file's project is there, marked as such.
    await page.getByRole('heading', { name: 'acme' }).waitFor();
    await checkA11y('projects');
  });
});

describe('projects, environments and keys', () => {
  it('creates a project and an environment', async () => {
    await page.getByLabel('Project key').fill('bad key!');
    expect(await page.getByRole('button', { name: 'Create project' }).isDisabled()).toBe(true);
    await page.getByLabel('Project key').fill('shop');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name: 'shop' }).waitFor();
    await page.getByLabel('New environment in shop').fill('live');
    await page.getByRole('button', { name: 'Create environment in shop' }).click();
    await page.getByRole('heading', { name: 'Flags' }).waitFor();
    const overview = await (await admin.call('GET', '/overview')).json();
    expect(overview.projects.find((p: { key: string }) => p.key === 'shop').environments).toMatchObject([
      { key: 'live', source: 'dashboard' },
    ]);
    await page.getByRole('link', { name: 'Projects' }).click();
    await page.getByRole('link', { name: 'live' }).waitFor();
    await screenshot(page, 'projects');
    await page.getByRole('link', { name: 'live' }).click();
    await page.getByRole('heading', { name: 'Flags' }).waitFor();
  });

  it('creates a read-only key, shown once, that the SDK client then uses', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByLabel('Key name').fill('web');
    await page.getByLabel('Access').selectOption('read-only');
    await page.getByRole('button', { name: 'Create key' }).click();
    const value = page.getByLabel('New API key value');
    await value.waitFor();
    sdkKey = (await value.textContent())!.trim();
    expect(sdkKey).toMatch(/^fw_live_[A-Za-z0-9]{32}$/);
    await checkA11y('api-keys');
    await screenshot(page, 'api-keys');
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.content()).not.toContain(sdkKey);
    await page.getByRole('cell', { name: 'web' }).waitFor();
    sdk = createClient({ baseUrl: t.base, apiKey: sdkKey, logger: false });
    await sdk.ready({ timeoutMs: 10_000 });
    await whenState(sdk, 'connected');
  });
});

describe('flags', () => {
  it('creates a flag with the key rules checked inline, and the SDK client sees it', async () => {
    await page.getByRole('link', { name: 'Flags' }).click();
    await page.getByRole('heading', { name: 'Flags' }).waitFor();
    await page.getByLabel('Flag key', { exact: true }).fill('-nope');
    expect(await page.getByRole('button', { name: 'Create flag' }).isDisabled()).toBe(true);
    await page.getByLabel('Flag key', { exact: true }).fill('checkout');
    await page.getByLabel('Flag description').fill('The new checkout');
    await page.getByRole('button', { name: 'Create flag' }).click();
    await page.getByRole('switch', { name: 'Enabled: checkout' }).waitFor();
    await whenTrue(sdk!, () => sdk!.allFlags().checkout !== undefined);
    expect(sdk!.isEnabled('checkout', 'u1')).toBe(false);
  });

  it('toggles a flag in the page, and the SDK client flips', async () => {
    await page.getByRole('switch', { name: 'Enabled: checkout' }).click();
    await whenTrue(sdk!, () => sdk!.isEnabled('checkout', 'u1'));
    expect(await page.getByRole('switch', { name: 'Enabled: checkout' }).isChecked()).toBe(true);
    // By keyboard too.
    await page.getByRole('switch', { name: 'Enabled: checkout' }).focus();
    await page.keyboard.press('Space');
    await whenTrue(sdk!, () => !sdk!.isEnabled('checkout', 'u1'));
  });

  it('moves a rollout by number and by slider', async () => {
    await page.getByLabel('Flag key', { exact: true }).fill('ramp');
    await page.getByLabel('Flag type').selectOption('rollout');
    await page.getByLabel('Initial percentage').fill('10');
    await page.getByRole('button', { name: 'Create flag' }).click();
    const number = page.getByLabel('Rollout percent number: ramp');
    await number.waitFor();
    await number.fill('40');
    await number.press('Enter');
    await expect
      .poll(async () => (await (await admin.call('GET', env('/flags/ramp'))).json()).percentage)
      .toBe(40);
    expect(await page.getByLabel('Rollout percentage: ramp').inputValue()).toBe('40');
    const slider = page.getByLabel('Rollout percentage: ramp');
    await slider.focus();
    await page.keyboard.press('ArrowRight');
    await expect
      .poll(async () => (await (await admin.call('GET', env('/flags/ramp'))).json()).percentage)
      .toBe(41);
    await whenTrue(sdk!, () => sdk!.allFlags().ramp !== undefined);
  });

  it('shows a change made through the API without a reload, and renders user text as text', async () => {
    const xss = '<img src=x onerror="window.__xss=1">';
    // A full key of this environment, made through the admin API, writes through /api/v1.
    const full = await (await admin.asPage('POST', env('/keys'), { access: 'full', name: 'ci' })).json();
    const created = await fetch(`${t.server.url}/api/v1/flags`, {
      method: 'POST',
      headers: { authorization: `Bearer ${full.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ key: 'from-api', type: 'boolean', description: xss }),
    });
    expect(created.status).toBe(201);
    await page.getByText(xss, { exact: true }).waitFor({ timeout: 10_000 });
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await page.locator('main img').count()).toBe(0);
    // And a change through the SDK's management client.
    await createManagementClient({ baseUrl: t.base, apiKey: full.key }).flags.update('from-api', {
      enabled: true,
    });
    await expect
      .poll(() => page.getByRole('switch', { name: 'Enabled: from-api' }).isChecked(), { timeout: 10_000 })
      .toBe(true);
    await checkA11y('flags');
  });

  it('shows a change made in a second tab without a reload', async () => {
    const second = await d.context.newPage();
    collectProblems(second, d.problems);
    await second.goto(page.url());
    await second.getByRole('switch', { name: 'Enabled: checkout' }).click();
    await expect
      .poll(() => page.getByRole('switch', { name: 'Enabled: checkout' }).isChecked(), { timeout: 10_000 })
      .toBe(true);
    await second.getByRole('switch', { name: 'Enabled: checkout' }).click();
    await expect
      .poll(() => page.getByRole('switch', { name: 'Enabled: checkout' }).isChecked(), { timeout: 10_000 })
      .toBe(false);
    await second.close();
  });

  it('filters by search and state, and edits a description', async () => {
    await page.getByLabel('Search flags').fill('ramp');
    await expect.poll(() => page.getByRole('switch').count()).toBe(1);
    await page.getByLabel('Search flags').fill('');
    await page.getByLabel('State').selectOption('on');
    await expect.poll(() => page.getByRole('switch').count()).toBe(1);
    await page.getByLabel('State').selectOption('all');
    await page.getByRole('button', { name: 'Edit description: ramp' }).click();
    await page.getByLabel('Description of ramp').fill('Ramping up');
    await page.getByRole('button', { name: 'Save description' }).click();
    await expect
      .poll(async () => (await (await admin.call('GET', env('/flags/ramp'))).json()).description)
      .toBe('Ramping up');
  });

  it('deletes a flag only after its key is typed', async () => {
    await page.getByRole('button', { name: 'Delete from-api' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'Delete flag from-api?' }).waitFor();
    await checkA11y('delete-dialog');
    expect(await dialog.getByRole('button', { name: 'Delete flag' }).isDisabled()).toBe(true);
    await dialog.getByLabel('Flag key to delete').fill('from-ap');
    expect(await dialog.getByRole('button', { name: 'Delete flag' }).isDisabled()).toBe(true);
    await dialog.getByLabel('Flag key to delete').fill('from-api');
    await dialog.getByRole('button', { name: 'Delete flag' }).click();
    await expect.poll(async () => (await admin.call('GET', env('/flags/from-api'))).status).toBe(404);
    await expect.poll(() => page.getByRole('switch', { name: 'Enabled: from-api' }).count()).toBe(0);
    await screenshot(page, 'flags');
  });
});

describe('history, webhooks, live', () => {
  it('shows every change with what changed and through which credential', async () => {
    await page.getByRole('link', { name: 'History' }).click();
    await page.getByRole('heading', { name: 'History' }).waitFor();
    await page.getByRole('cell', { name: 'Admin token' }).first().waitFor();
    const text = (await page.locator('main').textContent())!;
    expect(text).toContain('percentage');
    expect(text).toMatch(/API key fw_live_…\w{4}/);
    expect(text).toContain('deleted');
    await checkA11y('history');
    await screenshot(page, 'history');
    await page.getByLabel('History of flag').selectOption('ramp');
    await expect
      .poll(async () => (await page.locator('main').textContent())!.includes('from-api'))
      .toBe(false);
  });

  it('creates a webhook (secret shown once), sends a test and shows it in the deliveries log', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    await page.getByLabel('Webhook URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const secret = page.getByLabel('Webhook secret value');
    await secret.waitFor();
    expect((await secret.textContent())!.trim()).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: `Send test: ${receiver.url}` }).click();
    const delivered = await receiver.next();
    expect(delivered.json.type).toBe('webhook.test');
    await page.getByRole('heading', { name: `Deliveries to ${receiver.url}` }).waitFor();
    await page.getByRole('cell', { name: 'succeeded' }).waitFor({ timeout: 5000 });
    await checkA11y('webhooks');
    await screenshot(page, 'webhooks');
    const id = delivered.json.delivery.id;
    await page.getByRole('button', { name: `Redeliver ${id}` }).click();
    expect((await receiver.next()).json.id).toBe(delivered.json.id);
  });

  it('shows the live number of SDK streams and a ready snippet for the environment', async () => {
    await page.getByRole('link', { name: 'Connect' }).click();
    await page.getByRole('heading', { name: 'Connect your app' }).waitFor();
    await expect.poll(() => page.getByTestId('stream-count').textContent()).toBe('1');
    const snippet = (await page.locator('pre code').first().textContent())!;
    expect(snippet).toContain(`baseUrl: '${t.server.url}/api/v1'`);
    expect(snippet).toContain('createClient');
    await checkA11y('connect');
    await screenshot(page, 'connect');
  });

  it('revokes a key: the SDK client is refused and its stream closed', async () => {
    await page.getByRole('link', { name: 'API keys', exact: true }).click();
    await page.getByRole('button', { name: 'Revoke web' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await whenState(sdk!, 'failed');
    expect(sdk!.status().lastError?.code).toBe('UNAUTHORIZED');
    const overview = await (await admin.call('GET', '/overview')).json();
    const live = overview.projects.find((p: { key: string }) => p.key === 'shop').environments[0];
    expect(live.streams).toBe(0);
    await page.getByRole('link', { name: 'Connect' }).click();
    await expect.poll(() => page.getByTestId('stream-count').textContent()).toBe('0');
  });
});

describe('security and layout', () => {
  let other: Server;

  afterAll(() => other?.close());

  it('refuses a state-changing request from another origin, even with the session cookie', async () => {
    other = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p>other</p>'),
    );
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const otherUrl = `http://127.0.0.1:${(other.address() as { port: number }).port}`;
    const tab = await d.context.newPage();
    await tab.goto(otherUrl);
    const status = await tab.evaluate(async (target) => {
      // A "simple" request: no preflight, so it reaches the server, cookie and foreign Origin included.
      await fetch(`${target}/admin/api/projects`, {
        method: 'POST',
        mode: 'no-cors',
        credentials: 'include',
        headers: { 'content-type': 'text/plain' },
        body: JSON.stringify({ key: 'csrf-attack' }),
      });
      return 'sent';
    }, t.server.url);
    expect(status).toBe('sent');
    await tab.close();
    const overview = await (await admin.call('GET', '/overview')).json();
    expect(overview.projects.map((p: { key: string }) => p.key)).not.toContain('csrf-attack');
  });

  it('follows a dark system theme, and stays usable at 360 px', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.getByRole('link', { name: 'Flags' }).click();
    await page.getByRole('heading', { name: 'Flags' }).waitFor();
    const dark = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await checkA11y('flags-dark');
    await screenshot(page, 'flags-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    const light = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(dark).not.toBe(light);
    await page.setViewportSize({ width: 360, height: 800 });
    expect(await sidewaysOverflow(page)).toBe(0);
    expect(await page.getByRole('button', { name: 'Create flag' }).isVisible()).toBe(true);
    await checkA11y('flags-360');
    await screenshot(page, 'flags-360');
    await page.setViewportSize(DESKTOP);
  });

  it('had no accessibility problem, no script error and no CSP violation on any screen', () => {
    expect(a11y).toEqual({});
    // No script error, and no console error (CSP violations included) but the sign-in probe's 401.
    expect(d.problems).toEqual([]);
  });
});
