/**
 * Whether a client holds its process does not depend on the network (`holdProcess`,
 * `docs/protocol.md` §9): a started client keeps a process whose only work is following
 * changes alive while the server is up, down and back, until `close()`; with
 * `holdProcess: false` nothing of the client keeps it alive, in any state, but a `flush()` or
 * `close()` the script awaits holds it until it settles, as an awaited management call does
 * through its retries (an unsettled top-level await would make Node exit 13).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it, onTestFinished } from 'vitest';
import { spawnCollecting } from '../../helpers/cli.js';
import { KEYS, startTestServer } from '../../helpers/server.js';
import { totalsOf } from '../../helpers/usage.js';

const FIXTURE = fileURLToPath(new URL('../../fixtures/client-follow.mjs', import.meta.url));
const AWAITED = fileURLToPath(new URL('../../fixtures/awaited-work.mjs', import.meta.url));

/**
 * A child running the fixture (killed when the test ends), with its output as lines and a way to
 * wait for them.
 */
function follow(base: string, mode: 'held' | 'unheld' | 'unheld-no-ready') {
  const run = spawnCollecting(process.execPath, [FIXTURE, base, KEYS.acmeProdRead, mode]);
  const lines = () => run.out().split('\n').slice(0, -1);
  // 'close', not 'exit': its output is all read by then.
  const exited = new Promise<number | null>((resolve) => run.child.once('close', (code) => resolve(code)));
  /** Resolves once `count` lines (printed so far or later) match `test`; rejects if the child exits first. */
  const seen = (test: (line: string) => boolean, count = 1): Promise<void> =>
    new Promise((resolve, reject) => {
      const check = () => {
        if (lines().filter(test).length < count) return;
        run.child.stdout!.off('data', check);
        resolve();
      };
      run.child.stdout!.on('data', check);
      check();
      void exited.then((code) =>
        reject(new Error(`the child exited (${code}) first; it printed:\n${run.out()}${run.err()}`)),
      );
    });
  return { child: run.child, lines, exited, seen };
}

it('holds the process while the server is up, down for several reconnect delays, and back; close() lets it exit', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'flagwire-hold-'));
  onTestFinished(() => rmSync(dataDir, { recursive: true, force: true }));
  let t = await startTestServer({ dataDir });
  const port = Number(new URL(t.server.url).port);
  const { child, exited, seen } = follow(t.base, 'held');
  await seen((line) => line === 'status connected');

  await t.close();
  // Three failed attempts: each came after a reconnect delay, with only the client to hold the process.
  await seen((line) => line.startsWith('error '), 3);
  expect(child.exitCode).toBe(null);

  t = await startTestServer({ dataDir, port });
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
    expect(lines()).toContain('ready');
    expect(lines()).not.toContain('closed');
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
  expect(lines()).toContain('error NETWORK_ERROR');
  expect(lines()).not.toContain('closed');
});

it('with holdProcess: false, holds the process while an awaited flush() and close() are pending: the counts are sent', async () => {
  const t = await startTestServer();
  try {
    await t.api('POST', '/flags', { key: 'script-flag', type: 'boolean' });
    const run = spawnCollecting(process.execPath, [AWAITED, 'usage', t.base, KEYS.acmeProdRead, '30']);
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(run.out()).toBe('flushed true\nclosed\n');
    // 30 before flush(), 30 more sent by close().
    expect((await totalsOf(t.base, 'script-flag', KEYS.acmeProdRead)).total).toBe(60);
  } finally {
    await t.close();
  }
});

it("holds the process while an awaited management call waits to retry: the script's catch gets the error", async () => {
  const t = await startTestServer();
  const base = t.base;
  await t.close();
  // Refused connections: retried twice after a wait, then NETWORK_ERROR.
  const run = spawnCollecting(process.execPath, [AWAITED, 'management', base, KEYS.acmeProdFull]);
  expect(await run.exited).toEqual({ code: 0, signal: null });
  expect(run.out()).toBe('caught NETWORK_ERROR\n');
});
