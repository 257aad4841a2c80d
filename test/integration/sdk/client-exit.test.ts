/** `close()` lets a process exit: nothing of the client keeps the event loop alive. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

it('exits by itself after close(), with the stream open until then', async () => {
  const script = fileURLToPath(new URL('../../fixtures/client-exit.mjs', import.meta.url));
  const child = spawn(process.execPath, [script, t.base, KEYS.acmeProdRead], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  expect(out).toContain('closed');
  expect(code).toBe(0);
});
