/**
 * Runs the built `flagwire-server` bin (`dist/cli.js`, built by `npm test`'s pretest)
 * as a child process, for the CLI, shutdown and crash tests.
 */
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { onTestFinished } from 'vitest';

export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

export interface CliRun {
  child: ChildProcess;
  url: string;
  fullKey: string;
  readKey: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function ensureBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first (npm test does)`);
}

/** A child process with its output collected; `exited` resolves when it ends. */
export interface Spawned {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exited: CliRun['exited'];
}

/**
 * Spawns `command` and collects its output. A test that fails, times out or whose worker dies
 * must not leave it running: it is killed when the test (or this process) ends.
 */
export function spawnCollecting(command: string, args: string[], options: SpawnOptions = {}): Spawned {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => {
    out += c;
  });
  child.stderr!.setEncoding('utf8').on('data', (c: string) => {
    err += c;
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  try {
    onTestFinished(() => {
      killOnExit();
    });
  } catch {
    // Spawned outside a test (a hook): the exit handler above is the guard.
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      process.off('exit', killOnExit);
      resolve({ code, signal });
    }),
  );
  return { child, out: () => out, err: () => err, exited };
}

/** Spawns the CLI and collects its output; `exited` resolves when it ends. */
export function spawnCli(args: string[], env: Record<string, string> = {}): Spawned {
  ensureBuilt();
  return spawnCollecting(process.execPath, [CLI, ...args], { env: { ...process.env, ...env } });
}

/** The server's URL, once it prints its `listening on` line; rejects if it exits first. */
export function listeningUrl(run: Spawned): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const check = () => {
      const match = /flagwire-server listening on (http:\/\/\S+)/.exec(run.out());
      if (match) resolve(match[1]!);
    };
    run.child.stdout!.on('data', check);
    void run.exited.then(({ code, signal }) =>
      reject(new Error(`server exited (${signal ?? code}) before listening:\n${run.err()}`)),
    );
  });
}

/** Starts the server and waits for its `listening on` line. */
export async function startCli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const run = spawnCli(['--port', '0', ...args], env);
  const url = await listeningUrl(run);
  const key = (access: string) => new RegExp(`${access}\\s+key: (fw_live_\\w+)`).exec(run.out())?.[1] ?? '';
  return {
    child: run.child,
    url,
    fullKey: key('full-access'),
    readKey: key('read-only'),
    stdout: run.out,
    stderr: run.err,
    exited: run.exited,
  };
}
