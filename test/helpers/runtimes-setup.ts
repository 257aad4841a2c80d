/**
 * Vitest global setup: installs the runtime matrix's runtimes (`test/runtimes`' lockfile, into a
 * folder outside the checkout: test/helpers/runtimes.ts) once, before any test file is collected,
 * so test/e2e/package/runtimes.test.ts finds them. An installation that fails fails the whole run here, once,
 * with what is missing and how to fix it.
 */
import { installRuntimes } from './runtimes.js';
import { setupFailure } from './setup-failure.js';

export default async function setup(): Promise<void> {
  try {
    await installRuntimes();
  } catch (error) {
    throw setupFailure(
      "The runtime matrix's runtimes (test/helpers/runtimes-setup.ts) could not be installed",
      error,
    );
  }
}
