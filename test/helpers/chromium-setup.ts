/**
 * Vitest global setup: finds the browser once per run (unpacking the bundled Chromium at most
 * once, before any test file runs) and hands it to the browser tests through `inject`. A
 * machine without any browser fails the whole run here, once, with the finder's message (every
 * place it looked, what to install): the browser tests never pass silently, and never show up as
 * a run of skips.
 */
import type { TestProject } from 'vitest/node';
import { type FoundChromium, findChromium, NoChromiumError } from './chromium.js';
import { setupFailure } from './setup-failure.js';

declare module 'vitest' {
  export interface ProvidedContext {
    chromium: FoundChromium;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  let found: FoundChromium;
  try {
    found = await findChromium();
  } catch (error) {
    // The finder's message for no browser at all names every place it looked and what to install.
    const fix = process.env.CHROMIUM_PATH
      ? 'point CHROMIUM_PATH at a Chromium or Chrome executable, or unset it to let the finder pick one.'
      : error instanceof NoChromiumError
        ? undefined
        : 'reinstall the dev dependencies ("npm ci"); if a run was stopped while unpacking ' +
          '@sparticuz/chromium, delete what it unpacked under the temp folder; or set CHROMIUM_PATH ' +
          'to a Chromium or Chrome executable.';
    throw setupFailure('No browser for the browser tests (test/helpers/chromium-setup.ts)', error, fix);
  }
  project.provide('chromium', found);
}
