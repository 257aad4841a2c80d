/**
 * A dashboard page in headless Chromium for the screen-by-screen browser tests: signed in by the
 * printed URL (or not), its script errors and console errors collected, a wait that fails saying
 * what it waited for well inside the test's time limit, and axe-core run on the screen as it is
 * in light and dark mode at a desktop (1280x900) and a phone (390x844) size, recorded per screen.
 * Screenshots go to SCREENSHOT_DIR (default: a temp folder).
 */
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import type { FlagwireServer } from '../../server/index.js';
import { type AxeProblem, seriousViolations } from './axe.js';

export const DESKTOP = { width: 1280, height: 900 } as const;
export const PHONE = { width: 390, height: 844 } as const;

type ColorScheme = 'light' | 'dark';
type Size = { width: number; height: number };
type A11yFindings = Record<string, Array<AxeProblem | string>>;

export interface DashboardPage {
  context: BrowserContext;
  page: Page;
  /** Script errors and console errors seen so far (a 401 the sign-in answers is expected). */
  problems: string[];
  /** The origin the page is on: the server's, or the `origin` it was opened through. */
  url: string;
  /** What `checkA11y` found, by the name of the screen; empty when nothing. */
  a11y: Record<string, A11yFindings>;
  /** `checkEveryMode` on the screen as it is, recorded in `a11y` under `name` when it finds any. */
  checkA11y(name: string): Promise<void>;
  /** Goes to `path` of the dashboard (`#/env/acme/staging/flags`) and waits for `heading` when given. */
  open(path: string, heading?: string | RegExp): Promise<void>;
}

export interface DashboardOptions {
  /** Signed in by the printed URL (default), or left at the sign-in screen. */
  signedIn?: boolean;
  /** The origin to open the dashboard at, such as a proxy in front of the server (default its own). */
  origin?: string;
  /** Where to go once signed in (`#/env/...`); signed out, the address opened instead of `/`. */
  path?: string;
  /** A heading to wait for at `path` (signed out, default "Sign in"). */
  heading?: string | RegExp;
  /** Permissions granted to the page's origin, such as `clipboard-read`. */
  permissions?: string[];
  /** How long a wait on the opened page may take before it fails (default 10 s). */
  timeoutMs?: number;
}

/** Records the page's script errors and console errors (but the sign-in's expected 401) in `problems`. */
export function collectProblems(page: Page, problems: string[]): void {
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/401 \(Unauthorized\)/.test(m.text())) problems.push(`console: ${m.text()}`);
  });
}

/** A fresh browser context at the desktop size; signed in unless `signedIn` is false. */
export async function openDashboard(
  browser: Browser,
  server: FlagwireServer,
  { signedIn = true, origin, path, heading, permissions, timeoutMs = 10_000 }: DashboardOptions = {},
): Promise<DashboardPage> {
  const url = origin ?? server.url;
  const context = await browser.newContext({ viewport: DESKTOP });
  if (permissions) await context.grantPermissions(permissions, { origin: url });
  const page = await context.newPage();
  const problems: string[] = [];
  collectProblems(page, problems);
  const a11y: Record<string, A11yFindings> = {};
  const open = async (to: string, waitFor?: string | RegExp): Promise<void> => {
    await page.goto(`${url}/${to}`);
    if (waitFor !== undefined) await page.getByRole('heading', { name: waitFor }).waitFor();
  };
  const d: DashboardPage = {
    context,
    page,
    problems,
    url,
    a11y,
    open,
    async checkA11y(name) {
      const found = await checkEveryMode(page);
      if (Object.keys(found).length > 0) a11y[name] = found;
    },
  };
  if (signedIn) {
    await page.goto(origin ? `${origin}/#token=${server.adminToken}` : server.dashboardUrl!);
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    if (path !== undefined) await open(path, heading);
  } else {
    await open(path ?? '', heading ?? 'Sign in');
  }
  // Set after the first load, which may be slow on a busy machine; each step after it is not.
  page.setDefaultTimeout(timeoutMs);
  return d;
}

/** How far the page scrolls sideways (0 when it fits the viewport). */
export function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => Math.max(0, document.documentElement.scrollWidth - window.innerWidth));
}

/**
 * axe's serious and critical violations, and any sideways scrolling of the page, in light and
 * dark mode at both sizes, keyed `light 1280` ... `dark 390`; empty when there are none. The
 * page is left light at the desktop size.
 */
export async function checkEveryMode(page: Page): Promise<A11yFindings> {
  const found: A11yFindings = {};
  for (const colorScheme of ['light', 'dark'] as const) {
    for (const size of [DESKTOP, PHONE]) {
      await page.emulateMedia({ colorScheme });
      await page.setViewportSize(size);
      const problems: Array<AxeProblem | string> = await seriousViolations(page);
      const overflow = await sidewaysOverflow(page);
      if (overflow > 0) problems.push(`the page scrolls ${overflow} px sideways`);
      if (problems.length > 0) found[`${colorScheme} ${size.width}`] = problems;
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(DESKTOP);
  return found;
}

const SHOTS = process.env.SCREENSHOT_DIR ?? join(tmpdir(), 'flagwire-screenshots');

/**
 * A screenshot as `name.png` in SCREENSHOT_DIR: of the whole page, or of one element (a
 * locator). With a `viewport` or `colorScheme`, taken so and then put back as it was.
 */
export async function screenshot(
  target: Page | Locator,
  name: string,
  { viewport, colorScheme }: { viewport?: Size; colorScheme?: ColorScheme } = {},
): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  const path = join(SHOTS, `${name}.png`);
  const page = 'goto' in target ? target : target.page();
  const size = page.viewportSize();
  const wasDark =
    colorScheme && (await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches));
  if (viewport) await page.setViewportSize(viewport);
  if (colorScheme) await page.emulateMedia({ colorScheme });
  await ('goto' in target ? target.screenshot({ path, fullPage: true }) : target.screenshot({ path }));
  if (viewport && size) await page.setViewportSize(size);
  if (colorScheme) await page.emulateMedia({ colorScheme: wasDark ? 'dark' : 'light' });
}
