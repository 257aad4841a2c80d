/**
 * Whether a client holds its process does not depend on the network (`holdProcess`,
 * `docs/protocol.md` §5.5): a started client keeps a process whose only work is following
 * changes alive while the server is up, down and back, until `close()`; with
 * `holdProcess: false` nothing of the client keeps it alive, in any state.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, expect, it } from 'vitest';
import { KEYS, startTestServer, type TestServer } from './helpers/server.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/client-follow.mjs', import.meta.url));
const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A child running the fixture, with its output as lines and a way to wait for one. */
function follow(base: string, mode: 'held' | 'unheld' | 'unheld-no-ready') {
  const child = spawn(process.execPath, [FIXTURE, base, KEYS.acmeProdRead, mode], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const lines: string[] = [];
  const waiters: { test: (line: string) => boolean; resolve: () => void }[] = [];
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let rest = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop()!;
    for (const line of parts) {
      lines.push(line);
      for (const waiter of waiters.splice(0)) {
        if (waiter.test(line)) waiter.resolve();
        else waiters.push(waiter);
      }
    }
  });
  /** Resolves once `count` lines (seen so far and from now on) match `test`; rejects if the child exits first. */
  const seen = (test: (line: string) => boolean, count = 1): Promise<void> =>
    new Promise((resolve, reject) => {
      let matched = lines.filter(test).length;
      if (matched >= count) return resolve();
      const waiter = {
        test: (line: string) => test(line) && ++matched >= count,
        resolve,
      };
      waiters.push(waiter);
      void exited.then((code) =>
        reject(new Error(`the child exited (${code}) first; it printed:\n${lines.join('\n')}`)),
      );
    });
  return { child, lines, exited, seen };
}

async function durableServer(port = 0): Promise<TestServer> {
  const dataDir = dirs.at(-1) ?? mkdtempSync(join(tmpdir(), 'flagwire-hold-'));
  if (!dirs.includes(dataDir)) dirs.push(dataDir);
  return startTestServer({ dataDir, port });
}

it('holds the process while the server is up, down for several reconnect delays, and back; close() lets it exit', async () => {
  let t = await durableServer();
  const port = Number(new URL(t.server.url).port);
  const { child, exited, seen } = follow(t.base, 'held');
  await seen((line) => line === 'status connected');

  await t.close();
  // Three failed attempts: each came after a reconnect delay, with only the client to hold the process.
  await seen((line) => line.startsWith('error '), 3);
  expect(child.exitCode).toBe(null);

  t = await durableServer(port);
  try {
    await seen((line) => line === 'status connected', 2);
    const answer = await t.api('PATCH', '/flags/seeded', { enabled: false });
    expect(answer.status).toBe(200);
    await seen((line) => line === 'change seeded false');
    expect(child.exitCode).toBe(null);

    child.kill('SIGUSR2');
    expect(await exited).toBe(0);
  } finally {
    await t.close();
  }
});

it('with holdProcess: false, lets the process exit while connected, without close()', async () => {
  const t = await startTestServer();
  try {
    const { lines, exited } = follow(t.base, 'unheld');
    // `ready()` held it until the flags loaded; after that nothing of the client holds it.
    expect(await exited).toBe(0);
    expect(lines).toContain('ready');
    expect(lines).not.toContain('closed');
  } finally {
    await t.close();
  }
});

it('with holdProcess: false, lets the process exit while the server is down', async () => {
  const t = await startTestServer();
  const base = t.base;
  await t.close();
  const { lines, exited } = follow(base, 'unheld-no-ready');
  expect(await exited).toBe(0);
  expect(lines.some((line) => line === 'error NETWORK_ERROR')).toBe(true);
  expect(lines).not.toContain('closed');
});
