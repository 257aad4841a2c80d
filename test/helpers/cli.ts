/**
 * Runs the built `flagwire-server` bin (`dist/cli.js`, built by `npm test`'s pretest)
 * as a child process, for the CLI, shutdown and crash tests.
 */
import { type ChildProcess, spawn } from 'node:child_process';
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

function ensureBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first (npm test does)`);
}

/** Spawns the CLI and collects its output; `exited` resolves when it ends. */
export function spawnCli(
  args: string[],
  env: Record<string, string> = {},
): {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exited: CliRun['exited'];
} {
  ensureBuilt();
  const child = spawn(process.execPath, [CLI, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => {
    out += c;
  });
  child.stderr!.setEncoding('utf8').on('data', (c: string) => {
    err += c;
  });
  // A test that fails, times out or whose worker dies must not leave a server running.
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

/** Starts the server and waits for its `listening on` line. */
export async function startCli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const run = spawnCli(['--port', '0', ...args], env);
  const url = await new Promise<string>((resolve, reject) => {
    const check = () => {
      const match = /flagwire-server listening on (http:\/\/\S+)/.exec(run.out());
      if (match) resolve(match[1]!);
    };
    run.child.stdout!.on('data', check);
    void run.exited.then(({ code }) =>
      reject(new Error(`server exited (${code}) before listening:\n${run.err()}`)),
    );
  });
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
