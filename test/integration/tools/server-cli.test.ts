/** The `flagwire-server` command line (`docs/protocol.md` §7), as a child process. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnCli, startCli } from '../../helpers/cli.js';
import { KEYS, TEST_CONFIG } from '../../helpers/server.js';

const tempDir = () => mkdtempSync(join(tmpdir(), 'flagwire-cli-'));

function configFile(content: string): string {
  const file = join(tempDir(), 'config.json');
  writeFileSync(file, content);
  return file;
}

describe('flagwire-server', () => {
  it('prints usage for --help and exits 0', async () => {
    const run = spawnCli(['--help']);
    expect((await run.exited).code).toBe(0);
    expect(run.out()).toContain('Usage: flagwire-server');
  });

  it('starts on an empty data dir with a default project and prints a full and a read-only key', async () => {
    const dir = tempDir();
    const run = await startCli(['--data', dir]);
    expect(run.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(run.fullKey).toMatch(/^fw_live_[A-Za-z0-9]{32}$/);
    expect(run.readKey).toMatch(/^fw_live_[A-Za-z0-9]{32}$/);
    expect(run.stdout()).toContain('default/development');
    const res = await fetch(`${run.url}/api/v1/flags`, {
      headers: { authorization: `Bearer ${run.readKey}` },
    });
    expect(res.status).toBe(200);
    run.child.kill('SIGINT');
    expect((await run.exited).code).toBe(0);
    const again = await startCli(['--data', dir]);
    expect([again.fullKey, again.readKey]).toEqual([run.fullKey, run.readKey]);
    again.child.kill('SIGTERM');
    expect((await again.exited).code).toBe(0);
  });

  it('flushes on SIGTERM: a write acknowledged before the signal is there after a restart', async () => {
    const dir = tempDir();
    const run = await startCli(['--data', dir]);
    const headers = { authorization: `Bearer ${run.fullKey}`, 'content-type': 'application/json' };
    const res = await fetch(`${run.url}/api/v1/flags`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ key: 'kept', type: 'boolean' }),
    });
    expect(res.status).toBe(201);
    run.child.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    const again = await startCli(['--data', dir]);
    const flag = await fetch(`${again.url}/api/v1/flags/kept`, { headers });
    expect(flag.status).toBe(200);
    again.child.kill('SIGTERM');
    await again.exited;
  });

  it('closes open streams on shutdown and still exits 0', async () => {
    const run = await startCli(['--memory']);
    const stream = await fetch(`${run.url}/sdk/events`, {
      headers: { authorization: `Bearer ${run.readKey}` },
    });
    expect(stream.status).toBe(200);
    run.child.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    await expect(stream.text()).resolves.toContain('flags:sync');
  });

  it('uses --config: its keys and seed flags, printed at start', async () => {
    const run = await startCli(['--memory', '--config', configFile(JSON.stringify(TEST_CONFIG))]);
    expect(run.stdout()).toContain(KEYS.acmeProdFull);
    const res = await fetch(`${run.url}/api/v1/flags/seeded`, {
      headers: { authorization: `Bearer ${KEYS.acmeProdRead}` },
    });
    expect(await res.json()).toMatchObject({ enabled: true, percentage: 25 });
    run.child.kill('SIGTERM');
    await run.exited;
  });

  it.each([
    ['malformed JSON', '{"projects": [', 'is not valid JSON'],
    [
      'a bad API key',
      JSON.stringify({
        projects: [{ key: 'p', environments: [{ key: 'e', apiKeys: [{ key: 'x', access: 'full' }] }] }],
      }),
      'projects[0].environments[0].apiKeys[0].key',
    ],
    [
      'a bad access level',
      JSON.stringify({
        projects: [
          { key: 'p', environments: [{ key: 'e', apiKeys: [{ key: KEYS.otherFull, access: 'admin' }] }] },
        ],
      }),
      'access',
    ],
    [
      'a bad flag',
      JSON.stringify({
        projects: [
          { key: 'p', environments: [{ key: 'e', flags: [{ key: 'f', type: 'boolean', percentage: 5 }] }] },
        ],
      }),
      'percentage',
    ],
    ['an unknown field', JSON.stringify({ projects: [], extra: true }), '"extra"'],
    ['no projects array', JSON.stringify({ projects: {} }), 'projects: must be an array'],
  ])('refuses a config with %s: a clear message, exit 1, nothing started', async (_, content, expected) => {
    const run = spawnCli(['--memory', '--port', '0', '--config', configFile(content)]);
    expect((await run.exited).code).toBe(1);
    expect(run.err()).toContain(expected);
    expect(run.out()).not.toContain('listening');
  });

  it('refuses a missing config file', async () => {
    const run = spawnCli(['--memory', '--config', join(tempDir(), 'missing.json')]);
    expect((await run.exited).code).toBe(1);
    expect(run.err()).toContain('cannot read config');
  });

  it('exits 1 with a clear message when the port is in use', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    try {
      const run = spawnCli(['--memory', '--port', String(port)]);
      expect((await run.exited).code).toBe(1);
      expect(run.err()).toContain(`port ${port}`);
      expect(run.err()).toContain('already in use');
    } finally {
      blocker.close();
    }
  });

  it.each([
    [['--port', 'abc']],
    [['--port', '70000']],
    [['--ping-interval', '0']],
    [['--bogus']],
    [['--memory', '--data', '/tmp/x']],
  ])('exits 1 with usage for bad arguments %j', async (args) => {
    const run = spawnCli(args);
    expect((await run.exited).code).toBe(1);
    expect(run.err()).toContain('Usage: flagwire-server');
  });

  it('refuses a data dir another running server holds', async () => {
    const dir = tempDir();
    const first = await startCli(['--data', dir]);
    const second = spawnCli(['--data', dir, '--port', '0']);
    expect((await second.exited).code).toBe(1);
    expect(second.err()).toContain('in use by another process');
    first.child.kill('SIGTERM');
    await first.exited;
  });
});
