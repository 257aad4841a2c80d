/** A throwaway Postgres cluster through the tests' launcher: defaults and `max_connections=400`. */
import { readdirSync, readFileSync } from 'node:fs';
import { PostgresCluster } from '../../test/helpers/postgres-launcher.mjs';
import { defer, startServer } from './util.mjs';

/** CPU time (ms) of `pid` and of every process whose parent it is (Linux /proc; NaN elsewhere). */
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
/** Starts the cluster; `backendCpuMs()`: CPU ms of the postmaster and its backends so far. */
export async function startCluster(log) {
  let cluster;
  try {
    const tmpDir = process.env.FLAGWIRE_BENCH_TMPDIR;
    cluster = await PostgresCluster.start({ ...(tmpDir && { tmpDir }), settings: { max_connections: 400 } });
  } catch (error) {
    throw new Error(`cannot start a Postgres cluster: ${error?.message ?? error}`);
  }
  defer(() => cluster.close());
  const version = (await cluster.query('SELECT version()'))[0].version.split(',')[0];
  log(`  ${version} on port ${cluster.port}`);
  return { cluster, version, backendCpuMs: () => cpuMsOf(cluster.pid) };
}
/** `count` servers on one database: the first alone (it migrates the schema), then the rest at once. */
export async function startInstances(databaseUrl, count, label, options = {}, track = false) {
  const first = await startServer({ databaseUrl, ...options }, `${label}-1`, { track });
  const start = (_, i) => startServer({ databaseUrl, ...options }, `${label}-${i + 2}`, { track });
  return [first, ...(await Promise.all(Array.from({ length: count - 1 }, start)))];
}
