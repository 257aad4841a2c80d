/**
 * Targeting in the dashboard, driven as a person would in real headless Chromium
 * against a real server: a flag with two variants created with its values typed as its type
 * asks, then on its page a target, a rule on an email with a case-insensitive "ends with", a rule
 * on a segment with a 50/50 split by a custom attribute, and a prerequisite; "who gets what" for
 * the unsaved edit beside the saved flag; a review of the changes in sentences before the save;
 * and then the API, the admin evaluator and a real SDK client all serving every user what the
 * page said. Also: the server's refusal shown at the condition it names, rules reordered with the
 * keyboard alone, a change made elsewhere announced instead of overwritten, the history in
 * sentences, and axe on every new screen in light and dark mode at 1280 and 390 px.
 */
import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type FlagwireClient } from '../../../src/index.js';
import { type AdminCaller, adminCaller } from '../../helpers/admin.js';
import { launchedChromium } from '../../helpers/browser.js';
import { type DashboardPage, openDashboard, screenshot } from '../../helpers/dashboard-page.js';
import { type Json, sendOk } from '../../helpers/lifecycle.js';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';
import { whenTrue } from '../../helpers/wait.js';

const browser = launchedChromium();
let t: TestServer;
let admin: AdminCaller;
let d: DashboardPage;
let sdk: FlagwireClient | undefined;
const ENV = '/environments/acme/staging';

const page = () => d.page;
const region = (name: string | RegExp) => page().getByRole('region', { name });
const rule = (n: number) => region(`Rule ${n}`);
const condition = (r: number, c: number) =>
  page().getByRole('group', { name: `Condition ${c} of rule ${r}` });
const dialog = () => page().getByRole('dialog');
const serverFlag = () => sendOk(admin, 'GET', `${ENV}/flags/banner`, undefined);

/** Types each value into a chips input and presses Enter. */
async function addChips(input: Locator, ...values: string[]): Promise<void> {
  for (const value of values) {
    await input.fill(value);
    await input.press('Enter');
  }
}

/** What the "who gets what" panel shows in one column: [variant, why]. */
async function whoColumn(title: 'Saved flag' | 'With your changes'): Promise<[string, string]> {
  const column = region('Who gets what').getByRole('region', { name: title });
  const facts = column.locator('dd');
  return [(await facts.nth(0).textContent())!.trim(), (await facts.nth(2).textContent())!.trim()];
}

/** Asks "who gets what" about a user and waits for the answer about exactly that user. */
async function askWho(key: string, attributes: Record<string, string> = {}): Promise<void> {
  const panel = region('Who gets what');
  await panel.getByLabel('User key').fill(key);
  await panel.getByRole('radio', { name: 'JSON' }).check();
  await panel.getByLabel('Attributes (a JSON object)').fill(JSON.stringify(attributes));
  await panel.getByRole('button', { name: 'Show who gets what' }).click();
  const shown = Object.entries(attributes).map(([name, value]) => `${name}: ${JSON.stringify(value)}`);
  const about = `For user ${key}${shown.length ? ` (${shown.join(', ')})` : ''}`;
  await panel.getByText(about, { exact: true }).waitFor();
}

beforeAll(async () => {
  t = await startTestServer();
  admin = await adminCaller(t.server);
  await sendOk(admin, 'POST', `${ENV}/flags`, { key: 'gate', type: 'boolean' }, 201);
  await sendOk(admin, 'PATCH', `${ENV}/flags/gate`, { enabled: true });
  await sendOk(admin, 'POST', `${ENV}/segments`, { key: 'beta', included: ['bob', 'bea'] }, 201);
  d = await openDashboard(browser(), t.server);
}, 60_000);

afterAll(async () => {
  await sdk?.close();
  await d?.context.close();
  await t?.close();
});

describe('a flag with variants', () => {
  it('is created with its two variants typed as its type asks', async () => {
    await d.open('#/env/acme/staging/flags');
    await page().getByRole('link', { name: 'New flag with variants (text, number or JSON)' }).click();
    await page().getByRole('heading', { name: 'New flag with variants' }).waitFor();
    // JSON values are checked as typed, next to the field.
    await page().getByLabel('Values are').selectOption('json');
    await page().getByLabel('Variant 1 value').fill('{"colour": ');
    expect(
      await page()
        .getByText(/^Not JSON:/)
        .isVisible(),
    ).toBe(true);
    expect(await page().getByRole('button', { name: 'Create flag' }).isDisabled()).toBe(true);
    await d.checkA11y('new flag page');
    await page().getByLabel('Values are').selectOption('string');
    await page().getByLabel('Flag key').fill('banner');
    await page().getByLabel('Variant 1 name').fill('blue');
    await page().getByLabel('Variant 1 value').fill('Blue banner');
    await page().getByLabel('Variant 2 name').fill('red');
    await page().getByLabel('Variant 2 value').fill('Red banner');
    await page().getByLabel('Off variant (the flag is off)').selectOption({ label: 'red' });
    await page().getByLabel('Default variant (no target or rule matched)').selectOption({ label: 'blue' });
    await page().getByRole('button', { name: 'Create flag' }).click();
    await page().getByRole('heading', { name: 'Flag banner' }).waitFor();
    expect(await serverFlag()).toMatchObject({
      type: 'string',
      enabled: false,
      variants: { blue: 'Blue banner', red: 'Red banner' },
      offVariant: 'red',
      fallthrough: { variant: 'blue' },
    });
  });

  it('is built on its page: a target, two rules, a split, a prerequisite; who gets what before saving', async () => {
    await page().getByRole('switch', { name: 'Flag banner on' }).check();
    await addChips(page().getByLabel('Users who get red', { exact: true }), 'ann');
    // Rule 1: email ends with @acme.com, ignoring case.
    await page().getByRole('button', { name: 'Add rule' }).click();
    await condition(1, 1).getByLabel('Attribute').fill('email');
    await condition(1, 1).getByLabel('Operator').selectOption({ label: 'ends with' });
    await addChips(condition(1, 1).getByLabel('Values', { exact: true }), '@acme.com');
    await condition(1, 1).getByLabel('Ignore case').check();
    await rule(1).getByLabel('Variant', { exact: true }).selectOption('blue');
    // Rule 2: in segment beta, 50/50 by company.
    await page().getByRole('button', { name: 'Add rule' }).click();
    await condition(2, 1).getByLabel('Operator').selectOption({ label: 'is in segment' });
    await condition(2, 1).getByLabel('beta').check();
    await rule(2).getByRole('radio', { name: 'A percentage split' }).check();
    await rule(2).getByLabel('blue').fill('50');
    await rule(2).getByLabel('red').fill('50');
    expect(await rule(2).locator('output.rest').innerText()).toBe('0\u00a0%');
    await rule(2).getByLabel('Split users by attribute').fill('company');
    await rule(2).getByLabel('Split users by attribute').blur();
    // A prerequisite: gate must be on.
    await page().getByRole('button', { name: 'Add prerequisite' }).click();
    await page().getByLabel('Flag', { exact: true }).selectOption('gate');
    await page().getByRole('group', { name: 'Prerequisite 1' }).getByLabel('on').check();
    expect(await rule(1).locator('.rule-summary').innerText()).toBe(
      'If email ends with “@acme.com” (ignoring case)',
    );
    expect(await rule(2).locator('.rule-summary').innerText()).toBe('If user is in segment beta');

    // Who gets what, before saving: the edit beside the saved flag, the matching rule marked.
    await askWho('zed', { email: 'Zed@ACME.com' });
    await expect
      .poll(() => whoColumn('With your changes'))
      .toEqual(['blue', 'Rule 1 matched: if email ends with “@acme.com” (ignoring case)']);
    expect(await whoColumn('Saved flag')).toEqual(['red', 'the flag is off: its off variant']);
    expect(await rule(1).getByText('Who gets what: zed gets this rule (with your changes)').isVisible()).toBe(
      true,
    );
    await d.checkA11y('flag page: rules built, who gets what');
    // The save bar follows the window; at the end of the page it sits below "who gets what".
    await page().evaluate(() => scrollTo(0, document.body.scrollHeight));
    await screenshot(page(), 'targeting-flag-page');
    await screenshot(region('Rules'), 'targeting-rule-builder');
    await screenshot(region('Who gets what'), 'targeting-who-gets-what');
    expect(await serverFlag()).not.toHaveProperty('rules');

    // The review says what changes, in words; then it is saved.
    await page().getByRole('button', { name: 'Review and save' }).click();
    const review = (await dialog().innerText()).replace(/[ \t\n]+/g, ' ');
    expect(review).toContain('On/off on (was off)');
    expect(review).toContain('red: added 1 key: ann');
    expect(review).toContain('added rule 1: if email ends with “@acme.com” (ignoring case), serve blue');
    expect(review).toContain(
      'added rule 2: if user is in segment beta, serve 50\u00a0% blue, 50\u00a0% red (by company)',
    );
    expect(review).toContain('added: gate serves on');
    await d.checkA11y('review dialog');
    await dialog().getByRole('button', { name: 'Save changes' }).click();
    await page().getByText('Saved: 4 changes.').waitFor();
    expect(await dialog().count()).toBe(0);
    const saved = await serverFlag();
    expect(saved).toMatchObject({
      enabled: true,
      targets: [{ variant: 'red', keys: ['ann'] }],
      prerequisites: [{ flag: 'gate', variants: ['on'] }],
    });
    expect(saved.rules.map((r: Json) => [r.clauses, r.serve])).toEqual([
      [
        [{ attribute: 'email', op: 'endsWith', values: ['@acme.com'], caseInsensitive: true }],
        { variant: 'blue' },
      ],
      [
        [{ op: 'inSegment', values: ['beta'] }],
        {
          split: [
            { variant: 'blue', weight: 50_000 },
            { variant: 'red', weight: 50_000 },
            { variant: null, weight: 0 },
          ],
          bucketBy: 'company',
        },
      ],
    ]);
  });

  it('serves every user, through the API and a real SDK client, what "who gets what" said', async () => {
    sdk = createClient({ baseUrl: t.base, apiKey: KEYS.acmeStageFull, logger: false });
    await sdk.ready({ timeoutMs: 10_000 });
    await whenTrue(sdk, () => sdk!.getDetail('banner', { key: 'ann' }, '').reason === 'TARGET_MATCH');
    const users: Array<[string, Record<string, string>]> = [
      ['ann', {}],
      ['zed', { email: 'Zed@ACME.com' }],
      ['bob', { company: 'initech' }],
      ['bob', { company: 'globex' }],
      ['bea', { company: 'initech' }],
      ['carl', { company: 'initech' }],
    ];
    const said = new Set<string>();
    for (const [key, attributes] of users) {
      await askWho(key, attributes);
      const [variant] = await whoColumn('Saved flag');
      const user = { key, ...attributes };
      const detail = sdk.getDetail('banner', user, 'default');
      expect(detail.variant, `${key} ${JSON.stringify(attributes)}`).toBe(variant);
      const answer = await sendOk(admin, 'POST', '/evaluate', {
        environment: 'acme/staging',
        flag: 'banner',
        user,
      });
      expect(answer.saved.variant).toBe(variant);
      said.add(`${detail.reason}:${variant}`);
    }
    // The target, rule 1, both halves of rule 2's split by company, and the default.
    expect([...said].sort()).toEqual([
      'FALLTHROUGH:blue',
      'RULE_MATCH:blue',
      'RULE_MATCH:red',
      'TARGET_MATCH:red',
    ]);
    // Two users of one company share a half; the prerequisite decides for everyone.
    expect(sdk.getDetail('banner', { key: 'bea', company: 'globex' }, '').variant).toBe(
      sdk.getDetail('banner', { key: 'bob', company: 'globex' }, '').variant,
    );
    await sendOk(admin, 'PATCH', `${ENV}/flags/gate`, { enabled: false });
    await whenTrue(sdk, () => sdk!.getDetail('banner', { key: 'zed' }, '').reason === 'PREREQUISITE_FAILED');
    await askWho('zed', { email: 'Zed@ACME.com' });
    expect(await whoColumn('Saved flag')).toEqual([
      'red',
      'a prerequisite did not serve what it needs: the off variant (gate)',
    ]);
    await sendOk(admin, 'PATCH', `${ENV}/flags/gate`, { enabled: true });
  });
});

describe('the rule builder', () => {
  it('shows the server refusal at the condition its JSON path names; a rule without conditions reads everyone', async () => {
    await d.open('#/env/acme/staging/flags/banner', 'Flag banner');
    await page().getByRole('button', { name: 'Add rule' }).click();
    await condition(3, 1).getByLabel('Attribute').fill('name');
    await condition(3, 1).getByLabel('Operator').selectOption({ label: 'matches the pattern' });
    await condition(3, 1).getByLabel('Pattern (RE2 syntax)').fill('(?=a)b');
    await page().getByRole('button', { name: 'Review and save' }).click();
    await dialog().getByRole('button', { name: 'Save changes' }).click();
    const refusal = condition(3, 1).getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(/lookahead/);
    expect(await dialog().count()).toBe(0);
    const note = page().locator('.save-bar').getByRole('alert');
    expect(await note.textContent()).toMatch(/^Not saved: rules\[2\]\.clauses\[0\]\.values\[0\]: /);
    await d.checkA11y('flag page: a refused condition');
    expect((await serverFlag()).rules).toHaveLength(2);
    await condition(3, 1).getByRole('button', { name: 'Remove condition 1 of rule 3' }).click();
    expect(await rule(3).locator('.rule-summary').textContent()).toBe('If everyone');
    await page().getByRole('button', { name: 'Discard changes' }).click();
    expect(await rule(3).count()).toBe(0);
  });

  it('reorders rules with the keyboard alone, the focus staying on the moved rule', async () => {
    await rule(2).getByRole('button', { name: 'Move rule 2 up' }).focus();
    await page().keyboard.press('Enter');
    await expect
      .poll(() => rule(1).locator('.rule-summary').textContent())
      .toBe('If user is in segment beta');
    // Rule 1 cannot go further up: the focus is on its other move button, still on the same rule.
    await expect
      .poll(() => page().evaluate(() => document.activeElement?.getAttribute('aria-label')))
      .toBe('Move rule 1 down');
    expect(await page().getByText('Rule 2 moved up: it is now rule 1 of 2.').count()).toBe(1);
    await page().keyboard.press('Enter');
    await expect
      .poll(() => rule(2).locator('.rule-summary').textContent())
      .toBe('If user is in segment beta');
    await expect
      .poll(() => page().evaluate(() => document.activeElement?.getAttribute('aria-label')))
      .toBe('Move rule 2 up');
    await page().keyboard.press('Space');
    await expect
      .poll(() => rule(1).locator('.rule-summary').textContent())
      .toBe('If user is in segment beta');
    await page().getByRole('button', { name: 'Review and save' }).focus();
    await page().keyboard.press('Enter');
    await dialog().waitFor();
    expect(await dialog().textContent()).toContain('moved rule 2 to position 1');
    // "Keep editing" has the focus: one step back is "Save changes".
    await page().keyboard.press('Shift+Tab');
    await page().keyboard.press('Enter');
    await page().getByText('Saved: 1 change.').waitFor();
    const saved = await serverFlag();
    expect(saved.rules.map((r: Json) => r.clauses[0].op)).toEqual(['inSegment', 'endsWith']);
  });
});

describe('a change made elsewhere', () => {
  const elsewhere = () => page().getByRole('alert').filter({ hasText: 'was changed elsewhere' });

  it('is announced while editing, with what it was, and kept or reloaded only as the user chooses', async () => {
    await addChips(page().getByLabel('Users who get blue', { exact: true }), 'dora');
    await sendOk(admin, 'PATCH', `${ENV}/flags/banner`, {
      targets: [{ variant: 'red', keys: ['ann', 'eve'] }],
    });
    await elsewhere().waitFor();
    expect(await elsewhere().textContent()).toContain('Individual targets: red: added 1 key: eve');
    await d.checkA11y('flag page: changed elsewhere');
    // Keep editing: the edit stays, and the review shows that saving would drop eve.
    await elsewhere().getByRole('button', { name: 'Keep editing' }).click();
    expect(await elsewhere().count()).toBe(0);
    await page().getByRole('button', { name: 'Review and save' }).click();
    const review = (await dialog().textContent()) ?? '';
    expect(review).toContain('blue: added 1 key: dora');
    expect(review).toContain('red: removed 1 key: eve');
    await dialog().getByRole('button', { name: 'Keep editing' }).click();
    // Another change elsewhere; this time reloaded: the edit is dropped for the saved flag.
    await sendOk(admin, 'PATCH', `${ENV}/flags/banner`, {
      targets: [{ variant: 'red', keys: ['ann', 'eve', 'fay'] }],
    });
    await elsewhere().waitFor();
    await elsewhere().getByRole('button', { name: 'Reload (drop my changes)' }).click();
    expect(await page().getByText('No unsaved changes').count()).toBe(1);
    expect(await page().getByRole('list', { name: 'Users who get red (list)' }).textContent()).toBe(
      'ann×eve×fay×',
    );
    // Untouched, the page follows changes made elsewhere without asking.
    await sendOk(admin, 'PATCH', `${ENV}/flags/banner`, { enabled: false });
    await expect.poll(() => page().getByRole('switch', { name: 'Flag banner on' }).isChecked()).toBe(false);
    expect(await elsewhere().count()).toBe(0);
  });
});

describe('the history', () => {
  it('says rule, target and prerequisite changes in sentences, not JSON', async () => {
    await page().getByRole('link', { name: 'History of this flag' }).click();
    await page().getByRole('heading', { name: 'History' }).waitFor();
    const text = (await page().locator('table.history').textContent()) ?? '';
    expect(text).toContain(
      'moved rule 2 to position 1 (if user is in segment beta, serve 50\u00a0% blue, 50\u00a0% red (by company))',
    );
    expect(text).toContain('added rule 1: if email ends with “@acme.com” (ignoring case), serve blue');
    expect(text).toContain('red: added 1 key: eve');
    expect(text).toContain('added: gate serves on');
    expect(text).not.toContain('"clauses"');
    expect(text).not.toContain('"split"');
    await d.checkA11y('history of a targeted flag');
  });
});

describe('accessibility', () => {
  it('finds no serious axe violation and no sideways scrolling on any new screen', () => {
    expect(d.a11y).toEqual({});
    // The one refusal the test asked for (the lookahead pattern) is the only failed request.
    expect(d.problems).toEqual([
      'console: Failed to load resource: the server responded with a status of 400 (Bad Request)',
    ]);
  });
});
