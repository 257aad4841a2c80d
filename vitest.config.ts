import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Finds the browser for the browser tests once per run (test/helpers/chromium.ts).
    globalSetup: ['test/helpers/chromium-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // expect.poll waits for an event that will come (a page re-rendering, say); a deadline, not a timing claim.
    expect: { poll: { timeout: 10_000, interval: 20 } },
  },
});
