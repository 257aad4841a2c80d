/**
 * A dashboard page in headless Chromium for the screen-by-screen browser tests: signed in by the
 * printed URL (or not), its script errors and console errors collected, and axe-core run on the
 * screen as it is in light and dark mode at a desktop (1280x900) and a phone (390x844) size.
 * Screenshots go to SCREENSHOT_DIR (default: a temp folder).
 */
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { FlagwireServer } from '../../server/index.js';
import { type AxeProblem, seriousViolations } from './axe.js';

export const DESKTOP = { width: 1280, height: 900 } as const;
export const PHONE = { width: 390, height: 844 } as const;

export interface DashboardPage {
  context: BrowserContext;
  page: Page;
  /** Script errors and console errors seen so far (a 401 the sign-in answers is expected). */
  problems: string[];
}

/** A fresh browser context at the desktop size; signed in unless `signedIn` is false. */
export async function openDashboard(
  browser: Browser,
  server: FlagwireServer,
  { signedIn = true }: { signedIn?: boolean } = {},
): Promise<DashboardPage> {
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/401 \(Unauthorized\)/.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  if (signedIn) {
    await page.goto(server.dashboardUrl!);
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
  } else {
    await page.goto(`${server.url}/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  }
  return { context, page, problems };
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
export async function checkEveryMode(page: Page): Promise<Record<string, Array<AxeProblem | string>>> {
  const found: Record<string, Array<AxeProblem | string>> = {};
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

/** A full-page screenshot of the page as it is, as `name.png` in SCREENSHOT_DIR. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}
