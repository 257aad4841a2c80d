import { defineConfig } from 'vitest/config';

/**
 * The server's conformance and the SDK's integration tests, run a second time with every test
 * server on Postgres (test/helpers/server.ts reads FLAGWIRE_TEST_STORE): parametrised, not copied.
 */
const ON_BOTH_STORES = [
  'test/integration/server/server-flags.test.ts',
  'test/integration/server/server-targeting.test.ts',
  'test/integration/stream/server-sdk.test.ts',
  'test/integration/stream/server-sdk-targeting.test.ts',
  'test/integration/webhooks/server-webhooks.test.ts',
  'test/integration/server/server-auth.test.ts',
  'test/integration/webhooks/webhook-delivery.test.ts',
  'test/integration/sdk/client.test.ts',
  'test/integration/sdk/management-client.test.ts',
  'test/integration/openfeature/openfeature.test.ts',
  'test/integration/openfeature/ofrep.test.ts',
  'test/integration/dashboard/dashboard-api.test.ts',
  'test/integration/openfeature/openfeature-manifest.test.ts',
  'test/integration/server/admin-lifecycle.test.ts',
  'test/integration/server/admin-copy-flags.test.ts',
  'test/integration/usage/usage-api.test.ts',
  'test/integration/usage/usage-stale.test.ts',
  'test/integration/usage/usage-bounds.test.ts',
  'test/integration/usage/usage-client.test.ts',
  'test/integration/server/optimistic-concurrency.test.ts',
  'test/integration/changes/change-requests.test.ts',
  'test/integration/server/approvals-setting.test.ts',
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
          name: 'unit',
          // No global set-up: no server binary, browser, runtime or database; a few seconds.
          include: ['test/unit/**/*.test.ts'],
          // Worker threads start faster than forked processes, and no unit test needs a process.
          pool: 'threads',
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          // Starts a Postgres for the multi-instance tests (test/helpers/postgres.ts), once per
          // run; one that cannot fails the run with one message saying what is missing.
          globalSetup: ['test/helpers/postgres-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration-postgres',
          include: ON_BOTH_STORES,
          env: { FLAGWIRE_TEST_STORE: 'postgres' },
          globalSetup: ['test/helpers/postgres-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          // Finds the browser for the browser tests (test/helpers/chromium.ts), installs the
          // runtime matrix's runtimes outside the checkout (test/helpers/runtimes.ts) and starts a
          // Postgres, once per run. One that cannot fails the whole run with one message saying
          // what is missing and how to fix it.
          globalSetup: [
            'test/helpers/chromium-setup.ts',
            'test/helpers/runtimes-setup.ts',
            'test/helpers/postgres-setup.ts',
          ],
        },
      },
    ],
  },
});
