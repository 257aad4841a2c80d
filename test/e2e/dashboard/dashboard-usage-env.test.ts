/**
 * An environment's usage in the dashboard, in real headless Chromium against a real
 * server fed by real SDK clients (`docs/protocol.md` §13): four instances of two apps and three
 * versions report what they evaluate; one polls once an hour and one was closed before two flag
 * changes, so both hold an older revision; keys of a flag deleted while in use and of one never
 * created are evaluated. The usage clock (`startServer({ usage: { now } })`) moves days ahead
 * without waiting. The page lists apps, SDKs and versions with the instances behind called out,
 * and the unknown keys with "deleted 3 days ago", each linked to the new flag page with its key
 * filled in: a flag created there reaches the SDK that asked for it, and its key is no longer
 * unknown; the stale view lists the stale flags with the value to hard-code, and marks them
 * permanent or snoozed (and back) as the server then says; a failure is shown in words with
 * nothing pretended; usage off says so. axe on every screen in light and dark mode at 1280 and
 * 390 px.
 */
import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type FlagwireClient } from '../../../src/index.js';
import { type AdminCaller, adminCaller } from '../../helpers/admin.js';
import { launchedChromium } from '../../helpers/browser.js';
import {
  checkEveryMode,
  type DashboardPage,
  openDashboard,
  screenshot,
} from '../../helpers/dashboard-page.js';
import { type Json, sendOk } from '../../helpers/lifecycle.js';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';
import { whenTrue } from '../../helpers/wait.js';

const DAY = 24 * 60 * 60 * 1000;
const browser = launchedChromium();
let offset = 0;
let t: TestServer;
let closed = false;
let admin: AdminCaller;
let d: DashboardPage;
const clients: FlagwireClient[] = [];
const a11y: Record<string, unknown> = {};
const ENV = '/environments/acme/production';
const USAGE = '#/env/acme/production/usage';
/** The environment's revision when every client had loaded, before the two changes. */
let loadedRevision = 0;

const page = () => d.page;
const region = (name: string | RegExp) => page().getByRole('region', { name });
const usageNow = () => Date.now() + offset;
/** A usage read of the public API with the read-only key, as CI would make it. */
const read = async (path: string): Promise<Json> => {
  const res = await t.api('GET', `/usage/${path}`, undefined, KEYS.acmeProdRead);
  expect(res.status).toBe(200);
  return (await res.json()) as Json;
};

async function checkA11y(name: string): Promise<void> {
  const found = await checkEveryMode(page());
  if (Object.keys(found).length > 0) a11y[name] = found;
}

function client(app: { name: string; version: string }, polling = false): FlagwireClient {
  const c = createClient({
    baseUrl: t.base,
    apiKey: KEYS.acmeProdRead,
    logger: false,
    // Reports only when the test flushes (or closes) the client.
    usage: { flushIntervalMs: 3_600_000, app },
    ...(polling ? { stream: false, pollIntervalMs: 3_600_000 } : {}),
  });
  clients.push(c);
  return c;
}

/** The text of each row's cells as a person reads it at this size (spaces made one). */
const cellsOf = (rows: Locator) =>
  rows.evaluateAll((trs) =>
    trs
      .filter((tr) => tr.querySelector('td'))
      .map((tr) =>
        // innerText, not textContent: without the cell labels a phone shows and this size hides.
        // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is the point
        [...tr.querySelectorAll('td')].map((td) => td.innerText.replace(/\s+/g, ' ').trim()),
      ),
  );

const users = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `user-${i}` }));

beforeAll(async () => {
  t = await startTestServer({ usage: { now: usageNow } });
  admin = await adminCaller(t.server);
  await sendOk(admin, 'POST', `${ENV}/flags`, { key: 'new-checkout', type: 'boolean' }, 201);
  await sendOk(admin, 'PATCH', `${ENV}/flags/new-checkout`, { enabled: true });
  await sendOk(admin, 'POST', `${ENV}/flags`, { key: 'dark-launch', type: 'boolean' }, 201);
  await sendOk(admin, 'POST', `${ENV}/flags`, { key: 'old-banner', type: 'boolean' }, 201);
  d = await openDashboard(browser(), t.server);
  d.page.setDefaultTimeout(10_000);
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await d?.context.close();
  if (!closed) await t?.close();
});

describe('before any report', () => {
  it('says no SDK has reported yet and points to Connect your app', async () => {
    await page().goto(`${t.server.url}/#/env/acme/staging/flags`);
    await page()
      .getByRole('navigation', { name: 'Environment' })
      .getByRole('link', { name: 'Usage' })
      .click();
    await page().getByRole('heading', { name: 'Apps and SDK instances' }).waitFor();
    await page()
      .getByText(/^No SDK has reported yet/)
      .waitFor();
    expect(await page().getByText('Every key the SDKs evaluated in the last 30 days is a flag').count()).toBe(
      1,
    );
    await checkA11y('usage: nothing reported');
    await page().getByRole('link', { name: 'Connect your app' }).click();
    await page().getByRole('heading', { name: 'Connect your app' }).waitFor();
    expect(page().url()).toContain('#/env/acme/staging/connect');
  });

  it('says plainly when the server keeps no usage', async () => {
    const off = await startTestServer({ usage: false });
    const other = await openDashboard(browser(), off.server);
    try {
      for (const path of ['usage', 'usage/stale']) {
        await other.page.goto(`${off.server.url}/#/env/acme/production/${path}`);
        await other.page.getByText(/^Usage is off on this server: it was started with --no-usage/).waitFor();
        expect(await other.page.getByRole('heading', { name: 'Apps and SDK instances' }).count()).toBe(0);
        expect(await other.page.getByRole('heading', { name: /^Stale flags/ }).count()).toBe(0);
      }
      // A 404 that is not "usage off" (an unknown environment) keeps its own words.
      await other.page.goto(`${off.server.url}/#/env/acme/nowhere/usage`);
      await other.page.getByText('environment "acme/nowhere" not found').waitFor();
    } finally {
      await other.context.close();
      await off.close();
    }
  });
});

describe('the apps and SDKs of an environment', () => {
  it('are reported by real clients, one polling and one closed before two changes', async () => {
    const a = client({ name: 'checkout', version: '4.2.0' });
    const b = client({ name: 'checkout', version: '4.1.0' });
    const poller = client({ name: 'billing', version: '1.0.0' }, true);
    const old = client({ name: 'billing', version: '0.9.0' });
    await Promise.all(clients.map((c) => c.ready({ timeoutMs: 10_000 })));
    loadedRevision = a.status().revision!;
    expect(clients.map((c) => c.status().revision)).toEqual([1, 2, 3, 4].map(() => loadedRevision));
    // The old one evaluates, then stops: its last report says closed, at the revision it held.
    for (const user of users(4)) old.isEnabled('new-checkout', user);
    await old.close();
    // Two changes: a deletion and an update. The poller (once an hour) does not see them.
    await sendOk(admin, 'DELETE', `${ENV}/flags/old-banner`, undefined, 204);
    await sendOk(admin, 'PATCH', `${ENV}/flags/dark-launch`, { description: 'The new search, hidden' });
    await whenTrue(a, () => a.status().revision === loadedRevision + 2);
    await whenTrue(b, () => b.status().revision === loadedRevision + 2);
    expect(poller.status()).toMatchObject({ state: 'polling', revision: loadedRevision });
    // Three days later (by the usage clock) the running ones report.
    offset = 3 * DAY;
    for (const user of users(5)) a.isEnabled('new-checkout', user);
    for (const user of users(3)) a.isEnabled('old-banner', user);
    for (const user of users(2)) a.getString('chekout-typo', user, 'x');
    for (const user of users(2)) b.isEnabled('new-checkout', user);
    poller.isEnabled('new-checkout', { key: 'user-0' });
    expect(await Promise.all([a, b, poller].map((c) => c.flush()))).toEqual([true, true, true]);
    const answer = await read('clients');
    expect(answer.clients).toHaveLength(4);
    expect(answer.revision).toBe(loadedRevision + 2);
  });

  it("answers the server's time of the read with the clients (docs/protocol.md §13.7)", async () => {
    const before = usageNow();
    const { at } = await read('clients');
    expect(Date.parse(at)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(at)).toBeLessThanOrEqual(usageNow());
  });

  it('lists the apps with their instances, versions and SDKs, and calls out those behind', async () => {
    await page().goto(`${t.server.url}/#/env/acme/production/flags`);
    await page()
      .getByRole('navigation', { name: 'Environment' })
      .getByRole('link', { name: 'Usage' })
      .click();
    await page().getByRole('heading', { name: 'Apps and SDK instances' }).waitFor();
    const summary = page().getByText(/instances of 2 apps/);
    expect(await summary.textContent()).toBe(
      `4 instances of 2 apps; 3 reported in the last 10 minutes. This environment is at revision ${loadedRevision + 2}.`,
    );
    const checkout = region('App checkout');
    expect(await checkout.getByText(/^2 instances/).textContent()).toBe(
      '2 instances, 2 reported in the last 10 minutes; versions 4.2.0, 4.1.0',
    );
    const billing = region('App billing');
    expect(await billing.getByText(/^2 instances/).textContent()).toBe(
      '2 instances, 1 reported in the last 10 minutes; versions 1.0.0, 0.9.0',
    );
    // As shown (the cell labels are for phones only): instance, app version, SDK, runtime, state, revision, last seen.
    const rows = async (app: string) =>
      (await cellsOf(region(`App ${app}`).getByRole('row'))).map((cells) => cells.slice(1));
    const sdk = `flagwire-js ${(await read('clients')).clients[0].sdk.version}`;
    const runtime = `node/${process.versions.node}`;
    const current = `${loadedRevision + 2} (current)`;
    const behind = `${loadedRevision} (2 behind)`;
    expect(await rows('checkout')).toEqual(
      expect.arrayContaining([
        ['4.2.0', sdk, runtime, 'connected', current, 'just now'],
        ['4.1.0', sdk, runtime, 'connected', current, 'just now'],
      ]),
    );
    expect(await rows('billing')).toEqual([
      ['1.0.0', sdk, runtime, 'polling', behind, 'just now'],
      ['0.9.0', sdk, runtime, 'closed', behind, '3 days ago'],
    ]);
    const callout = region(/behind revision/);
    expect(await callout.getByRole('heading').textContent()).toBe(
      `2 instances behind revision ${loadedRevision + 2}, 1 still running`,
    );
    const items = await callout.getByRole('listitem').allInnerTexts();
    expect(items).toHaveLength(2);
    expect(items[0]).toMatch(
      new RegExp(
        `^billing 1\\.0\\.0 \\(i_.{8}…, ${sdk}\\) holds revision ${loadedRevision}, 2 revisions behind; polling, last seen just now\\. Still reporting, so it has missed changes`,
      ),
    );
    expect(items[1]).toMatch(
      /^billing 0\.9\.0 .* 2 revisions behind; closed, last seen 3 days ago\. Stopped: it loads the current flags when it starts again\.$/,
    );
  });

  it('lists the keys evaluated that are not flags: deleted 3 days ago, or never created', async () => {
    const table = page().getByRole('region', { name: 'Keys evaluated that are not flags' }).last();
    expect(await cellsOf(table.getByRole('row'))).toEqual([
      [
        'old-banner',
        '3',
        'just now',
        'deleted 3 days ago: history of old-banner · Create it again (old-banner)',
      ],
      ['chekout-typo', '2', 'just now', 'never existed here: Create flag chekout-typo'],
    ]);
    await checkA11y('usage: apps and unknown keys');
    await screenshot(page(), 'usage-environment');
    await table.getByRole('link', { name: 'history of old-banner' }).click();
    await page()
      .getByText(/deleted/i)
      .first()
      .waitFor();
    expect(page().url()).toContain('#/env/acme/production/history/old-banner');
    await page().goBack();
    // A deleted key is created again on the new flag page, its key filled in.
    await table.getByRole('link', { name: 'Create it again (old-banner)' }).click();
    await page().getByRole('heading', { name: 'New flag', exact: true }).waitFor();
    expect(page().url()).toContain('#/env/acme/production/new-flag/old-banner');
    expect(await page().getByLabel('Flag key').inputValue()).toBe('old-banner');
    // As a rollout this time: its percentage checked as typed.
    await page().getByLabel('Values are').selectOption('rollout');
    await page().getByLabel('Initial percentage').fill('120');
    await page().getByText('A whole number from 0 to 100.').waitFor();
    expect(await page().getByRole('button', { name: 'Create flag' }).isDisabled()).toBe(true);
    await page().getByLabel('Initial percentage').fill('25');
    await page().getByRole('button', { name: 'Create flag' }).click();
    await page().getByRole('heading', { name: 'Flag old-banner' }).waitFor();
    expect(await sendOk(admin, 'GET', `${ENV}/flags/old-banner`, undefined)).toMatchObject({
      type: 'rollout',
      percentage: 25,
      enabled: false,
    });
    // And deleted again, as it was (its page left first: it would fail to reload it).
    await page().goto(`${t.server.url}/${USAGE}`);
    await page().getByRole('link', { name: 'Create flag chekout-typo' }).waitFor();
    await sendOk(admin, 'DELETE', `${ENV}/flags/old-banner`, undefined, 204);
  });

  it('creates a flag from a key an SDK evaluated: the SDK gets its value, and the key is no longer unknown', async () => {
    const [a] = clients;
    const user = { key: 'user-0' };
    expect(a!.getString('chekout-typo', user, 'x')).toBe('x');
    const table = page().getByRole('region', { name: 'Keys evaluated that are not flags' }).last();
    await table.getByRole('link', { name: 'Create flag chekout-typo' }).click();
    await page().getByRole('heading', { name: 'New flag', exact: true }).waitFor();
    expect(page().url()).toContain('#/env/acme/production/new-flag/chekout-typo');
    const key = page().getByLabel('Flag key');
    expect(await key.inputValue()).toBe('chekout-typo');
    await page()
      .getByText(/^SDKs evaluated chekout-typo in this environment, where it is not a flag/)
      .waitFor();
    // Every type is offered: the code may read the key as any; on or off comes first.
    expect(await page().getByLabel('Values are').inputValue()).toBe('boolean');
    expect(
      await page()
        .getByLabel('Values are')
        .locator('option')
        .evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value)),
    ).toEqual(['boolean', 'rollout', 'string', 'number', 'json']);
    await checkA11y('new flag: its key filled in from the Usage tab');
    await screenshot(page(), 'usage-create-flag');
    // Still a key field like any: edited, checked as typed.
    const create = page().getByRole('button', { name: 'Create flag' });
    await key.fill('chekout typo');
    await page().getByText('Only letters, digits, ".", "_" and "-" are allowed.').waitFor();
    expect(await create.isDisabled()).toBe(true);
    await key.fill('chekout-typo');
    expect(await page().getByText('Only letters, digits').count()).toBe(0);
    // The code reads it with getString: a text flag, which serves its off variant while off.
    await page().getByLabel('Values are').selectOption('string');
    await page().getByLabel('Variant 1 value').fill('typo fixed');
    await create.click();
    await page().getByRole('heading', { name: 'Flag chekout-typo' }).waitFor();
    expect(page().url()).toContain('#/env/acme/production/flags/chekout-typo');
    // The client that evaluated the unknown key follows the stream and now gets the flag's value.
    await whenTrue(a!, () => a!.getString('chekout-typo', user, 'x') === 'typo fixed');
    expect(a!.getDetail('chekout-typo', user, 'x')).toMatchObject({ value: 'typo fixed', reason: 'OFF' });
    expect(await a!.flush()).toBe(true);
    expect(((await read('unknown')) as unknown as Json[]).map((k) => k.key)).toEqual(['old-banner']);
    await page().goto(`${t.server.url}/${USAGE}`);
    const table2 = page().getByRole('region', { name: 'Keys evaluated that are not flags' }).last();
    await table2.getByRole('link', { name: 'history of old-banner' }).waitFor();
    expect((await cellsOf(table2.getByRole('row'))).map((cells) => cells[0])).toEqual(['old-banner']);
    // Deleted again, so that the stale view below (days later by the usage clock) is as it was.
    await sendOk(admin, 'DELETE', `${ENV}/flags/chekout-typo`, undefined, 204);
  });
});

describe('the stale view', () => {
  const staleRow = (key: string) => region('Stale flags').getByRole('row').filter({ hasText: key });
  /** Each marked flag's mark as shown. */
  const marks = async () =>
    Object.fromEntries((await cellsOf(region('Marked flags').getByRole('row'))).map((c) => [c[0], c[1]]));
  const staleKeys = async () => ((await read('stale')).flags as Json[]).map((f) => f.key);

  it('lists the stale flags with their reasons, the value to hard-code and the rules', async () => {
    // Eight days after the flags were created (and the config's "seeded"), five after the reports.
    offset = 8 * DAY;
    expect(await staleKeys()).toEqual(['dark-launch', 'new-checkout', 'seeded']);
    await page().goto(`${t.server.url}/${USAGE}`);
    await page()
      .getByRole('navigation', { name: 'Usage' })
      .getByRole('link', { name: 'Stale flags' })
      .click();
    await page().getByRole('heading', { name: 'Stale flags (3)' }).waitFor();
    expect(
      await page()
        .getByText(/^A flag is stale when/)
        .textContent(),
    ).toMatch(
      /^A flag is stale when it was not evaluated for more than 30 days; when it was never evaluated and was created more than 7 days ago; or when, its settings unchanged for more than 7 days, it served one value to every evaluation of the last 7 days\./,
    );
    expect((await cellsOf(region('Stale flags').getByRole('row'))).map((cells) => cells.slice(0, 2))).toEqual(
      [
        ['dark-launch', 'Never evaluated: never evaluated, created 8 days ago'],
        [
          'new-checkout',
          'One value only: served only true (on) for 7 days, unchanged for 8 days: hard-code true ' +
            'Value to hard-code where the flag is read: true (variant on); then delete the flag.',
        ],
        ['seeded', 'Never evaluated: never evaluated, created 8 days ago'],
      ],
    );
    await page()
      .getByText(/^No flag is marked/)
      .waitFor();
    await checkA11y('stale: three flags');
    await screenshot(page(), 'usage-stale');
  });

  it('marks a flag permanent: gone from the list, and the server agrees', async () => {
    await page().getByRole('button', { name: 'Mark permanent dark-launch' }).click();
    await page().getByRole('status').getByText('dark-launch marked permanent').waitFor();
    await page().getByRole('heading', { name: 'Stale flags (2)' }).waitFor();
    expect(await staleRow('dark-launch').count()).toBe(0);
    expect(await marks()).toEqual({ 'dark-launch': 'Permanent' });
    expect(await staleKeys()).toEqual(['new-checkout', 'seeded']);
    expect(((await read('flags')) as unknown as Json[]).find((f) => f.key === 'dark-launch')).toMatchObject({
      permanent: true,
      snoozedUntil: null,
    });
  });

  it('snoozes a flag for 7 days: gone from the list until then, as the server says', async () => {
    await page().getByLabel('Snooze new-checkout for').selectOption('7');
    await page().getByRole('button', { name: 'Snooze new-checkout', exact: true }).click();
    await page()
      .getByRole('status')
      .getByText(/^new-checkout snoozed until /)
      .waitFor();
    await page().getByRole('heading', { name: 'Stale flags (1)' }).waitFor();
    expect(await staleRow('new-checkout').count()).toBe(0);
    expect(await marks()).toEqual({
      'dark-launch': 'Permanent',
      'new-checkout': expect.stringMatching(/^Snoozed until .+ \(in 7 days\)$/),
    });
    expect(await staleKeys()).toEqual(['seeded']);
    const mark = ((await read('flags')) as unknown as Json[]).find((f) => f.key === 'new-checkout')!;
    expect(mark.permanent).toBe(false);
    expect(Math.round((Date.parse(mark.snoozedUntil) - usageNow()) / DAY)).toBe(7);
    await checkA11y('stale: one flag, two marked');
  });

  it('takes marks back: unmarked and unsnoozed flags are listed again', async () => {
    await page().getByRole('button', { name: 'Unmark dark-launch' }).click();
    await page().getByRole('status').getByText('dark-launch is no longer permanent').waitFor();
    await staleRow('dark-launch').waitFor();
    expect(await staleKeys()).toEqual(['dark-launch', 'seeded']);
    await page().getByRole('button', { name: 'Unsnooze new-checkout' }).click();
    await page().getByRole('status').getByText('new-checkout is no longer snoozed').waitFor();
    await page().getByRole('heading', { name: 'Stale flags (3)' }).waitFor();
    expect(await staleKeys()).toEqual(['dark-launch', 'new-checkout', 'seeded']);
    await page()
      .getByText(/^No flag is marked/)
      .waitFor();
    expect(((await read('flags')) as unknown as Json[]).filter((f) => f.permanent || f.snoozedUntil)).toEqual(
      [],
    );
  });

  it('shows a failure in words and changes nothing on screen', async () => {
    // Nothing went wrong on the page so far.
    expect(d.problems).toEqual([]);
    await Promise.all(clients.map((c) => c.close()));
    await t.close();
    closed = true;
    await page().getByRole('button', { name: 'Mark permanent seeded' }).click();
    const alert = page().getByRole('alert').filter({ hasText: 'Could not mark seeded permanent' });
    await alert.waitFor();
    expect(await alert.textContent()).toBe(
      'Could not mark seeded permanent: Could not reach the server. Is flagwire-server running?',
    );
    expect(await staleRow('seeded').count()).toBe(1);
    expect(await page().getByRole('heading', { name: 'Stale flags (3)' }).count()).toBe(1);
    // The last success is no longer said, and none is pretended.
    expect(await page().getByText('new-checkout is no longer snoozed').count()).toBe(0);
    expect(await page().getByText('seeded marked permanent').count()).toBe(0);
  });
});

describe('accessibility', () => {
  it('finds no serious axe violation and no sideways scrolling on any usage screen', () => {
    expect(a11y).toEqual({});
  });
});
