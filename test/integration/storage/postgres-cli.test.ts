/** `flagwire-server --database` (`docs/scaling.md`): what it prints, what it refuses, how it fails. */
import { describe, expect, it } from 'vitest';
import { spawnCli, startCli } from '../../helpers/cli.js';
import { freshDatabase } from '../../helpers/server.js';

describe('flagwire-server --database', () => {
  it('starts on Postgres and prints where, never the password', async () => {
    const url = await freshDatabase();
    const run = await startCli(['--database', url]);
    const database = /\/(t_\w+)$/.exec(url)![1];
    expect(run.stdout()).toMatch(
      new RegExp(`^storage: postgres \\(127\\.0\\.0\\.1:\\d+/${database}\\)$`, 'm'),
    );
    expect(run.stdout()).toMatch(/^default\/development full-access key: fw_live_/m);
    expect(run.stdout()).toMatch(/^dashboard: http:/m);
    expect(run.stdout() + run.stderr()).not.toContain('flagwire-test-password');
    run.child.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
  });

  it('keeps every acknowledged write across a SIGKILL: a new instance serves them all', async () => {
    const url = await freshDatabase();
    const first = await startCli(['--database', url]);
    const headers = { authorization: `Bearer ${first.fullKey}`, 'content-type': 'application/json' };
    const acknowledged = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        fetch(`${first.url}/api/v1/flags`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ key: `kept-${i}`, type: 'rollout', percentage: i }),
        }).then((r) => r.status),
      ),
    );
    expect(acknowledged).toEqual(Array(20).fill(201));
    first.child.kill('SIGKILL');
    await first.exited;
    const second = await startCli(['--database', url]);
    const flags = await (await fetch(`${second.url}/api/v1/flags`, { headers })).json();
    expect(flags.map((f: { key: string; percentage: number }) => [f.key, f.percentage]).sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => [`kept-${i}`, i]).sort(),
    );
    second.child.kill('SIGTERM');
    await second.exited;
  });

  it('reads FLAGWIRE_DATABASE_URL, and --database wins over it', async () => {
    const url = await freshDatabase();
    const fromEnv = await startCli([], { FLAGWIRE_DATABASE_URL: url });
    expect(fromEnv.stdout()).toMatch(/^storage: postgres \(/m);
    fromEnv.child.kill('SIGTERM');
    await fromEnv.exited;
    const unreachable = url.replace(/:\d+\//, ':1/');
    const flagWins = await startCli(['--database', url], { FLAGWIRE_DATABASE_URL: unreachable });
    // The same database as before: the same generated keys.
    expect(flagWins.fullKey).toBe(fromEnv.fullKey);
    flagWins.child.kill('SIGTERM');
    await flagWins.exited;
  });

  it.each([
    [
      ['--database', 'postgres://u:p@127.0.0.1:1/db', '--data', './x'],
      'give either --database or --data, not both',
    ],
    [
      ['--database', 'postgres://u:p@127.0.0.1:1/db', '--memory'],
      'give either --database or --memory, not both',
    ],
    [['--database', 'mysql://u:p@127.0.0.1/db'], 'the database URL must start with postgres://'],
    [['--database', 'not a url'], 'the database URL is not a URL'],
  ])('refuses %j with exit 1 and a clear message', async (args, message) => {
    const run = spawnCli(args);
    expect((await run.exited).code).toBe(1);
    expect(run.err()).toContain(message);
  });

  it('refuses --memory with FLAGWIRE_DATABASE_URL set, naming the variable', async () => {
    const run = spawnCli(['--memory'], { FLAGWIRE_DATABASE_URL: 'postgres://u:p@127.0.0.1:1/db' });
    expect((await run.exited).code).toBe(1);
    expect(run.err()).toContain('give either FLAGWIRE_DATABASE_URL or --memory, not both');
  });

  it('exits 1 after --database-wait when the database cannot be reached, without the password', async () => {
    const run = spawnCli([
      '--port',
      '0',
      '--database',
      'postgres://u:secret-pw@127.0.0.1:1/db',
      '--database-wait',
      '0.5',
    ]);
    expect((await run.exited).code).toBe(1);
    expect(run.err()).toMatch(/cannot reach the database at 127\.0\.0\.1:1\/db within 0\.5 s/);
    expect(run.err()).not.toContain('secret-pw');
    expect(run.out()).not.toContain('listening');
  });
});
