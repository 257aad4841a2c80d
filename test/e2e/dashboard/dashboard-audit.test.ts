/**
 * The audit log in the dashboard (`#/audit`, admins; `docs/protocol.md` §10.6), in real headless
 * Chromium: changes made beside the page (a flag created with the admin token in acme and one in
 * other, the acme flag switched on by an API key through `/api/v1`, a person invited) read as rows
 * naming who made them, in words; filtered by project and by actor; more on asking; exported as JSON lines (one
 * record a line, the filter applied) through a `blob:` download the page's CSP lets through. The
 * screen has no serious axe finding in any mode. Screenshot people-audit goes to SCREENSHOT_DIR.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchedChromium } from '../../helpers/browser.js';
import { type DashboardPage, openDashboard, screenshot } from '../../helpers/dashboard-page.js';
import { peopleDriver } from '../../helpers/people.js';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';

const browser = launchedChromium();
let t: TestServer;
let d: DashboardPage;

const NAME = 'Audra Auditor';

beforeAll(async () => {
  t = await startTestServer();
  const people = peopleDriver(t.server.url, t.server.adminToken!);
  const flag = (key: string) => ({ key, type: 'rollout', enabled: false, percentage: 10 });
  for (const [project, key] of [
    ['acme', 'audit-flag'],
    ['other', 'elsewhere'],
  ] as const) {
    const created = await people.admin('POST', `/environments/${project}/production/flags`, flag(key));
    expect(created.status).toBe(201);
  }
  const toggled = await t.api('PATCH', '/flags/audit-flag', { enabled: true }, KEYS.acmeProdFull);
  expect(toggled.status).toBe(200);
  await people.invite({ email: 'audra@example.com', role: 'viewer', name: NAME });
}, 60_000);

afterAll(async () => {
  await d?.context.close();
  await t?.close();
});

describe('the audit log', () => {
  it('is linked for the admin and lists the changes by who made them, in words', async () => {
    d = await openDashboard(browser(), t.server);
    const { page } = d;
    await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Audit' }).click();
    await page.getByRole('heading', { name: 'Audit' }).waitFor();
    const log = page.getByRole('region', { name: 'Audit log' });
    const created = log.getByRole('row', { name: /created flag audit-flag/ });
    await created.waitFor();
    expect(await created.textContent()).toContain('Admin token');
    expect(await created.textContent()).toContain('acme / production');
    const updated = log.getByRole('row', { name: /updated flag audit-flag/ });
    const by = (await updated.textContent()) ?? '';
    expect(by).toMatch(/API key/);
    expect(by).toMatch(/enabled: false → true/);
    const invited = log.getByRole('row', { name: /invited user/ });
    expect(await invited.textContent()).toContain(NAME);
    expect(await log.getByRole('row', { name: /created flag elsewhere/ }).count()).toBe(1);
    await d.checkA11y('audit');
    expect(d.a11y).toEqual({});
    await screenshot(page, 'people-audit');
  });

  it('filters by project and by actor', async () => {
    const { page } = d;
    const log = page.getByRole('region', { name: 'Audit log' });
    await page.getByLabel('Project', { exact: true }).selectOption('acme');
    await log.getByRole('row', { name: /created flag elsewhere/ }).waitFor({ state: 'detached' });
    // The filtered list has come (not only the old one gone) once a row it holds is there.
    const updated = log.getByRole('row', { name: /updated flag audit-flag/ });
    await updated.waitFor();
    expect(await updated.count()).toBe(1);
    expect(await log.getByRole('row', { name: /invited user/ }).count()).toBe(0);
    await page.getByLabel('Who', { exact: true }).selectOption({ label: 'Admin token' });
    await updated.waitFor({ state: 'detached' });
    const created = log.getByRole('row', { name: /created flag audit-flag/ });
    await created.waitFor();
    expect(await created.count()).toBe(1);
    expect(await log.getByRole('row', { name: /created flag elsewhere/ }).count()).toBe(0);
  });

  it('exports the filtered records as JSON lines', async () => {
    const { page } = d;
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export JSON lines' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('audit.ndjson');
    const text = readFileSync(await download.path(), 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const records = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { action: string; project?: string; actor: { type: string } });
    expect(records.length).toBeGreaterThan(0);
    for (const r of records) {
      expect(r.project).toBe('acme');
      expect(r.actor.type).toBe('adminToken');
    }
    expect(records.map((r) => r.action)).toContain('flag.created');
    // The download went through the page's CSP without a complaint.
    expect(d.problems).toEqual([]);
  });

  it('loads more than the first 200 on asking', async () => {
    const { page } = d;
    for (let i = 0; i < 200; i++) {
      const made = await t.api('POST', '/flags', { key: `bulk-${i}`, type: 'boolean' }, KEYS.otherFull);
      expect(made.status).toBe(201);
    }
    await page.getByLabel('Who', { exact: true }).selectOption({ label: 'Anyone' });
    await page.getByLabel('Project', { exact: true }).selectOption('other');
    const rows = page.getByRole('region', { name: 'Audit log' }).locator('tbody tr');
    const more = page.getByRole('button', { name: 'Load more' });
    await more.waitFor();
    expect(await rows.count()).toBe(200);
    await more.click();
    // The 200 flags and the one the admin token made.
    await page.getByRole('row', { name: /created flag elsewhere/ }).waitFor();
    expect(await rows.count()).toBe(201);
    expect(await more.count()).toBe(0);
    expect(d.problems).toEqual([]);
  }, 60_000);
});
