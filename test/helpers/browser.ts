/**
 * Headless Chromium for a browser test file: the browser the global setup found
 * (test/helpers/chromium.ts says where it looks), launched once per file and logged, so the
 * test output says which browser ran. A machine without one fails the file's tests with the
 * finder's message (what to install): a browser test never passes or skips silently.
 */
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';

/**
 * Registers the launch (beforeAll), the close (afterAll) and a test that the browser is there;
 * returns a getter that throws the launch failure, so every test that needs the browser fails
 * with it.
 */
export function launchedChromium(): () => Browser {
  let browser: Browser | undefined;
  let failure: unknown;
  beforeAll(async () => {
    try {
      browser = await launchChromium();
    } catch (error) {
      failure = error;
    }
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });
  it('has a headless Chromium to run in', () => {
    if (failure) throw failure;
    expect(browser?.isConnected()).toBe(true);
  });
  return () => {
    if (!browser) throw failure ?? new Error('the browser is not launched yet');
    return browser;
  };
}

export async function launchChromium(): Promise<Browser> {
  const found = inject('chromium');
  console.info(`browser: ${found.source}`);
  try {
    return await chromium.launch({
      executablePath: found.executablePath,
      args: found.args,
      ...(Object.keys(found.env).length > 0 ? { env: { ...definedEnv(), ...found.env } } : {}),
      headless: true,
    });
  } catch (error) {
    const hint = found.source.startsWith('@sparticuz/chromium')
      ? ' If an earlier run was stopped while unpacking it, delete that file and run again.'
      : ' Set CHROMIUM_PATH to another Chromium or Chrome.';
    throw new Error(`could not launch ${found.executablePath} (${found.source}).${hint}`, { cause: error });
  }
}

function definedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
  return env;
}
