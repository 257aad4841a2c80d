/**
 * Vitest global setup: finds the browser once per run (unpacking the bundled Chromium at most
 * once, before any test file runs) and hands it to the browser tests through `inject`. A
 * machine without any browser gets the finder's message, which the browser tests fail with:
 * they never pass silently.
 */
import type { TestProject } from 'vitest/node';
import { type FoundChromium, findChromium } from './chromium.js';

declare module 'vitest' {
  export interface ProvidedContext {
    chromium: FoundChromium | { error: string };
  }
}

export default async function setup(project: TestProject): Promise<void> {
  try {
    project.provide('chromium', await findChromium());
  } catch (error) {
    project.provide('chromium', { error: error instanceof Error ? error.message : String(error) });
  }
}
