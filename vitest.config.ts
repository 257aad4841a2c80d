import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Finds the browser for the browser tests once per run (test/helpers/chromium.ts).
    globalSetup: ['test/helpers/chromium-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
