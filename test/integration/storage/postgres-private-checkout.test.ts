/**
 * Postgres from a checkout in a private folder: a clone into `mktemp -d` (mode 0700) or
 * under /root. As root, Postgres runs as the `postgres` user, which cannot pass such a folder, so
 * it cannot run the binaries in the checkout's node_modules; the launcher the suite uses
 * (test/helpers/postgres-launcher.mjs) then runs them from a copy it can reach. Here the platform
 * package is placed under a 0700 folder as `npm ci` would place it (a farm of hard links, or
 * copies across file systems; without the links its install script would make, since npm 11
 * skips that script) and a cluster is started from it. As a normal user the binaries run as that
 * user, who can pass its own folder; the missing links still call for the copy, so the same test
 * means something there too. The decision itself is tested by mode bits, with a made-up user.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import {
  chmod,
  chown,
  copyFile,
  link,
  mkdir,
  mkdtemp,
  readdir,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresCluster } from '../../helpers/postgres.js';
import {
  blockedAt,
  COPY_MARKER,
  copyFolderName,
  nativeProblem,
  type PostgresUser,
  packageLinks,
  postgresNative,
  postgresPackage,
  postgresUser,
  reachableTemp,
  readCopyMarker,
} from '../../helpers/postgres-launcher.mjs';

const who = postgresUser();
const installed = postgresPackage();
const cleanups: string[] = [];

/** `from`'s tree at `to`: folders made, files hard-linked (copied across file systems), no symlinks. */
async function farm(from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true });
  await chmod(to, 0o755);
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) await farm(source, target);
    else if (entry.isFile()) {
      await link(source, target).catch(async () => {
        await copyFile(source, target);
        await chmod(target, statSync(source).mode & 0o777);
      });
    }
  }
}

/** A new cache root that `user` (the Postgres user) can reach, deleted after the file. */
function newCacheRoot(user: PostgresUser | undefined = who): string {
  const dir = mkdtempSync(join(reachableTemp(user), 'flagwire-pg-cache-test-'));
  cleanups.push(dir);
  chmodSync(dir, 0o755);
  return dir;
}

let privateDir: string;
let packageDir: string;

beforeAll(async () => {
  privateDir = await mkdtemp(join(tmpdir(), 'flagwire-private-checkout-'));
  cleanups.push(privateDir);
  await chmod(privateDir, 0o700);
  packageDir = join(privateDir, 'checkout', 'node_modules', ...installed.name.split('/'));
  await farm(installed.dir, packageDir);
});

afterAll(async () => {
  for (const dir of cleanups) await rm(dir, { recursive: true, force: true });
});

describe('a checkout in a 0700 folder', () => {
  it('starts a cluster through the suite’s launcher, answers a query, and closes', async () => {
    const pkg = postgresPackage(packageDir);
    if (who?.spawnAs) {
      // As root the folder itself keeps the postgres user out.
      expect(blockedAt(pkg.native, who, 1)).toBe(privateDir);
    }
    expect(nativeProblem(pkg, who)).toBeDefined();

    const cacheRoot = newCacheRoot();
    const cluster = await PostgresCluster.start({ packageDir, cacheRoot });
    try {
      expect(cluster.native).toBe(join(cacheRoot, copyFolderName(pkg)));
      expect(await readCopyMarker(cluster.native)).toMatchObject({ package: pkg.name, version: pkg.version });
      const rows = await cluster.query<{ answer: number }>('SELECT 6 * 7 AS answer');
      expect(rows).toEqual([{ answer: 42 }]);
    } finally {
      await cluster.close();
    }
    expect(existsSync(cluster.dir)).toBe(false);

    // The links the install script would have made are in the copy.
    for (const { path, to } of packageLinks(pkg.dir)) {
      expect(lstatSync(join(cluster.native, path)).isSymbolicLink()).toBe(true);
      expect(existsSync(join(cluster.native, path)), `${path} -> ${to}`).toBe(true);
    }

    // A second run reuses the copy: the same marker file, not a new one.
    const marker = statSync(join(cluster.native, COPY_MARKER));
    const again = await PostgresCluster.start({ packageDir, cacheRoot });
    try {
      expect(again.native).toBe(cluster.native);
      expect(await again.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      await again.close();
    }
    const after = statSync(join(cluster.native, COPY_MARKER));
    expect({ ino: after.ino, mtimeMs: after.mtimeMs }).toEqual({ ino: marker.ino, mtimeMs: marker.mtimeMs });
  });

  it('builds one copy when several runs ask at once, every one of them complete and usable', async () => {
    const pkg = postgresPackage(packageDir);
    const cacheRoot = newCacheRoot();
    const choices = await Promise.all([1, 2, 3, 4].map(() => postgresNative(pkg, who, { cacheRoot })));
    const dir = join(cacheRoot, copyFolderName(pkg));
    expect(choices.map((c) => c.native)).toEqual([dir, dir, dir, dir]);
    expect(choices.every((c) => c.copied)).toBe(true);
    // Only the copy is left: the losers' folders are gone.
    expect(readdirSync(cacheRoot)).toEqual([copyFolderName(pkg)]);
    expect(existsSync(join(dir, COPY_MARKER))).toBe(true);
    const version = execFileSync(join(dir, 'bin', 'postgres'), ['--version'], {
      encoding: 'utf8',
      ...who?.spawnAs,
    });
    expect(version).toMatch(/^postgres \(PostgreSQL\) \d+/);
  });

  it('uses the installed package as it is when its user can reach it and the links are there', async () => {
    const pkg = postgresPackage(packageDir);
    const reachable = join(newCacheRoot(), 'package');
    // The farm again, with the install script's links, in a folder open to others.
    await farm(pkg.dir, reachable);
    for (const { path, to } of packageLinks(pkg.dir)) await symlink(to, join(reachable, 'native', path));
    const open = postgresPackage(reachable);
    expect(nativeProblem(open, who)).toBeUndefined();
    expect(await postgresNative(open, who)).toEqual({
      native: open.native,
      copied: false,
      reason: undefined,
    });
  });
});

describe('who can reach what, by mode bits', () => {
  const me = { uid: process.getuid?.() ?? 0, groups: process.getgroups?.() ?? [] };
  /** A user who owns nothing here and is in none of its groups. */
  const stranger: PostgresUser = {
    name: 'stranger',
    uid: 4_000_001,
    gid: 4_000_001,
    groups: [4_000_001],
    spawnAs: undefined,
  };
  let base: string;
  beforeAll(async () => {
    base = await mkdtemp(join(reachableTemp(stranger), 'flagwire-reach-'));
    cleanups.push(base);
    await chmod(base, 0o755);
  });

  it('decides by the owner’s, the group’s or the others’ bits, whichever apply', async () => {
    const dir = join(base, 'modes');
    await mkdir(dir);
    // The owner: this user, or as root (who may reach anything) a made-up one.
    let owner = { uid: me.uid, groups: [] as number[] };
    if (me.uid === 0) {
      await chown(dir, 4_000_002, statSync(dir).gid);
      owner = { uid: 4_000_002, groups: [] };
    }
    const gid = statSync(dir).gid;
    const cases: Array<[number, { uid: number; groups: number[] }, boolean]> = [
      [0o700, stranger, false],
      [0o701, stranger, true],
      [0o710, { uid: stranger.uid, groups: [gid] }, true],
      [0o701, { uid: stranger.uid, groups: [gid] }, false], // a member gets the group's bits, not others'
      [0o071, { uid: owner.uid, groups: [gid] }, false], // the owner gets the owner's bits only
      [0o100, owner, true],
    ];
    for (const [mode, user, open] of cases) {
      await chmod(dir, mode);
      expect(blockedAt(dir, user, 1), `${mode.toString(8)} for uid ${user.uid}`).toBe(open ? undefined : dir);
    }
    await chmod(dir, 0o755);
  });

  it('names the nearest folder on the way that is closed', async () => {
    const outer = join(base, 'outer');
    const inner = join(outer, 'inner');
    await mkdir(inner, { recursive: true });
    await chmod(outer, 0o700);
    expect(blockedAt(inner, stranger, 1)).toBe(outer);
    await chmod(outer, 0o711);
    expect(blockedAt(inner, stranger, 1)).toBeUndefined();
    await chmod(inner, 0o750);
    expect(blockedAt(inner, stranger, 1)).toBe(inner);
    expect(blockedAt(inner, { uid: 0, groups: [] }, 1)).toBeUndefined();
  });

  it('calls for a copy when a file in the package is closed to the user or a link is missing', async () => {
    const root = join(base, 'pkg');
    await mkdir(join(root, 'native', 'bin'), { recursive: true });
    await mkdir(join(root, 'native', 'lib'), { recursive: true });
    await writeFile(join(root, 'package.json'), '{"version":"1.0.0"}');
    for (const bin of ['initdb', 'postgres'])
      await writeFile(join(root, 'native', 'bin', bin), '', { mode: 0o755 });
    await writeFile(join(root, 'native', 'lib', 'libpq.so.5.18'), '', { mode: 0o644 });
    await writeFile(
      join(root, 'native', 'pg-symlinks.json'),
      JSON.stringify([
        { source: 'native/lib/libpq.so.5.18', target: 'native/lib/libpq.so.5' },
        { source: 'native/lib/libpq.so.5.18', target: 'native/../../outside' },
      ]),
    );
    const pkg = postgresPackage(root);
    // Links outside native/ are never taken from the list.
    expect(packageLinks(root)).toEqual([{ path: 'lib/libpq.so.5', to: 'libpq.so.5.18' }]);
    expect(nativeProblem(pkg, stranger)).toMatch(/native\/lib\/libpq\.so\.5 is missing/);
    await symlink('libpq.so.5.18', join(root, 'native', 'lib', 'libpq.so.5'));
    expect(nativeProblem(pkg, stranger)).toBeUndefined();
    await chmod(join(root, 'native', 'lib', 'libpq.so.5.18'), 0o640);
    expect(nativeProblem(pkg, stranger)).toContain('libpq.so.5.18');
    await chmod(join(root, 'native', 'lib', 'libpq.so.5.18'), 0o644);
    await chmod(join(root, 'native', 'bin', 'initdb'), 0o754);
    expect(nativeProblem(pkg, stranger)).toContain(join('bin', 'initdb'));
    // Its own user (a normal user running the tests) reaches it all.
    expect(nativeProblem(pkg, { ...stranger, uid: me.uid, groups: me.groups })).toBeUndefined();
  });

  it('copies what a hard link would leave closed, and opens the copy to others', async () => {
    const root = join(base, 'closed-pkg');
    await mkdir(join(root, 'native', 'bin'), { recursive: true });
    await writeFile(join(root, 'package.json'), '{"version":"2.0.0-closed"}');
    for (const bin of ['initdb', 'postgres'])
      await writeFile(join(root, 'native', 'bin', bin), '', { mode: 0o700 });
    const pkg = postgresPackage(root);
    const cacheRoot = newCacheRoot(stranger);
    const choice = await postgresNative(pkg, stranger, { cacheRoot });
    expect(choice.copied).toBe(true);
    expect(choice.reason).toContain('bin');
    const copied = statSync(join(choice.native, 'bin', 'postgres'));
    expect(copied.mode & 0o777).toBe(0o755);
    expect(copied.ino).not.toBe(statSync(join(root, 'native', 'bin', 'postgres')).ino);
    expect(nativeProblem({ ...pkg, native: choice.native }, stranger)).toBeUndefined();
  });
});
