/**
 * People in the dashboard, in real headless Chromium (`docs/protocol.md` §10.6): the admin
 * invites someone from the Members screen (an editor, but a viewer inside project acme) and reads
 * the one-time link; in a browser of their own the person opens it, sets a password and is signed
 * in under their name; inside acme the flag controls are disabled, saying the role they need; the
 * profile makes a personal token (shown once) and lists the session; signed out, a wrong password
 * gets the server's one answer and the right one signs in. Each password costs a scrypt (~0.8 s),
 * so there are three: the invitation's, the wrong one and the right one. Screenshots
 * people-sign-in, people-members and people-profile go to SCREENSHOT_DIR.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchedChromium } from '../../helpers/browser.js';
import {
  checkEveryMode,
  type DashboardPage,
  openDashboard,
  screenshot,
} from '../../helpers/dashboard-page.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const browser = launchedChromium();
let t: TestServer;
/** The admin token's page. */
let admin: DashboardPage;
/** The invited person's page, in a context of its own. */
let vera: DashboardPage;
let inviteUrl = '';

const EMAIL = 'vera@example.com';
const NAME = 'Vera Viewer';
const PASSWORD = 'correct horse battery staple';

beforeAll(async () => {
  t = await startTestServer();
}, 60_000);

afterAll(async () => {
  await vera?.context.close();
  await admin?.context.close();
  await t?.close();
});

describe('the admin invites a person', () => {
  it('shows who is signed in, and Members to an admin', async () => {
    admin = await openDashboard(browser(), t.server);
    const account = admin.page.getByRole('navigation', { name: 'Account' });
    expect(await account.textContent()).toContain('Admin token');
    await account.getByRole('link', { name: 'Members' }).click();
    await admin.page.getByRole('heading', { name: 'Members' }).waitFor();
    await admin.page.getByText(/Nobody has an account yet/).waitFor();
  });

  it('invites with a global role and a role inside a project, and shows the link once', async () => {
    const { page } = admin;
    await page.getByLabel('E-mail address').fill(EMAIL);
    await page.getByLabel('Name (optional)').fill(NAME);
    await page.getByLabel('Role', { exact: true }).selectOption('editor');
    await page.getByLabel('Project', { exact: true }).selectOption('acme');
    await page.getByLabel('Role in that project').selectOption('viewer');
    await page.getByRole('button', { name: 'Add project role' }).click();
    expect(await page.getByLabel('Role in project acme', { exact: true }).inputValue()).toBe('viewer');
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    const link = page.getByRole('status', { name: 'Invitation link' });
    await link.waitFor();
    inviteUrl = ((await link.textContent()) ?? '').trim();
    expect(inviteUrl).toMatch(new RegExp(`^${t.server.url}/#invite=\\S+$`));
    await page.getByRole('button', { name: 'Copy link' }).waitFor();
    await page.getByRole('button', { name: 'Done' }).click();
    // The list: invited, an editor, a viewer inside acme.
    const row = page.getByRole('row', { name: new RegExp(EMAIL) });
    await row.waitFor();
    const text = (await row.textContent()) ?? '';
    expect(text).toContain('invited');
    expect(text).toContain('acme: viewer');
    expect(await row.getByLabel(`Role of ${EMAIL}`).inputValue()).toBe('editor');
    await row.getByRole('button', { name: `New link for ${EMAIL}` }).waitFor();
    expect(await checkEveryMode(page)).toEqual({});
    await screenshot(page, 'people-members');
  });
});

describe('the person invited', () => {
  it('opens the link, sets a password and is signed in under their name', async () => {
    vera = await openDashboard(browser(), t.server, { signedIn: false });
    const { page } = vera;
    await page.goto(inviteUrl);
    await page.getByRole('heading', { name: 'Set your password' }).waitFor();
    // The link's token leaves the address bar at once.
    expect(page.url()).not.toContain('invite=');
    const password = page.getByLabel('Password', { exact: true });
    await password.fill('too short');
    await page.getByText('At least 12 characters: 3 more (9 so far).').waitFor();
    await password.fill(PASSWORD);
    await page.getByText(/long enough/).waitFor();
    expect(await checkEveryMode(page)).toEqual({});
    await page.getByRole('button', { name: 'Set password and continue' }).click();
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    const account = page.getByRole('navigation', { name: 'Account' });
    expect(await account.textContent()).toContain(NAME);
    // No Members for an editor.
    expect(await account.getByRole('link', { name: 'Members' }).count()).toBe(0);
    // An editor, but no admin: no new projects, no renaming.
    expect(await page.getByRole('button', { name: 'Create project' }).count()).toBe(0);
    expect(await page.getByText(/Creating projects: Needs the admin role/).count()).toBe(1);
  });

  it('as a viewer inside acme, finds the flag controls disabled with the reason', async () => {
    const { page } = vera;
    await vera.open('#/env/acme/production/flags', 'Flags');
    await page.getByText(/Needs the editor role \(you are a viewer in project acme\)/).waitFor();
    const toggle = page.getByRole('switch', { name: 'Enabled: seeded' });
    expect(await toggle.isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Delete seeded' }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Edit description: seeded' }).isDisabled()).toBe(true);
    expect(await page.getByLabel('Rollout percentage: seeded').isDisabled()).toBe(true);
    const why = await page.getByRole('button', { name: 'Delete seeded' }).getAttribute('title');
    expect(why).toBe('Needs the editor role (you are a viewer in project acme)');
    // No form to create flags, nor the link to the page that does.
    expect(await page.getByRole('button', { name: 'Create flag' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: /New flag with variants/ }).count()).toBe(0);
    // The server agrees: a write is refused naming the role (sent beside the page, whose console stays clean).
    const refused = await vera.context.request.patch(
      `${t.server.url}/admin/api/environments/acme/production/flags/seeded`,
      { headers: { origin: t.server.url, 'if-match': '"0"' }, data: { enabled: false } },
    );
    expect(refused.status()).toBe(403);
    expect((await refused.json()).message).toMatch(
      /needs the editor role in project "acme"; you are a viewer/,
    );
    // Outside acme the global role holds: an editor there.
    await vera.open('#/env/other/production/flags', 'Flags');
    await page.getByRole('button', { name: 'Create flag', exact: true }).waitFor();
    expect(await page.getByText(/Needs the editor role/).count()).toBe(0);
  });

  it('makes a personal token on the profile, shown once, and sees this session', async () => {
    const { page } = vera;
    await vera.open('#/profile', 'Profile');
    await page.getByLabel('Token name').fill('deploy script');
    await page.getByRole('button', { name: 'Create token' }).click();
    const token = page.getByLabel('New personal token');
    await token.waitFor();
    expect((await token.textContent())?.trim()).toMatch(/^fw_pat_[A-Za-z0-9]{40}$/);
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('row', { name: /deploy script/ }).waitFor();
    await page.getByText('this session').waitFor();
    await page.getByRole('heading', { name: 'Password' }).waitFor();
    expect(await checkEveryMode(page)).toEqual({});
    await screenshot(page, 'people-profile');
  });

  it('signs out; a wrong password is refused with the message; the right one signs in', async () => {
    const { page } = vera;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password').fill('not the password at all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe('that e-mail address and password do not match');
    expect(await checkEveryMode(page)).toEqual({});
    await screenshot(page, 'people-sign-in');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Back where the session ended: the profile.
    await page.getByRole('heading', { name: 'Profile' }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Account' }).textContent()).toContain(NAME);
    expect(vera.problems).toEqual([]);
    expect(admin.problems).toEqual([]);
  });
});
