/**
 * Two people editing one flag, in real headless Chromium against a real server: two
 * signed-in pages (two browser contexts) on `banner-colour`. B's save of an edit begun before
 * A's save is refused (`412`), and B gets the merge view with the three values of the field both
 * changed; combined, both targets are saved, and the environment's history has both changes.
 * "Keep editing" reviews against the server's version (the removal it would make is listed);
 * a further change elsewhere goes to the merge view, never to a review of a stale base. The
 * segment page merges the same way. Quick changes from the flags list, by a page that has not
 * heard of a change (its live feed held), never overwrite it: a rollout set elsewhere is
 * refused, a toggle of another field goes through, a deletion is refused. Every write the pages
 * made, logged from the browser, names a version in `If-Match`. axe on the merge views in light
 * and dark mode at 1280 and 390 px.
 */
import type { Locator, Page, Request, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminCaller, adminCaller } from '../../helpers/admin.js';
import { launchedChromium } from '../../helpers/browser.js';
import { type DashboardPage, openDashboard } from '../../helpers/dashboard-page.js';
import { type Json, sendOk } from '../../helpers/lifecycle.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const browser = launchedChromium();
let t: TestServer;
let admin: AdminCaller;
const pages: DashboardPage[] = [];
const ENV = '/environments/acme/production';
const FLAG_PAGE = '#/env/acme/production/flags/banner-colour';
const SEGMENT_PAGE = '#/env/acme/production/segments/beta';

/** Every write of a flag or a segment the pages sent, with its `If-Match` and its answer. */
const writes: Array<{ method: string; url: string; ifMatch: string | undefined; status?: number }> = [];
/** Event streams held open unanswered: a page that hears of no change. */
const held: Route[] = [];

const WRITE = /\/admin\/api\/environments\/[^/]+\/[^/]+\/(flags|segments)\/[^/?]+$/;
function logWrites(page: Page): void {
  const sent = new Map<Request, (typeof writes)[number]>();
  page.on('request', (r) => {
    if ((r.method() !== 'PATCH' && r.method() !== 'DELETE') || !WRITE.test(r.url())) return;
    const entry = { method: r.method(), url: r.url(), ifMatch: r.headers()['if-match'] };
    sent.set(r, entry);
    writes.push(entry);
  });
  page.on('response', (r) => {
    const entry = sent.get(r.request());
    if (entry) Object.assign(entry, { status: r.status() });
  });
}

async function open(path: string, heading: string): Promise<DashboardPage> {
  const d = await openDashboard(browser(), t.server, { path, heading });
  logWrites(d.page);
  pages.push(d);
  return d;
}

const flag = () => sendOk(admin, 'GET', `${ENV}/flags/banner-colour`, undefined);
const dialog = (d: DashboardPage, name: string) => d.page.getByRole('dialog', { name });
const mergeView = (d: DashboardPage, what = 'Flag banner-colour') =>
  dialog(d, `${what} was changed elsewhere`);
const review = (d: DashboardPage, key = 'banner-colour') => dialog(d, `Save changes to ${key}?`);
const elsewhere = (d: DashboardPage) =>
  d.page.getByRole('alert').filter({ hasText: 'was changed elsewhere' });

async function addChips(input: Locator, ...values: string[]): Promise<void> {
  for (const value of values) {
    await input.fill(value);
    await input.press('Enter');
  }
}
const blueInput = (d: DashboardPage) => d.page.getByLabel('Users who get blue', { exact: true });

beforeAll(async () => {
  t = await startTestServer();
  admin = await adminCaller(t.server);
  await sendOk(
    admin,
    'POST',
    `${ENV}/flags`,
    {
      key: 'banner-colour',
      type: 'string',
      variants: { blue: 'Blue banner', red: 'Red banner' },
      offVariant: 'red',
      fallthrough: { variant: 'blue' },
    },
    201,
  );
  await sendOk(admin, 'POST', `${ENV}/flags`, { key: 'checkout', type: 'rollout', percentage: 30 }, 201);
  await sendOk(admin, 'POST', `${ENV}/segments`, { key: 'beta', included: ['ann'] }, 201);
}, 60_000);

afterAll(async () => {
  for (const route of held) await route.abort().catch(() => {});
  for (const d of pages) await d.context.close();
  await t?.close();
});

describe('two people editing one flag', () => {
  let a: DashboardPage;
  let b: DashboardPage;

  it('B saving an edit begun before A saved gets the merge view; combined, both targets are kept', async () => {
    a = await open(FLAG_PAGE, 'Flag banner-colour');
    b = await open(FLAG_PAGE, 'Flag banner-colour');
    // B adds bob and has the review open: it lists bob only.
    await addChips(blueInput(b), 'bob');
    await b.page.getByRole('button', { name: 'Review and save' }).click();
    expect(await review(b).textContent()).toContain('blue: added 1 key: bob');
    // Meanwhile A adds alice and saves.
    await addChips(blueInput(a), 'alice');
    await a.page.getByRole('button', { name: 'Review and save' }).click();
    await review(a).getByRole('button', { name: 'Save changes' }).click();
    await a.page.getByText('Saved: 1 change.').waitFor();
    expect((await flag()).targets).toEqual([{ variant: 'blue', keys: ['alice'] }]);

    // B saves the review it had open: refused, nothing written, the merge view instead.
    await review(b).getByRole('button', { name: 'Save changes' }).click();
    await mergeView(b).waitFor();
    expect(await review(b).count()).toBe(0);
    expect((await flag()).targets).toEqual([{ variant: 'blue', keys: ['alice'] }]);
    const both = mergeView(b).getByRole('group', { name: 'Individual targets: changed on both sides' });
    const values = await both.locator('dd').allTextContents();
    expect(values[0]).toBe('none');
    expect(values[1]).toContain('blue: 1 key: alice');
    expect(values[2]).toContain('blue: 1 key: bob');
    expect(await mergeView(b).getByRole('button', { name: 'Review the result' }).isDisabled()).toBe(true);
    await b.checkA11y('merge view of a flag');

    await both.getByRole('radio', { name: /^Combine both/ }).check();
    await mergeView(b).getByRole('button', { name: 'Review the result' }).click();
    await review(b).waitFor();
    // Reviewed against the server's version: only bob is added, nothing removed.
    const text = (await review(b).textContent()) ?? '';
    expect(text).toContain('blue: added 1 key: bob');
    expect(text).not.toContain('removed');
    await review(b).getByRole('button', { name: 'Save changes' }).click();
    await b.page.getByText('Saved: 1 change.').waitFor();
    expect((await flag()).targets).toEqual([{ variant: 'blue', keys: ['alice', 'bob'] }]);

    const history = (await sendOk(admin, 'GET', `${ENV}/history`, undefined)) as unknown as Json[];
    const changes = history
      .filter((e) => e.flag === 'banner-colour' && e.action === 'updated')
      .map((e) => [e.actor.type, e.changes]);
    expect(changes).toEqual([
      [
        'adminToken',
        [
          {
            field: 'targets',
            from: [{ variant: 'blue', keys: ['alice'] }],
            to: [{ variant: 'blue', keys: ['alice', 'bob'] }],
          },
        ],
      ],
      ['adminToken', [{ field: 'targets', from: null, to: [{ variant: 'blue', keys: ['alice'] }] }]],
    ]);
    // A's page, untouched, follows B's save.
    await expect
      .poll(() => a.page.getByRole('list', { name: 'Users who get blue (list)' }).textContent())
      .toBe('alice×bob×');
  });

  it('"Keep editing" reviews against the server: the removal is listed; a further change goes to the merge view', async () => {
    // From alice and bob (B, untouched, follows), B adds carol while dave is added elsewhere.
    await sendOk(admin, 'PATCH', `${ENV}/flags/banner-colour`, {
      targets: [{ variant: 'blue', keys: ['alice', 'bob'] }],
    });
    await expect
      .poll(() => b.page.getByRole('list', { name: 'Users who get blue (list)' }).textContent())
      .toBe('alice×bob×');
    await addChips(blueInput(b), 'carol');
    await sendOk(admin, 'PATCH', `${ENV}/flags/banner-colour`, {
      targets: [{ variant: 'blue', keys: ['alice', 'bob', 'dave'] }],
    });
    await elsewhere(b).waitFor();
    expect(await elsewhere(b).textContent()).toContain('Individual targets: blue: added 1 key: dave');
    await elsewhere(b).getByRole('button', { name: 'Keep editing' }).click();
    await b.page.getByRole('button', { name: 'Review and save' }).click();
    const kept = (await review(b).textContent()) ?? '';
    expect(kept).toContain('blue: added 1 key: carol');
    expect(kept).toContain('blue: removed 1 key: dave');
    await review(b).getByRole('button', { name: 'Keep editing' }).click();

    // Changed elsewhere again (erin added, the flag turned on): "Review and save" merges first.
    await sendOk(admin, 'PATCH', `${ENV}/flags/banner-colour`, {
      enabled: true,
      targets: [{ variant: 'blue', keys: ['alice', 'bob', 'dave', 'erin'] }],
    });
    await elsewhere(b).waitFor();
    await b.page.getByRole('button', { name: 'Review and save' }).click();
    await mergeView(b).waitFor();
    expect(await review(b).count()).toBe(0);
    expect(await mergeView(b).textContent()).toContain('On/offon (was off)');
    await mergeView(b)
      .getByRole('group', { name: 'Individual targets: changed on both sides' })
      .getByRole('radio', { name: /^Combine both/ })
      .check();
    await mergeView(b).getByRole('button', { name: 'Review the result' }).click();
    // Every change the save makes to the server's version: dave's removal (kept), carol; not erin's.
    const merged = (await review(b).textContent()) ?? '';
    expect(merged).toContain('blue: added 1 key: carol');
    expect(merged).toContain('blue: removed 1 key: dave');
    expect(merged).not.toContain('erin');
    expect(merged).not.toContain('On/off');
    await review(b).getByRole('button', { name: 'Save changes' }).click();
    await b.page.getByText('Saved: 1 change.').waitFor();
    expect(await flag()).toMatchObject({
      enabled: true,
      targets: [{ variant: 'blue', keys: ['alice', 'bob', 'erin', 'carol'] }],
    });
  });
});

describe('a segment edited in two places', () => {
  it('is merged the same way: both users included', async () => {
    const d = await open(SEGMENT_PAGE, 'Segment beta');
    await addChips(d.page.getByLabel('Included user keys', { exact: true }), 'bea');
    await d.page.getByRole('button', { name: 'Review and save' }).click();
    await review(d, 'beta').waitFor();
    await sendOk(admin, 'PATCH', `${ENV}/segments/beta`, {
      included: ['ann', 'cid'],
      description: 'Early testers',
    });
    await review(d, 'beta').getByRole('button', { name: 'Save changes' }).click();
    const view = mergeView(d, 'Segment beta');
    await view.waitFor();
    expect(await view.textContent()).toContain('Description');
    await d.checkA11y('merge view of a segment');
    await view
      .getByRole('group', { name: 'Included users: changed on both sides' })
      .getByRole('radio', { name: /^Combine both/ })
      .check();
    await view.getByRole('button', { name: 'Review the result' }).click();
    expect(await review(d, 'beta').textContent()).toContain('added 1 key: bea');
    await review(d, 'beta').getByRole('button', { name: 'Save changes' }).click();
    await d.page.getByText('Saved: 1 change.').waitFor();
    expect(await sendOk(admin, 'GET', `${ENV}/segments/beta`, undefined)).toMatchObject({
      description: 'Early testers',
      included: ['ann', 'cid', 'bea'],
    });
  });
});

describe('quick changes from the flags list', () => {
  let c: DashboardPage;
  const row = () => c.page.getByRole('row').filter({ hasText: 'checkout' });
  const checkout = () => sendOk(admin, 'GET', `${ENV}/flags/checkout`, undefined);

  it('never overwrite a change the list has not heard of', async () => {
    c = await open('#/env/acme/production/flags', 'Flags');
    // The list's live feed is held: it hears of no change made elsewhere from now on.
    await c.context.route('**/admin/api/events', (route) => {
      held.push(route);
    });
    await c.page.reload();
    await c.page.getByRole('heading', { name: 'Flags' }).waitFor();
    await expect.poll(() => row().getByLabel('Rollout percent number: checkout').inputValue()).toBe('30');

    // Someone sets the rollout to 40; this page, still showing 30, sets 50: refused, not written.
    await sendOk(admin, 'PATCH', `${ENV}/flags/checkout`, { percentage: 40 });
    const number = row().getByLabel('Rollout percent number: checkout');
    await number.fill('50');
    await number.press('Enter');
    await row()
      .getByText(/^Not saved: it was changed elsewhere meanwhile/)
      .waitFor();
    expect((await checkout()).percentage).toBe(40);
    await expect.poll(() => number.inputValue()).toBe('40');

    // Someone changes the description; this page turns the flag on: another field, so it is saved.
    await sendOk(admin, 'PATCH', `${ENV}/flags/checkout`, { description: 'Set by ops' });
    await row().getByRole('switch', { name: 'Enabled: checkout' }).click();
    await row().getByText('Saved: on').waitFor();
    expect(await checkout()).toMatchObject({ enabled: true, percentage: 40, description: 'Set by ops' });

    // A deletion of a flag changed meanwhile is refused, then made once the list shows it again.
    await sendOk(admin, 'PATCH', `${ENV}/flags/checkout`, { percentage: 45 });
    await row().getByRole('button', { name: 'Delete checkout' }).click();
    const confirm = dialog(c, 'Delete flag checkout?');
    await confirm.getByLabel('Flag key to delete').fill('checkout');
    await confirm.getByRole('button', { name: 'Delete flag' }).click();
    await confirm.getByText(/^Not deleted: it was changed elsewhere meanwhile/).waitFor();
    expect((await checkout()).percentage).toBe(45);
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => number.inputValue()).toBe('45');
    await row().getByRole('button', { name: 'Delete checkout' }).click();
    await confirm.getByLabel('Flag key to delete').fill('checkout');
    await confirm.getByRole('button', { name: 'Delete flag' }).click();
    await expect.poll(() => row().count()).toBe(0);
    const res = await admin.call('GET', `${ENV}/flags/checkout`);
    expect(res.status).toBe(404);
  });
});

describe('every write of the dashboard', () => {
  it('names the version it was made from in If-Match', () => {
    for (const w of writes) expect(w.ifMatch, `${w.method} ${w.url}`).toMatch(/^"\d+"$/);
    // Saves of the flag and the segment pages, quick changes and deletions from the list.
    expect(writes.map((w) => w.method)).toEqual(expect.arrayContaining(['PATCH', 'DELETE']));
    expect(writes.length).toBeGreaterThanOrEqual(10);
    // Those made against a version that had moved were refused and wrote nothing.
    expect(writes.filter((w) => w.status === 412).length).toBeGreaterThanOrEqual(4);
  });

  it('the list of flags answers each flag with its version (its ETag)', async () => {
    const list = (await sendOk(admin, 'GET', `${ENV}/flags`, undefined)) as unknown as Json[];
    const one = await admin.call('GET', `${ENV}/flags/banner-colour`);
    const listed = list.find((f) => f.key === 'banner-colour')!;
    expect(`"${listed.version}"`).toBe(one.headers.get('etag'));
  });
});

describe('accessibility', () => {
  it('finds no serious axe violation and no sideways scrolling on the merge views', () => {
    for (const d of pages) expect(d.a11y).toEqual({});
    // The only failed requests are the refused writes (412) the tests asked for.
    const problems = pages.flatMap((d) => d.problems);
    expect(problems.filter((p) => !/status of 412 \(Precondition Failed\)/.test(p))).toEqual([]);
  });
});
