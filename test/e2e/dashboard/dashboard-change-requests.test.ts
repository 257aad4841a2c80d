/**
 * Change requests in the dashboard, in real headless Chromium (`docs/protocol.md` §10.7), in an
 * environment that needs one approval, on a server whose change-request clock the test holds:
 * Ann (an editor) edits a flag and requests the change (no Save there, and no Approve of her own
 * request); Bob (another editor, another browser context) opens the Changes page, reads the
 * change in sentences, approves it and schedules it; an SDK client sees nothing until the clock
 * passes the time, then the change; the history credits Ann and names Bob as approver, and a
 * webhook receiver gets created, approved, scheduled and applied with their actors.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type FlagwireClient } from '../../../src/index.js';
import { adminCaller } from '../../helpers/admin.js';
import { launchedChromium } from '../../helpers/browser.js';
import { checkEveryMode, collectProblems, DESKTOP, screenshot } from '../../helpers/dashboard-page.js';
import { type Member, type PeopleDriver, peopleDriver, uniqueEmail } from '../../helpers/people.js';
import { startReceiver, type TestReceiver } from '../../helpers/receiver.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { nextChange } from '../../helpers/wait.js';

const browser = launchedChromium();
const ENV = '/environments/acme/production';
/** The server's change-request clock: it moves only when the test moves it. */
const START = Math.floor(Date.now() / 60_000) * 60_000;
let clock = START;
/** When Bob schedules the change: an hour on, on that clock. */
const AT = START + 3_600_000;
const ZONE = 'America/New_York';

let t: TestServer;
let people: PeopleDriver;
let receiver: TestReceiver;
let sdk: FlagwireClient;
let ann: Member;
let bob: Member;
const contexts: BrowserContext[] = [];
const problems: string[] = [];
let requestId = '';

/** A browser context signed in as `member` (its session cookie), at `path`, in `timezoneId`. */
async function pageOf(member: Member, path: string, timezoneId = 'UTC'): Promise<Page> {
  const context = await browser().newContext({ viewport: DESKTOP, timezoneId });
  contexts.push(context);
  const [name, ...value] = member.cookie.split('=');
  await context.addCookies([{ name: name!, value: value.join('='), url: t.server.url }]);
  const page = await context.newPage();
  collectProblems(page, problems);
  await page.goto(`${t.server.url}/${path}`);
  page.setDefaultTimeout(10_000);
  return page;
}

const json = async (response: Promise<Response>) => {
  const r = await response;
  if (!r.ok) throw new Error(`${r.status}: ${await r.text()}`);
  return r.json();
};

beforeAll(async () => {
  t = await startTestServer({ changeRequests: { now: () => clock, pollMs: 20 } });
  people = peopleDriver(t.server.url, t.server.adminToken!);
  receiver = await startReceiver();
  await json(people.admin('PATCH', ENV, { approvals: 1 }));
  await json(
    people.admin('POST', `${ENV}/webhooks`, {
      url: receiver.url,
      events: ['created', 'approved', 'rejected', 'scheduled', 'applied', 'failed'].map(
        (e) => `change_request.${e}`,
      ),
    }),
  );
  const join = (name: string) =>
    people.join({ email: uniqueEmail(name.split(' ')[0]!.toLowerCase()), role: 'editor', name });
  [ann, bob] = await Promise.all([join('Ann Author'), join('Bob Reviewer')]);
  sdk = createClient({ baseUrl: t.base, apiKey: t.readKey, logger: false });
  await sdk.ready({ timeoutMs: 10_000 });
}, 60_000);

afterAll(async () => {
  await sdk?.close();
  for (const context of contexts) await context.close();
  await receiver?.close();
  await t?.close();
});

describe('a change request, reviewed and scheduled', () => {
  it('in an environment that needs approval, the flags list makes no quick changes', async () => {
    const page = await pageOf(ann, '#/env/acme/production/flags');
    await page.getByText("changes here need 1 approval: request them on a flag's page.").waitFor();
    expect(await page.getByRole('switch', { name: 'Enabled: seeded' }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Create flag' }).count()).toBe(0);
  });

  it('Ann edits a flag and requests the change instead of saving it', async () => {
    const page = await pageOf(ann, '#/env/acme/production/flags/seeded');
    await page.getByRole('heading', { name: 'Flag seeded' }).waitFor();
    await page.getByRole('switch', { name: 'Flag seeded on' }).uncheck();
    expect(await page.getByRole('button', { name: 'Review and save' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Review and request change' }).click();
    const dialog = page.getByRole('dialog', { name: 'Request changes to seeded?' });
    await dialog.getByText('off (was on)').waitFor();
    expect(await dialog.getByLabel('Title').inputValue()).toBe('Update seeded');
    await dialog.getByLabel('Title').fill('Switch seeded off');
    await dialog.getByLabel('Description (optional)').fill('The rollout is done with.');
    await dialog.getByRole('button', { name: 'Request change' }).click();
    // Her request's page: no Approve for its author, but Withdraw.
    await page.getByRole('heading', { name: /Switch seeded off/ }).waitFor();
    requestId = /changes\/(cr_[0-9a-f]{16})$/.exec(page.url())?.[1] ?? '';
    expect(requestId).not.toBe('');
    await page.getByRole('button', { name: 'Withdraw' }).waitFor();
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Reject' }).count()).toBe(0);
    // Nothing written yet.
    expect(sdk.allFlags().seeded?.enabled).toBe(true);
  });

  it('Bob finds it on the Changes page, reads it in sentences, approves and schedules it', async () => {
    // Bob is in New York: the times he writes and reads are New York's, and UTC beside them.
    // Ann keeps her request's page open: it follows what Bob does, live.
    const annPage = await pageOf(ann, `#/env/acme/production/changes/${requestId}`);
    await annPage.getByRole('heading', { name: /Switch seeded off/ }).waitFor();
    const page = await pageOf(bob, '#/env/acme/production/flags', ZONE);
    await page
      .getByRole('navigation', { name: 'Environment' })
      .getByRole('link', { name: 'Changes' })
      .click();
    await page.getByRole('heading', { name: 'Change requests' }).waitFor();
    const row = page.getByRole('region', { name: 'Open' }).getByRole('row', { name: /Switch seeded off/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('Ann Author');
    expect(await row.textContent()).toContain('0/1');
    expect(await checkEveryMode(page)).toEqual({});
    await row.getByRole('link', { name: 'Switch seeded off' }).click();
    await page.getByRole('heading', { name: /Switch seeded off/ }).waitFor();
    await page.getByText('The rollout is done with.').waitFor();
    await page.getByText('off (was on)').waitFor();
    await page.getByLabel('Comment (optional)').fill('Looks right.');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('Bob Reviewer approved').waitFor();
    await page.getByText('Looks right.').waitFor();
    await page.getByText('1 of 1').waitFor();
    // An hour on, written in the browser's own zone; read back in it and in UTC.
    const local = await page.evaluate((at) => {
      const d = new Date(at);
      d.setMinutes(d.getMinutes() - d.getTimezoneOffset());
      return d.toISOString().slice(0, 16);
    }, AT);
    await page.getByLabel('Apply at').fill(local);
    const utc = new Date(AT).toISOString().slice(11, 16);
    const there = new Date(AT).toLocaleTimeString('en-GB', {
      hour: '2-digit',
      minute: '2-digit',
      timeZone: ZONE,
    });
    expect(there).not.toBe(utc);
    const both = new RegExp(`, ${there} \\((.*, )?${utc} UTC\\)$`);
    await page.getByText(both).waitFor();
    await page.getByRole('button', { name: 'Schedule' }).click();
    await page.getByRole('heading', { name: /scheduled/ }).waitFor();
    await page.getByRole('definition').filter({ hasText: both }).waitFor();
    await annPage.getByRole('heading', { name: /scheduled/ }).waitFor();
    await annPage.getByText('Looks right.').waitFor();
    expect(await checkEveryMode(page)).toEqual({});
    await screenshot(page, 'change-request');
    const listed = await json(people.admin('GET', `${ENV}/change-requests/${requestId}`));
    expect(listed).toMatchObject({ state: 'scheduled', scheduledAt: new Date(AT).toISOString() });
  });

  it('applies at its time on the server clock, and the SDK client sees it then', async () => {
    expect(sdk.allFlags().seeded?.enabled).toBe(true);
    const changed = nextChange(sdk, 'seeded');
    clock = AT + 1000;
    await changed;
    expect(sdk.allFlags().seeded?.enabled).toBe(false);
    const history = (await json(people.admin('GET', `${ENV}/history?flag=seeded`))) as Array<{
      actor: { type: string; id: string };
      changeRequest?: { id: string; approvedBy: Array<{ id: string }> };
    }>;
    expect(history[0]).toMatchObject({
      actor: { type: 'user', id: ann.user.id },
      changeRequest: { id: requestId, approvedBy: [{ id: bob.user.id }] },
    });
  });

  it('sent created, approved, scheduled and applied to the webhook, each with its actor', async () => {
    await expect.poll(() => receiver.received.length).toBeGreaterThanOrEqual(4);
    const events = receiver.received.map((r) => {
      const data = r.json.data as { actor: { type: string; id: string }; changeRequest: { id: string } };
      return [r.json.type, data.actor.type, data.actor.id, data.changeRequest.id];
    });
    expect(events).toEqual([
      ['change_request.created', 'user', ann.user.id, requestId],
      ['change_request.approved', 'user', bob.user.id, requestId],
      ['change_request.scheduled', 'user', bob.user.id, requestId],
      ['change_request.applied', 'system', 'scheduler', requestId],
    ]);
  });
});

describe('a request whose flag moved', () => {
  it('shows the conflict to its author, who rebases it and then withdraws it', async () => {
    const made = (await json(
      ann.page('POST', `${ENV}/change-requests`, {
        title: 'Half of everyone',
        changes: [{ kind: 'flag', key: 'seeded', action: 'update', body: { percentage: 50 } }],
      }),
    )) as { id: string; changes: Array<{ baseVersion: number }> };
    const base = made.changes[0]!.baseVersion;
    // A key that bypasses approvals moves the flag meanwhile.
    const { key } = (await json(
      people.admin('POST', `${ENV}/keys`, { access: 'full', bypassApprovals: true }),
    )) as { key: string };
    const moved = await t.api('PATCH', '/flags/seeded', { description: 'moved meanwhile' }, key);
    expect(moved.status).toBe(200);
    const page = await pageOf(ann, `#/env/acme/production/changes/${made.id}`);
    const conflict = page.getByText(`flag seeded moved since: version ${base} → ${base + 1}`);
    await conflict.waitFor();
    expect(await checkEveryMode(page)).toEqual({});
    await page.getByRole('button', { name: 'Rebase' }).click();
    await conflict.waitFor({ state: 'detached' });
    expect(await page.getByRole('button', { name: 'Rebase' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Withdraw' }).click();
    await page.getByRole('heading', { name: /Half of everyone withdrawn/ }).waitFor();
    // No actions on a withdrawn request; the list has it among the recent ones.
    expect(await page.getByRole('button', { name: 'Apply now' }).count()).toBe(0);
    await page.getByRole('link', { name: '← All change requests' }).click();
    await page
      .getByRole('region', { name: 'Recent' })
      .getByRole('row', { name: /Half of everyone/ })
      .waitFor();
    expect(problems).toEqual([]);
  });

  it("a segment's page requests its change too, written against the version it read", async () => {
    const { key } = (await json(
      people.admin('POST', `${ENV}/keys`, { access: 'full', bypassApprovals: true }),
    )) as { key: string };
    const made = await t.api('POST', '/segments', { key: 'testers', included: ['ann'] }, key);
    expect(made.status).toBe(201);
    const version = Number(JSON.parse(made.headers.get('etag')!));
    const page = await pageOf(ann, '#/env/acme/production/segments/testers');
    await page.getByLabel('Segment description').fill('People who try things first');
    expect(await page.getByRole('button', { name: 'Review and save' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Review and request change' }).click();
    const dialog = page.getByRole('dialog', { name: 'Request changes to testers?' });
    expect(await dialog.getByLabel('Title').inputValue()).toBe('Update testers');
    await dialog.getByRole('button', { name: 'Request change' }).click();
    await page.getByRole('heading', { name: /Update testers/ }).waitFor();
    const id = /changes\/(cr_[0-9a-f]{16})$/.exec(page.url())?.[1];
    const request = (await json(people.admin('GET', `${ENV}/change-requests/${id}`))) as {
      changes: unknown[];
    };
    expect(request.changes).toEqual([
      {
        kind: 'segment',
        key: 'testers',
        action: 'update',
        body: { description: 'People who try things first' },
        baseVersion: version,
      },
    ]);
    expect(problems).toEqual([]);
  });

  it('an admin sets the approvals an environment needs, and makes a key that bypasses them', async () => {
    const { cookie } = await adminCaller(t.server);
    const admin = { cookie } as Member;
    const page = await pageOf(admin, '#/env/acme/staging/changes');
    const setting = page.getByLabel('Approvals needed (0: none)');
    expect(await setting.inputValue()).toBe('0');
    await setting.fill('2');
    await page.getByRole('button', { name: 'Save setting' }).click();
    await page.getByText("changes here need 2 approvals: request them on a flag's page.").waitFor();
    const overview = (await json(people.admin('GET', '/overview'))) as {
      projects: Array<{ key: string; environments: Array<{ key: string; approvals: number }> }>;
    };
    const staging = overview.projects
      .find((p) => p.key === 'acme')!
      .environments.find((e) => e.key === 'staging');
    expect(staging?.approvals).toBe(2);
    // An editor sees the setting, not the form.
    const editorPage = await pageOf(ann, '#/env/acme/staging/changes');
    await editorPage.getByText("changes here need 2 approvals: request them on a flag's page.").waitFor();
    expect(await editorPage.getByLabel('Approvals needed (0: none)').count()).toBe(0);

    await page.goto(`${t.server.url}/#/env/acme/staging/keys`);
    await page.getByLabel('Key name').fill('deploy bot');
    await page.getByLabel('Access').selectOption('bypass');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('button', { name: 'Copy key' }).waitFor();
    const keys = (await json(people.admin('GET', '/environments/acme/staging/keys'))) as Array<{
      name: string | null;
      access: string;
      bypassApprovals: boolean;
    }>;
    expect(keys.find((k) => k.name === 'deploy bot')).toMatchObject({
      access: 'full',
      bypassApprovals: true,
    });
    await page.getByRole('button', { name: 'Done' }).click();
    await page
      .getByRole('row', { name: /deploy bot/ })
      .getByText('full, bypasses approvals')
      .waitFor();
    expect(problems).toEqual([]);
  });
});
