/**
 * Vitest global setup: one real Postgres per run (test/helpers/postgres.ts), handed to the
 * tests through `inject('postgres')`. Each test server gets a database of its own in it.
 */
import type { TestProject } from 'vitest/node';
import { PostgresCluster } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The admin URL of the run's Postgres, or why there is none. */
    postgres: { url: string } | { error: string };
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let cluster: PostgresCluster | undefined;
  try {
    cluster = await PostgresCluster.start();
    project.provide('postgres', { url: cluster.url() });
  } catch (error) {
    project.provide('postgres', { error: error instanceof Error ? error.message : String(error) });
  }
  return async () => {
    await cluster?.close();
  };
}
