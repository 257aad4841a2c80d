/**
 * `npm start` stops with its server. npm passes SIGINT and SIGTERM only to the shell
 * it runs the script with; dash (`/bin/sh` on Debian and Ubuntu) runs the server as its child,
 * dies of SIGTERM and leaves the server serving, and holds SIGINT until the server exits, which
 * it never does. The start script `exec`s, and `scripts/start.mjs` stops the server when npm is
 * gone and takes a terminal's Ctrl+C, which reaches the server twice, as one.
 *
 * POSIX only: Windows has no signals to send to npm.
 */
import { type ChildProcess, execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ensureBuilt, listeningUrl, spawnCollecting } from '../../helpers/cli.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

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
  /** npm's exit: its signal, or else its status. */
  exited: Promise<NodeJS.Signals | number | null>;
  /** npm's output streams are closed: every process that held them (the server too) has ended. */
  closed: Promise<void>;
}

/** `npm start -- --port 0 --data <temp dir>`, once the server prints its `listening on` line. */
async function npmStart(options: { group?: boolean } = {}): Promise<NpmStart> {
  const dir = mkdtempSync(join(tmpdir(), 'flagwire-npm-start-'));
  ensureBuilt();
  // --ignore-scripts skips prestart's build check only: a build started by a test would empty
  // dist/ under the other test files.
  const spawned = spawnCollecting(
    'npm',
    ['start', '--silent', '--ignore-scripts', '--', '--port', '0', '--data', dir],
    {
      cwd: ROOT,
      // Its own process group, to signal it the way a terminal's Ctrl+C does.
      detached: options.group ?? false,
    },
  );
  const npm = spawned.child;
  const run: NpmStart = {
    npm,
    url: '',
    started: [],
    err: spawned.err,
    exited: spawned.exited.then(({ code, signal }) => signal ?? code),
    closed: new Promise((resolve) => npm.once('close', () => resolve())),
  };
  // Whatever happens, nothing this test started outlives it (npm itself is killed by spawnCollecting).
  onTestFinished(() => {
    for (const pid of alive([...run.started, ...descendants(npm.pid!)])) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // ended meanwhile
      }
    }
  });
  run.url = await listeningUrl(spawned);
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
