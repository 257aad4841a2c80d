/**
 * The Connect screen's snippet in real headless Chromium, and the snippet itself run for real:
 * JavaScript and TypeScript tabs by the WAI-ARIA tabs pattern (arrow keys, Home, End); the
 * snippet names the environment's first flag, or says it names a placeholder when there is none;
 * the JavaScript one, as copied from the page into an `.mjs` file and given the key the way its
 * first line says, runs with node against this server and prints the flag's value; the
 * TypeScript one type-checks under `strict` (app folders whose `node_modules/flagwire` is this
 * package, as `npm install` links a local one). Every flag type's snippet does both. axe in light
 * and dark mode at 1280 and 390 px.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format, promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snippets } from '../../../dashboard/screens/connect-snippets.js';
import { createClient, type FlagwireClient } from '../../../src/index.js';
import { launchedChromium } from '../../helpers/browser.js';
import {
  checkEveryMode,
  type DashboardPage,
  openDashboard,
  PHONE,
  screenshot,
} from '../../helpers/dashboard-page.js';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

const browser = launchedChromium();
let t: TestServer;
let d: DashboardPage;
let app: string;
let sdk: FlagwireClient;

/** One flag of every type, switched on, each serving `user-42` a value of its own. */
const FLAGS = [
  {
    key: 'banner',
    type: 'string',
    variants: { blue: 'blue', red: 'red' },
    offVariant: 'red',
    fallthrough: { variant: 'blue' },
  },
  {
    key: 'limit',
    type: 'number',
    variants: { low: 7, high: 42 },
    offVariant: 'low',
    fallthrough: { variant: 'high' },
  },
  {
    key: 'layout',
    type: 'json',
    variants: { a: { columns: 3 }, b: { columns: 1 } },
    offVariant: 'b',
    fallthrough: { variant: 'a' },
  },
  { key: 'dark-mode', type: 'boolean' },
] as const;

beforeAll(async () => {
  t = await startTestServer();
  for (const flag of FLAGS) {
    const created = await t.api('POST', '/flags', flag);
    if (created.status !== 201) throw new Error(`${flag.key}: ${created.status} ${await created.text()}`);
    // A new flag starts disabled (docs/protocol.md §3.1): switch it on so it serves its fallthrough.
    const on = await t.api('PATCH', `/flags/${flag.key}`, { enabled: true });
    if (on.status !== 200) throw new Error(`${flag.key}: ${on.status} ${await on.text()}`);
  }
  // What the snippet should print: the SDK's own answer for the user it names.
  sdk = createClient({ baseUrl: t.base, apiKey: KEYS.acmeProdRead, logger: false });
  await sdk.ready({ timeoutMs: 10_000 });
  app = await mkdtemp(join(tmpdir(), 'flagwire-connect-'));
  await mkdir(join(app, 'node_modules', '@types'), { recursive: true });
  await symlink(ROOT, join(app, 'node_modules', 'flagwire'), 'dir');
  // An app in TypeScript on Node has these types installed.
  await symlink(
    join(ROOT, 'node_modules', '@types', 'node'),
    join(app, 'node_modules', '@types', 'node'),
    'dir',
  );
  await writeFile(join(app, 'package.json'), JSON.stringify({ type: 'module', private: true }));
}, 60_000);

afterAll(async () => {
  await sdk?.close();
  await d?.context.close();
  await t?.close();
  if (app) await rm(app, { recursive: true, force: true });
});

const user = { key: 'user-42' };
function expectedLine(key: string, type: string): string {
  const value =
    type === 'string'
      ? sdk.getString(key, user, 'default')
      : type === 'number'
        ? sdk.getNumber(key, user, 0)
        : type === 'json'
          ? sdk.getJson(key, user, {})
          : sdk.isEnabled(key, user);
  return format(`${key}:`, value);
}

/**
 * Runs `code` saved as `file` (in place of the `app.mjs` its first line names) in the app folder
 * the way that line says: with an API key of this environment in `FLAGWIRE_KEY`.
 */
async function runAsInstructed(file: string, code: string): Promise<string> {
  expect(code.split('\n')[0]).toBe(
    '// app.mjs: run with FLAGWIRE_KEY=<an API key of acme/production> node app.mjs',
  );
  await writeFile(join(app, file), code);
  const { stdout } = await run(process.execPath, [file], {
    cwd: app,
    env: { ...process.env, FLAGWIRE_KEY: KEYS.acmeProdRead },
    timeout: 20_000,
  });
  return stdout.trim();
}

/** `tsc --noEmit` under `strict` on the given files of the app folder; the compiler's output on failure. */
async function typeCheck(files: string[]): Promise<string> {
  const args = [TSC, '--noEmit', '--strict', '--module', 'nodenext', '--target', 'es2022', '--types', 'node'];
  try {
    await run(process.execPath, [...args, ...files], { cwd: app, timeout: 60_000 });
    return '';
  } catch (error) {
    return String((error as { stdout?: string }).stdout ?? error);
  }
}

describe('the Connect screen', () => {
  it('shows the snippet in JavaScript and TypeScript tabs that the arrow keys move between', async () => {
    d = await openDashboard(browser(), t.server, {
      path: '#/env/acme/production/connect',
      heading: 'Connect your app',
    });
    const { page } = d;
    const js = page.getByRole('tab', { name: 'JavaScript' });
    const ts = page.getByRole('tab', { name: 'TypeScript' });
    await js.waitFor();
    expect(await page.getByRole('tablist', { name: 'Snippet language' }).count()).toBe(1);
    expect(await js.getAttribute('aria-selected')).toBe('true');
    expect(await page.getByRole('tabpanel', { name: 'JavaScript' }).isVisible()).toBe(true);
    expect(await page.getByRole('tabpanel', { name: 'TypeScript' }).count()).toBe(0);
    await js.focus();
    await page.keyboard.press('ArrowRight');
    expect(await ts.getAttribute('aria-selected')).toBe('true');
    expect(await ts.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await page.getByRole('tabpanel', { name: 'TypeScript' }).isVisible()).toBe(true);
    expect(await page.getByRole('tabpanel', { name: 'JavaScript' }).count()).toBe(0);
    // One tab stop: the unselected tab is out of the tab order.
    expect(await js.getAttribute('tabindex')).toBe('-1');
    await page.keyboard.press('ArrowRight');
    expect(await js.getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('End');
    expect(await ts.getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('Home');
    expect(await js.getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('ArrowLeft');
    expect(await ts.getAttribute('aria-selected')).toBe('true');
    expect(await checkEveryMode(page)).toEqual({});
    await page.keyboard.press('ArrowLeft');
    expect(await checkEveryMode(page)).toEqual({});
    await screenshot(page, 'connect');
    await screenshot(page, 'connect-390', { viewport: PHONE });
  });

  it('names the first flag of the environment, and the JavaScript snippet runs as pasted into an .mjs file', async () => {
    const { page } = d;
    const code = (await page.getByRole('tabpanel', { name: 'JavaScript' }).locator('pre').textContent())!;
    expect(code).toContain(`baseUrl: '${t.server.url}/api/v1'`);
    // The first flag by key: `banner`, a string flag, read with its own getter.
    expect(await page.getByText('The snippet reads the flag banner of acme/production').count()).toBe(1);
    expect(code).toContain("client.getString('banner', { key: 'user-42' }, 'default')");
    expect(code).not.toContain('my-flag');
    const printed = await runAsInstructed('app.mjs', code);
    expect(printed).toBe('banner: blue');
    expect(printed).toBe(expectedLine('banner', 'string'));
  });

  it('gives a TypeScript snippet that type-checks under strict', async () => {
    const { page } = d;
    await page.getByRole('tab', { name: 'TypeScript' }).click();
    const code = (await page.getByRole('tabpanel', { name: 'TypeScript' }).locator('pre').textContent())!;
    expect(code).toContain("client.getString('banner', { key: 'user-42' }, 'default')");
    await writeFile(join(app, 'app.ts'), code);
    // And the check can fail: the same code with a wrong type, checked in the same run, does not pass.
    await writeFile(join(app, 'wrong.ts'), code.replace('const value: string', 'const value: number'));
    const errors = (await typeCheck(['app.ts', 'wrong.ts'])).trim().split('\n');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^wrong\.ts\(\d+,\d+\): error TS2322/);
    expect(d.problems).toEqual([]);
  });

  it('says so when the environment has no flag and the snippet names a placeholder', async () => {
    const { page } = d;
    await d.open('#/env/acme/staging/connect');
    await page.getByText('This environment has no flags yet').waitFor();
    const note = (await page.locator('.snippet-flag').textContent())!;
    expect(note).toContain('names my-flag, a placeholder');
    const code = (await page.getByRole('tabpanel', { name: 'JavaScript' }).locator('pre').textContent())!;
    expect(code).toContain("client.isEnabled('my-flag', { key: 'user-42' })");
    expect(await checkEveryMode(page)).toEqual({});
    expect(d.problems).toEqual([]);
  });
});

/** What each flag made here prints: its fallthrough, which everyone gets. */
const SHOWN: Record<string, string> = {
  banner: 'banner: blue',
  limit: 'limit: 42',
  layout: 'layout: { columns: 3 }',
  'dark-mode': 'dark-mode: true',
};

describe('the snippet of every flag type', () => {
  const types = [
    ...FLAGS.map((f) => ({ key: f.key, type: f.type })),
    { key: 'seeded', type: 'rollout' as const },
  ];

  const code = (key: string, type: (typeof types)[number]['type']) =>
    snippets(t.server.url, 'acme/production', { key, type, placeholder: false });

  it.each(types)('runs as JavaScript for a $type flag and prints its value', async ({ key, type }) => {
    const printed = await runAsInstructed(`${key}.mjs`, code(key, type).javascript);
    expect(printed).toBe(expectedLine(key, type));
    // `seeded` (the config file's 25 % rollout) has only the SDK's answer to go by.
    expect(printed).toBe(SHOWN[key] ?? expectedLine(key, type));
  });

  it('type-checks as TypeScript for every type (one compiler run)', async () => {
    const files: string[] = [];
    for (const { key, type } of types) {
      await writeFile(join(app, `${key}.ts`), code(key, type).typescript);
      files.push(`${key}.ts`);
    }
    expect(await typeCheck(files)).toBe('');
  });
});
