import { defineConfig } from 'vitest/config';

/**
 * The server's conformance and the SDK's integration tests, run a second time with every test
 * server on Postgres (test/helpers/server.ts reads FLAGWIRE_TEST_STORE): parametrised, not copied.
 */
const ON_BOTH_STORES = [
  'test/server-flags.test.ts',
  'test/server-targeting.test.ts',
  'test/server-sdk.test.ts',
  'test/server-sdk-targeting.test.ts',
  'test/server-webhooks.test.ts',
  'test/server-auth.test.ts',
  'test/webhook-delivery.test.ts',
  'test/client.test.ts',
  'test/management-client.test.ts',
  'test/openfeature.test.ts',
  'test/ofrep.test.ts',
  'test/dashboard-api.test.ts',
  'test/openfeature-manifest.test.ts',
  'test/admin-lifecycle.test.ts',
  'test/admin-copy-flags.test.ts',
  'test/usage-api.test.ts',
  'test/usage-stale.test.ts',
  'test/usage-bounds.test.ts',
  'test/usage-client.test.ts',
  'test/optimistic-concurrency.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // expect.poll waits for an event that will come (a page re-rendering, say); a deadline, not a timing claim.
    expect: { poll: { timeout: 10_000, interval: 20 } },
    projects: [
      {
        extends: true,
        test: {
          name: 'journal',
          include: ['test/**/*.test.ts'],
          // Finds the browser for the browser tests (test/helpers/chromium.ts), installs the
          // runtime matrix's runtimes outside the checkout (test/helpers/runtimes.ts) and starts a
          // Postgres for the multi-instance tests (test/helpers/postgres.ts), once per run. One that
          // cannot fails the whole run with one message saying what is missing and how to fix it.
          globalSetup: [
            'test/helpers/chromium-setup.ts',
            'test/helpers/runtimes-setup.ts',
            'test/helpers/postgres-setup.ts',
          ],
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: ON_BOTH_STORES,
          env: { FLAGWIRE_TEST_STORE: 'postgres' },
          globalSetup: ['test/helpers/postgres-setup.ts'],
        },
      },
    ],
  },
});
