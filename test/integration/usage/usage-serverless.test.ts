/**
 * Usage from a serverless function (`docs/protocol.md` §13.6): a child process runs the built
 * SDK, evaluates, awaits `flush()` and exits at once (`process.exit`, the client never closed):
 * every evaluation it made is counted by the time it exited, exactly.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';
import { totalsOf } from '../../helpers/usage.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const FUNCTION = fileURLToPath(new URL('../../fixtures/usage-serverless.mjs', import.meta.url));
let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
  await t.api('POST', '/flags', { key: 'fn-flag', type: 'rollout', percentage: 40 });
  await t.api('PATCH', '/flags/fn-flag', { enabled: true });
});
afterAll(() => t?.close());

it('counts what a function evaluated before it awaited flush() and exited at once', async () => {
  const invocations = [120, 7, 333];
  const outcomes = await Promise.all(
    invocations.map(async (n) => {
      const { stdout } = await run(process.execPath, [FUNCTION, t.base, KEYS.acmeProdRead, String(n)], {
        cwd: ROOT,
      });
      return JSON.parse(stdout) as { flushed: boolean; on: number };
    }),
  );
  expect(outcomes.map((o) => o.flushed)).toEqual([true, true, true]);
  // Counted before each process exited: no wait here.
  const totals = await totalsOf(t.base, 'fn-flag', KEYS.acmeProdRead);
  const on = outcomes.reduce((sum, o) => sum + o.on, 0);
  const all = invocations.reduce((a, b) => a + b, 0);
  expect(totals.byVariant).toEqual({ 'on/ROLLOUT_IN': on, 'off/ROLLOUT_OUT': all - on });
});
