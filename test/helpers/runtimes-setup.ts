/**
 * Vitest global setup: installs the runtime matrix's runtimes (`test/runtimes`, from its own
 * lockfile) once, before any test file is collected, so test/runtimes.test.ts finds them.
 */
import { installRuntimes } from './runtimes.js';

export default function setup(): void {
  installRuntimes();
}
