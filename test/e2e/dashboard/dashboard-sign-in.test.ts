/**
 * The sign-in screen in real headless Chromium (`docs/protocol.md` §10.2): a pasted environment
 * API key (`fw_live_...`) or webhook secret is refused by the server and then named for what it
 * is, with where the admin token is; a wrong token gets the server's own answer; the printed
 * dashboard URL pasted whole signs in. axe in light and dark mode at 1280 and 390 px.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchedChromium } from '../../helpers/browser.js';
import {
  checkEveryMode,
  type DashboardPage,
  openDashboard,
  screenshot,
} from '../../helpers/dashboard-page.js';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';

const browser = launchedChromium();
let t: TestServer;
let d: DashboardPage;

beforeAll(async () => {
  t = await startTestServer();
}, 60_000);

afterAll(async () => {
  await d?.context.close();
  await t?.close();
});

async function submit(value: string): Promise<string> {
  const { page } = d;
  await page.getByLabel('Admin token').fill(value);
  await page.getByRole('button', { name: 'Sign in' }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  return (await alert.textContent()) ?? '';
}

describe('signing in with something that is not the admin token', () => {
  it('says an API key is an SDK API key, not the admin token, and where the admin token is', async () => {
    d = await openDashboard(browser(), t.server, { signedIn: false });
    const said = await submit(KEYS.acmeProdRead);
    expect(said).toContain('SDK API key');
    expect(said).toContain('not the admin token');
    for (const where of ['dashboard:', '--admin-token', 'FLAGWIRE_ADMIN_TOKEN', 'adminToken'])
      expect(said).toContain(where);
    // The key never signed anyone in.
    expect(await d.page.getByRole('heading', { name: 'Projects' }).count()).toBe(0);
    expect(await checkEveryMode(d.page)).toEqual({});
    await screenshot(d.page, 'sign-in-api-key');
  });

  it('says a webhook secret is a webhook secret', async () => {
    const said = await submit('whsec_0123456789abcdefghijklmnopqrstuv');
    expect(said).toContain('webhook signing secret');
    expect(said).toContain('FLAGWIRE_ADMIN_TOKEN');
  });

  it("gives a wrong token the server's own answer, without talk of API keys", async () => {
    const said = await submit('fw_admin_wrong0000000000000000000000000');
    expect(said).toMatch(/not the admin token/);
    expect(said).not.toContain('API key');
  });

  it('signs in with the printed dashboard URL pasted whole', async () => {
    await d.page.getByLabel('Admin token').fill(t.server.dashboardUrl!);
    await d.page.getByRole('button', { name: 'Sign in' }).click();
    await d.page.getByRole('heading', { name: 'Projects' }).waitFor();
    expect(d.problems).toEqual([]);
  });
});

describe('a #token= link that holds something else', () => {
  it('names an API key in the link as one, with where the admin token is', async () => {
    const { context, page } = await openDashboard(browser(), t.server, {
      signedIn: false,
      path: `#token=${KEYS.acmeProdRead}`,
    });
    try {
      const alert = page.getByRole('alert');
      await alert.waitFor();
      const said = (await alert.textContent()) ?? '';
      expect(said).toContain('SDK API key');
      expect(said).toContain('FLAGWIRE_ADMIN_TOKEN');
      // The fragment never stays in the address bar.
      expect(page.url()).not.toContain('token=');
    } finally {
      await context.close();
    }
  });
});
