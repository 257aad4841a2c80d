/**
 * `npm start` stops with its server (issue 19). npm passes SIGINT and SIGTERM only to the shell
 * it runs the script with; dash (`/bin/sh` on Debian and Ubuntu) runs the server as its child,
 * dies of SIGTERM and leaves the server serving, and holds SIGINT until the server exits, which
 * it never does. The start script `exec`s, and `scripts/start.mjs` stops the server when npm is
 * gone and takes a terminal's Ctrl+C, which reaches the server twice, as one.
 *
 * POSIX only: Windows has no signals to send to npm.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { CLI } from './helpers/cli.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Live processes as pid → parent pid; zombies (exited, not yet reaped) count as gone. */
function processTable(): Map<number, number> {
  const table = new Map<number, number>();
  const out = execFileSync('ps', ['-A', '-o', 'pid=,ppid=,stat='], { encoding: 'utf8' });
  for (const line of out.split('\n')) {
    const [pid, ppid, stat] = line.trim().split(/\s+/);
    if (pid && ppid && !stat?.startsWith('Z')) table.set(Number(pid), Number(ppid));
  }
  return table;
}

/** Every live process below `root` (its children, theirs, and so on). */
function descendants(root: number): number[] {
  const table = processTable();
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const parent = queue.shift()!;
    for (const [pid, ppid] of table) {
      if (ppid === parent && !found.includes(pid)) {
        found.push(pid);
        queue.push(pid);
      }
    }
  }
  return found;
}

function alive(pids: number[]): number[] {
  const table = processTable();
  return pids.filter((pid) => table.has(pid));
}

/** Whether something accepts a TCP connection on the URL's port. */
function accepts(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

interface NpmStart {
  npm: ChildProcess;
  url: string;
  /** The processes below npm once the server listens: the server (and a shell, if one stayed). */
  started: number[];
  err: () => string;
  exited: Promise<NodeJS.Signals | number | null>;
  /** npm's output streams are closed: every process that held them (the server too) has ended. */
  closed: Promise<void>;
}

/** `npm start -- --port 0 --data <temp dir>`, once the server prints its `listening on` line. */
async function npmStart(options: { group?: boolean } = {}): Promise<NpmStart> {
  const dir = mkdtempSync(join(tmpdir(), 'flagwire-npm-start-'));
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first (npm test does)`);
  // --ignore-scripts skips prestart's build check only: a build started by a test would empty
  // dist/ under the other test files.
  const npm = spawn('npm', ['start', '--silent', '--ignore-scripts', '--', '--port', '0', '--data', dir], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, to signal it the way a terminal's Ctrl+C does.
    detached: options.group ?? false,
  });
  let out = '';
  let err = '';
  npm.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  npm.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const run: NpmStart = {
    npm,
    url: '',
    started: [],
    err: () => err,
    exited: new Promise((resolve) => npm.once('exit', (code, signal) => resolve(signal ?? code))),
    closed: new Promise((resolve) => npm.once('close', () => resolve())),
  };
  // Whatever happens, nothing this test started outlives it.
  onTestFinished(() => {
    for (const pid of alive([npm.pid!, ...run.started, ...descendants(npm.pid!)])) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // ended meanwhile
      }
    }
  });
  run.url = await new Promise<string>((resolve, reject) => {
    npm.stdout!.on('data', () => {
      const match = /flagwire-server listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    void run.exited.then((status) =>
      reject(new Error(`npm start ended (${status}) before listening:\n${err}`)),
    );
  });
  run.started = descendants(npm.pid!);
  expect(run.started.length).toBeGreaterThan(0);
  expect(await accepts(run.url)).toBe(true);
  return run;
}

/** Every process of the run is gone, and the server's port with it. */
async function expectAllGone(run: NpmStart): Promise<void> {
  await expect.poll(() => alive([run.npm.pid!, ...run.started]), { timeout: 10_000 }).toEqual([]);
  await run.closed;
  expect(await accepts(run.url)).toBe(false);
}

describe.skipIf(process.platform === 'win32')('npm start', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('stops with its server when npm gets %s', async (signal) => {
    const run = await npmStart();
    run.npm.kill(signal);
    await expectAllGone(run);
    // npm ends with the server's status: a graceful shutdown's 0.
    expect(await run.exited).toBe(0);
    expect(run.err()).toContain(`flagwire-server: ${signal}, shutting down`);
  });

  it("takes a terminal's Ctrl+C, which reaches npm and the server both, as one signal", async () => {
    const run = await npmStart({ group: true });
    process.kill(-run.npm.pid!, 'SIGINT');
    await expectAllGone(run);
    // Not 1: the copy npm passes on is no second signal that forces the exit.
    expect(await run.exited).toBe(0);
    expect(run.err().match(/shutting down/g)).toHaveLength(1);
  });

  it('stops the server when npm is killed outright', async () => {
    const run = await npmStart();
    run.npm.kill('SIGKILL');
    expect(await run.exited).toBe('SIGKILL');
    await expectAllGone(run);
    expect(run.err()).toContain('flagwire-server: SIGTERM, shutting down');
    expect(run.err()).not.toContain('shutdown failed');
  });
});
