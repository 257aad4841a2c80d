import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Finds the browser for the browser tests (test/helpers/chromium.ts) and installs the
    // runtime matrix's runtimes (test/helpers/runtimes.ts), once per run.
    globalSetup: ['test/helpers/chromium-setup.ts', 'test/helpers/runtimes-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // expect.poll waits for an event that will come (a page re-rendering, say); a deadline, not a timing claim.
    expect: { poll: { timeout: 10_000, interval: 20 } },
  },
});
