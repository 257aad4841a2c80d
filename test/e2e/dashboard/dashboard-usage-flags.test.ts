/**
 * Usage in the dashboard's flags list and on a flag's page, in real headless Chromium
 * against a real server fed by real SDK clients: two apps evaluate a seeded mix (a rollout flag,
 * some users without a key, a string flag with a target and a rule, a type mismatch, a flag that
 * only ever serves true, a key that is no flag) in three batches 5 hours, 2 hours and 0 hours
 * before "now", each flushed. The server's usage clock and the page's clock are set 8 days after
 * the flags were made, so a flag never evaluated is stale. The list shows when each flag was last
 * evaluated, its last 24 hours, why it is stale, and filters; the flag page's chart shows what
 * the clients were answered, per step, range by range, with the flag's changes marked and the
 * share of true observed beside the configured one. Everything asserted is what the clients
 * tallied themselves. Axe in light and dark mode at 1280 and 390 px on each screen.
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
import { Rng } from '../../helpers/prng.js';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';

const browser = launchedChromium();
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const ENV = '/environments/acme/staging';
/** "Now" for the usage clock and the page: 8 days after the flags are made, half past an hour. */
const NOW = Math.ceil((Date.now() + 8 * DAY) / HOUR) * HOUR + 30 * MINUTE;
const BATCHES = [NOW - 5 * HOUR, NOW - 2 * HOUR, NOW];
const REASONS: Record<string, string> = {
  ROLLOUT_IN: 'in rollout',
  ROLLOUT_OUT: 'out of rollout',
  MISSING_USER_KEY: 'no user key',
  ERROR: 'error',
};
const en = (n: number) => n.toLocaleString('en-US');

let usageNow = Date.now();
let t: TestServer;
let admin: AdminCaller;
let d: DashboardPage;
let web: FlagwireClient;
let worker: FlagwireClient;
const a11y: Record<string, unknown> = {};

/** What the clients were answered: flag -> when its batch was committed -> series -> count. */
const tally = new Map<string, Map<number, Map<string, number>>>();
/** Evaluations per flag and app. */
const byApp = new Map<string, Map<string, number>>();
/** `true` served per flag, and `true` or `false` served. */
const served = new Map<string, { yes: number; all: number }>();

function count(flag: string, series: string, app: string, value: unknown): void {
  const at = tally.get(flag) ?? new Map<number, Map<string, number>>();
  tally.set(flag, at);
  const steps = at.get(usageNow) ?? new Map<string, number>();
  at.set(usageNow, steps);
  steps.set(series, (steps.get(series) ?? 0) + 1);
  const apps = byApp.get(flag) ?? new Map<string, number>();
  byApp.set(flag, apps);
  apps.set(app, (apps.get(app) ?? 0) + 1);
  if (typeof value === 'boolean') {
    const s = served.get(flag) ?? { yes: 0, all: 0 };
    served.set(flag, { yes: s.yes + (value ? 1 : 0), all: s.all + 1 });
  }
}

/** A rollout flag's evaluation, counted as the page names its series: "on, in rollout". */
function rollout(client: FlagwireClient, app: string, key: string | undefined): void {
  const detail = client.isEnabledDetail('checkout', key === undefined ? undefined : { key });
  // The variant a boolean or rollout flag serves is on or off, as its value says.
  count('checkout', `${detail.value ? 'on' : 'off'}, ${REASONS[detail.reason]}`, app, detail.value);
}

/** A string flag's evaluation, counted per variant (the caller's default with its reason). */
function banner(client: FlagwireClient, app: string, key: string, plan: string, mismatch = false): void {
  const detail = mismatch
    ? client.getDetail('banner', { key, plan }, 0)
    : client.getDetail('banner', { key, plan }, 'none');
  count('banner', detail.variant ?? `caller's default, ${REASONS[detail.reason]}`, app, undefined);
}

function darkMode(client: FlagwireClient, app: string, key: string): void {
  const detail = client.isEnabledDetail('dark-mode', { key });
  count('dark-mode', detail.value ? 'on' : 'off', app, detail.value);
}

/** Every batch: the usage clock set to its time, evaluations, both clients flushed. */
async function batch(at: number, work: () => void): Promise<void> {
  usageNow = at;
  work();
  expect(await web.flush()).toBe(true);
  expect(await worker.flush()).toBe(true);
}

const total = (flag: string) =>
  [...(tally.get(flag)?.values() ?? [])].reduce((a, s) => a + [...s.values()].reduce((x, y) => x + y, 0), 0);

/** The rows the chart's table should have: per step with evaluations, each series' count. */
function expectedRows(flag: string, size: number, series: string[]): string[][] {
  const steps = new Map<number, Map<string, number>>();
  for (const [at, counts] of tally.get(flag) ?? []) {
    const step = Math.floor(at / size);
    const into = steps.get(step) ?? new Map<string, number>();
    steps.set(step, into);
    for (const [name, n] of counts) into.set(name, (into.get(name) ?? 0) + n);
  }
  return [...steps.keys()]
    .sort((a, b) => a - b)
    .map((step) => {
      const counts = series.map((name) => steps.get(step)!.get(name) ?? 0);
      return [...counts, counts.reduce((a, b) => a + b, 0)].map(en);
    });
}

const page = () => d.page;
const flagRow = (key: string) =>
  page().locator('table.flags tbody tr', { has: page().getByRole('link', { name: key, exact: true }) });
const usageRegion = () => page().getByRole('region', { name: 'Usage' });

async function checkA11y(name: string): Promise<void> {
  const found = await checkEveryMode(page());
  if (Object.keys(found).length > 0) a11y[name] = found;
}

/** The chart's text alternative: its rows' numbers (the time column left out). */
async function tableRows(region: Locator): Promise<string[][]> {
  return region
    .locator('.visually-hidden table tbody tr')
    .evaluateAll((rows) =>
      rows.map((row) => [...row.querySelectorAll('td')].map((td) => td.textContent ?? '')),
    );
}

beforeAll(async () => {
  t = await startTestServer({ usage: { now: () => usageNow } });
  admin = await adminCaller(t.server);
  const create = (body: Json) => sendOk(admin, 'POST', `${ENV}/flags`, body, 201);
  await create({ key: 'checkout', type: 'rollout', percentage: 10 });
  await sendOk(admin, 'PATCH', `${ENV}/flags/checkout`, { enabled: true });
  await sendOk(admin, 'PATCH', `${ENV}/flags/checkout`, { percentage: 25 });
  await create({
    key: 'banner',
    type: 'string',
    variants: { blue: 'Blue banner', red: 'Red banner' },
    fallthrough: { variant: 'red' },
    targets: [{ variant: 'blue', keys: ['vip'] }],
    rules: [{ clauses: [{ attribute: 'plan', op: 'in', values: ['gold'] }], serve: { variant: 'blue' } }],
  });
  await sendOk(admin, 'PATCH', `${ENV}/flags/banner`, { enabled: true });
  await create({ key: 'dark-mode', type: 'boolean' });
  await sendOk(admin, 'PATCH', `${ENV}/flags/dark-mode`, { enabled: true });
  await create({ key: 'legacy-export', type: 'boolean' });

  const client = (app: string, version: string) =>
    createClient({
      baseUrl: t.base,
      apiKey: KEYS.acmeStageFull,
      logger: false,
      usage: { flushIntervalMs: HOUR, app: { name: app, version } },
    });
  web = client('web', '1.4.0');
  worker = client('worker', '2.0.0');
  await Promise.all([web.ready(), worker.ready()]);
  // Usage begins as the flags are made (§13.7: a flag is never evaluated from the later of its
  // creation and the start of usage): one evaluation then, outside every range asserted but 30 d.
  await batch(Date.now(), () => darkMode(web, 'web', 'first-user'));
  const rng = new Rng(24);
  const user = () => `user-${rng.int(1_000_000)}`;
  await batch(BATCHES[0]!, () => {
    for (let i = 0; i < 300; i++) rollout(web, 'web', user());
    for (let i = 0; i < 120; i++) rollout(worker, 'worker', user());
    for (let i = 0; i < 30; i++) darkMode(web, 'web', user());
    for (let i = 0; i < 40; i++) banner(web, 'web', user(), rng.chance(0.4) ? 'gold' : 'free');
    for (let i = 0; i < 7; i++) worker.isEnabled('old-banner', { key: user() });
  });
  await batch(BATCHES[1]!, () => {
    for (let i = 0; i < 180; i++) rollout(web, 'web', user());
    for (let i = 0; i < 6; i++) rollout(worker, 'worker', undefined);
    for (let i = 0; i < 3; i++) banner(worker, 'worker', 'vip', 'free');
    for (let i = 0; i < 25; i++) banner(worker, 'worker', user(), rng.chance(0.5) ? 'gold' : 'free');
    banner(worker, 'worker', user(), 'free', true);
  });
  await batch(BATCHES[2]!, () => {
    for (let i = 0; i < 90; i++) rollout(web, 'web', user());
  });

  d = await openDashboard(browser(), t.server);
  d.page.setDefaultTimeout(10_000);
  // The page lives at the usage clock's "now", 3 minutes after the last batch.
  await d.page.clock.setFixedTime(NOW + 3 * MINUTE);
  await d.page.reload();
  await d.page.getByRole('heading', { name: 'Projects' }).waitFor();
}, 90_000);

afterAll(async () => {
  await Promise.all([web?.close(), worker?.close()]);
  await d?.context.close();
  await t?.close();
});

describe('the flags list', () => {
  let usageReads = 0;
  let flagReads = 0;

  it('shows when each flag was last evaluated, its last 24 hours and why it is stale', async () => {
    page().on('request', (request) => {
      const path = new URL(request.url()).pathname;
      if (path === `/admin/api${ENV}/usage/flags`) usageReads++;
      if (path === `/admin/api${ENV}/flags`) flagReads++;
    });
    await page().goto(`${t.server.url}/#/env/acme/staging/flags`);
    const checkoutTotal = total('checkout');
    expect(checkoutTotal).toBe(300 + 120 + 180 + 6 + 90);
    await flagRow('checkout')
      .getByRole('img', { name: `${en(checkoutTotal)} evaluations in the last 24 hours` })
      .waitFor();
    expect(await page().getByRole('columnheader').allTextContents()).toEqual([
      'Flag',
      'Type',
      'State',
      'Rollout',
      'Last evaluated',
      'Last 24 h',
      'Description',
      'Actions',
    ]);
    const lastEvaluated = (key: string) => flagRow(key).locator('td.last-evaluated time').textContent();
    expect(await lastEvaluated('checkout')).toBe('3 min ago');
    expect(await lastEvaluated('banner')).toBe('2 h ago');
    expect(await lastEvaluated('dark-mode')).toBe('5 h ago');
    expect(await lastEvaluated('legacy-export')).toBe('never');
    for (const [key, n] of [
      ['banner', total('banner')],
      ['dark-mode', 30],
      ['legacy-export', 0],
    ] as const)
      expect(
        await flagRow(key)
          .getByRole('img', { name: `${en(n)} evaluations in the last 24 hours` })
          .count(),
        key,
      ).toBe(1);
    // One bar per hour with evaluations: 5, 2 and 0 hours ago for checkout.
    const bars = await flagRow('checkout').locator('svg.sparkline path:not(.base)').getAttribute('d');
    expect(bars?.match(/M/g)).toHaveLength(3);

    // Stale: the server's reason and message, next to the badge.
    const usage = (await sendOk(admin, 'GET', `${ENV}/usage/flags`, undefined)) as unknown as Json[];
    const stale = Object.fromEntries(usage.map((u) => [u.key, u.stale]));
    expect(stale['legacy-export']).toMatchObject({
      reason: 'NEVER_EVALUATED',
      message: 'never evaluated, created 8 days ago',
    });
    expect(stale['dark-mode']).toMatchObject({ reason: 'SINGLE_VALUE' });
    expect(stale.checkout).toBeNull();
    expect(stale.banner).toBeNull();
    const staleText = (key: string) => flagRow(key).locator('.stale').textContent();
    expect(await staleText('legacy-export')).toBe(
      'Stale: never evaluatednever evaluated, created 8 days ago',
    );
    expect(await staleText('dark-mode')).toBe(`Stale: one value${stale['dark-mode'].message}`);
    expect(stale['dark-mode'].message).toMatch(/^served only true \(on\) for 7 days, unchanged for 8 days/);
    expect(await flagRow('checkout').locator('.stale').count()).toBe(0);
    expect(await flagRow('banner').locator('.stale').count()).toBe(0);
    expect({ usageReads, flagReads }).toEqual({ usageReads: 1, flagReads: 1 });

    await checkA11y('flags list with usage');
    await screenshot(page(), 'usage-flags');
  });

  it('filters to stale flags, and to keys evaluated that are not flags', async () => {
    const usageFilter = page().getByLabel('Usage', { exact: true });
    expect(await usageFilter.locator('option').allTextContents()).toEqual([
      'Any',
      'Stale flags (2)',
      'Keys evaluated that are not flags',
    ]);
    await usageFilter.selectOption('stale');
    await expect
      .poll(() => page().locator('table.flags tbody td.key').allTextContents())
      .toEqual(['dark-mode', 'legacy-export']);
    await usageFilter.selectOption('unknown');
    const unknown = page().getByRole('region', { name: 'Keys evaluated that are not flags' });
    await unknown.waitFor();
    expect(await page().locator('table.flags').count()).toBe(0);
    expect(await unknown.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.textContent))).toEqual([
      'old-bannerEvaluations7Last evaluated5 h agoFlag deletednot in the history',
    ]);
    await checkA11y('keys that are not flags');
    await usageFilter.selectOption('all');
    await flagRow('legacy-export').waitFor();
    expect(await page().locator('table.flags tbody tr').count()).toBe(4);
    // Choosing filters reads nothing again.
    expect({ usageReads, flagReads }).toEqual({ usageReads: 1, flagReads: 1 });
  });

  it('reads usage again whenever the list is read again', async () => {
    await batch(NOW, () => {
      for (let i = 0; i < 40; i++) rollout(worker, 'worker', `late-${i}`);
    });
    const before = en(total('checkout') - 40);
    expect(
      await flagRow('checkout')
        .getByRole('img', { name: `${before} evaluations in the last 24 hours` })
        .count(),
    ).toBe(1);
    // A change to any flag reloads the list, and its usage with it.
    await sendOk(admin, 'PATCH', `${ENV}/flags/banner`, { description: 'The top banner' });
    await flagRow('checkout')
      .getByRole('img', { name: `${en(total('checkout'))} evaluations in the last 24 hours` })
      .waitFor();
    expect(usageReads).toBe(flagReads);
    expect(usageReads).toBeGreaterThanOrEqual(2);
  });
});

describe("a flag's page", () => {
  it("charts a rollout flag's evaluations per variant and reason, with the observed share of true", async () => {
    await page().goto(`${t.server.url}/#/env/acme/staging/flags/checkout`);
    const region = usageRegion();
    await region.locator('svg[role="img"]').waitFor();
    const series = ['off, no user key', 'off, out of rollout', 'on, in rollout'];
    const apps = byApp.get('checkout')!;
    expect(
      await region.getByRole('list', { name: 'Legend' }).getByRole('listitem').allTextContents(),
    ).toEqual(
      series.map((name) => {
        const n = [...tally.get('checkout')!.values()].reduce((a, s) => a + (s.get(name) ?? 0), 0);
        return `${name}: ${en(n)}`;
      }),
    );
    expect(await region.locator('svg text.unit').textContent()).toBe('Evaluations per hour');
    expect(await region.locator('svg path[class^="c"]').count()).toBe(3);
    expect(await tableRows(region)).toEqual(expectedRows('checkout', HOUR, series));
    expect(await region.locator('.usage-facts').textContent()).toBe(
      `${en(total('checkout'))} evaluations in the last 24 hours · last evaluated 3 min ago`,
    );
    const share = served.get('checkout')!;
    expect(share.all).toBe(total('checkout'));
    const observed = ((share.yes / share.all) * 100).toLocaleString('en-US', {
      minimumFractionDigits: 1,
      maximumFractionDigits: 1,
    });
    expect(await region.locator('.share').textContent()).toBe(
      `Observed ${observed}\u00a0% true · configured 25\u00a0%`,
    );
    expect(await region.locator('ul.apps li').allTextContents()).toEqual(
      [...apps].sort((a, b) => b[1] - a[1]).map(([app, n]) => `${app} (flagwire-js): ${en(n)}`),
    );
    // The flag's changes were made 8 days ago: none within 24 hours.
    expect(await region.locator('svg g.mark').count()).toBe(0);
    await checkA11y('flag page with usage');
    await region.screenshot({ path: await shotPath('usage-chart') });
  });

  it('switches ranges: 30 days per day with the changes marked, 7 days per hour without them', async () => {
    const region = usageRegion();
    const series = ['off, no user key', 'off, out of rollout', 'on, in rollout'];
    await region.getByRole('button', { name: '30\u00a0d' }).click();
    await region.locator('svg text.unit', { hasText: 'Evaluations per day' }).waitFor();
    expect(await region.getByRole('button', { name: '30\u00a0d' }).getAttribute('aria-pressed')).toBe('true');
    expect(await tableRows(region)).toEqual(expectedRows('checkout', DAY, series));
    const history = (await sendOk(
      admin,
      'GET',
      `${ENV}/history?flag=checkout`,
      undefined,
    )) as unknown as Json[];
    expect(history).toHaveLength(3);
    const titles = await region.locator('svg g.mark title').allTextContents();
    expect(titles).toHaveLength(3);
    expect(titles.map((title) => title.replace(/^.*: /, '')).sort()).toEqual([
      'created',
      'rollout 10\u00a0% → 25\u00a0%',
      'turned on',
    ]);
    expect(
      await region.getByRole('list', { name: 'Changes marked on the chart' }).getByRole('listitem').count(),
    ).toBe(3);
    expect(await region.locator('.usage-facts').textContent()).toMatch(/ in the last 30 days · /);

    await region.getByRole('button', { name: '7\u00a0d' }).click();
    await region.locator('svg text.unit', { hasText: 'Evaluations per hour' }).waitFor();
    await expect.poll(() => region.locator('.usage-facts').textContent()).toMatch(/ in the last 7 days · /);
    expect(await tableRows(region)).toEqual(expectedRows('checkout', HOUR, series));
    expect(await region.locator('svg g.mark').count()).toBe(0);
  });

  it("charts a string flag per variant, whatever the reason, and the caller's default apart", async () => {
    await page().goto(`${t.server.url}/#/env/acme/staging/flags/banner`);
    const region = usageRegion();
    await region.locator('svg[role="img"]').waitFor();
    const counts = new Map<string, number>();
    for (const step of tally.get('banner')!.values())
      for (const [name, n] of step) counts.set(name, (counts.get(name) ?? 0) + n);
    // Blue was served by the target (vip) and by the rule (gold): one series.
    expect([...counts.keys()].sort()).toEqual(['blue', "caller's default, error", 'red']);
    expect(
      await region.getByRole('list', { name: 'Legend' }).getByRole('listitem').allTextContents(),
    ).toEqual(['blue', 'red', "caller's default, error"].map((name) => `${name}: ${en(counts.get(name)!)}`));
    expect(await tableRows(region)).toEqual(
      expectedRows('banner', HOUR, ['blue', 'red', "caller's default, error"]),
    );
    // No share of true for a flag that serves text.
    expect(await region.locator('.share').count()).toBe(0);
  });
});

describe('a server that keeps no usage', () => {
  it('shows the list without usage columns and the flag page without usage', async () => {
    const off = await startTestServer({ usage: false });
    const offPage = await openDashboard(browser(), off.server);
    try {
      const offAdmin = await adminCaller(off.server);
      await sendOk(offAdmin, 'POST', `${ENV}/flags`, { key: 'plain', type: 'boolean' }, 201);
      const refused = (path: string) =>
        offPage.page
          .waitForResponse((r) => new URL(r.url()).pathname === `/admin/api${ENV}/usage/${path}`)
          .then(async (r) => {
            expect(r.status()).toBe(404);
            await r.finished();
            await offPage.page.evaluate(() => new Promise(requestAnimationFrame));
          });
      const listRefused = refused('flags');
      await offPage.page.goto(`${off.server.url}/#/env/acme/staging/flags`);
      await offPage.page.getByRole('link', { name: 'plain', exact: true }).waitFor();
      await listRefused;
      expect(await offPage.page.getByRole('columnheader').allTextContents()).toEqual([
        'Flag',
        'Type',
        'State',
        'Rollout',
        'Description',
        'Actions',
      ]);
      expect(await offPage.page.getByLabel('Usage', { exact: true }).count()).toBe(0);
      const pageRefused = refused('flags/plain');
      await offPage.page.getByRole('link', { name: 'plain', exact: true }).click();
      await offPage.page.getByRole('region', { name: 'Who gets what' }).waitFor();
      await pageRefused;
      expect(await offPage.page.getByRole('region', { name: 'Usage' }).count()).toBe(0);
      // The usage reads answered 404: the only failed requests, and no script error.
      expect(offPage.problems.every((p) => p.includes('404 (Not Found)'))).toBe(true);
    } finally {
      await offPage.context.close();
      await off.close();
    }
  });
});

/** Where a screenshot named `name` goes (SCREENSHOT_DIR, else a temp folder). */
async function shotPath(name: string): Promise<string> {
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const { mkdirSync } = await import('node:fs');
  const dir = process.env.SCREENSHOT_DIR ?? join(tmpdir(), 'flagwire-screenshots');
  mkdirSync(dir, { recursive: true });
  return join(dir, `${name}.png`);
}

describe('accessibility', () => {
  it('finds no serious axe violation and no sideways scrolling on the list and the flag page', () => {
    expect(a11y).toEqual({});
    expect(d.problems).toEqual([]);
  });
});
