/** The dashboard switches of `flagwire-server` (`docs/protocol.md` §10.1, §10.2), as a child process. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnCli, startCli } from '../../helpers/cli.js';
import { TEST_CONFIG } from '../../helpers/server.js';

const tempDir = () => mkdtempSync(join(tmpdir(), 'flagwire-cli-'));
const dashboardLine = (out: string) => /dashboard: (http:\/\/\S+)\/#token=(\S+)/.exec(out);

async function stop(run: Awaited<ReturnType<typeof startCli>>): Promise<void> {
  run.child.kill('SIGTERM');
  expect((await run.exited).code).toBe(0);
}

describe('flagwire-server and the dashboard', () => {
  it('prints one line that opens the dashboard signed in, with the same token after a restart', async () => {
    const dir = tempDir();
    const run = await startCli(['--data', dir]);
    const line = dashboardLine(run.stdout());
    expect(line?.[1]).toBe(run.url);
    const token = line![2]!;
    expect(token).toMatch(/^fw_admin_[A-Za-z0-9]{32}$/);
    expect((await fetch(`${run.url}/`)).status).toBe(200);
    const overview = await fetch(`${run.url}/admin/api/overview`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(overview.status).toBe(200);
    expect(run.stderr()).not.toContain(token);
    await stop(run);
    const again = await startCli(['--data', dir]);
    expect(dashboardLine(again.stdout())?.[2]).toBe(token);
    await stop(again);
  });

  it('takes the token from --admin-token, else FLAGWIRE_ADMIN_TOKEN, else the config file', async () => {
    const config = join(tempDir(), 'config.json');
    writeFileSync(config, JSON.stringify({ ...TEST_CONFIG, adminToken: 'from-the-config-file-0001' }));
    const fromFlag = await startCli(
      ['--memory', '--config', config, '--admin-token', 'from-the-flag-000000001'],
      {
        FLAGWIRE_ADMIN_TOKEN: 'from-the-environment-001',
      },
    );
    expect(dashboardLine(fromFlag.stdout())?.[2]).toBe('from-the-flag-000000001');
    await stop(fromFlag);
    const fromEnv = await startCli(['--memory', '--config', config], {
      FLAGWIRE_ADMIN_TOKEN: 'from-the-environment-001',
    });
    expect(dashboardLine(fromEnv.stdout())?.[2]).toBe('from-the-environment-001');
    await stop(fromEnv);
    const fromConfig = await startCli(['--memory', '--config', config], { FLAGWIRE_ADMIN_TOKEN: '' });
    expect(dashboardLine(fromConfig.stdout())?.[2]).toBe('from-the-config-file-0001');
    await stop(fromConfig);
  });

  it('refuses a token that is too short', async () => {
    const run = spawnCli(['--memory', '--admin-token', 'short']);
    expect((await run.exited).code).toBe(1);
    expect(run.err()).toContain('admin token must be 16 to 256 printable characters');
  });

  it('--no-dashboard serves neither the page nor the admin API, and prints no dashboard line', async () => {
    const run = await startCli(['--memory', '--no-dashboard']);
    expect(run.stdout()).not.toContain('dashboard:');
    expect((await fetch(`${run.url}/`)).status).toBe(404);
    expect((await fetch(`${run.url}/admin/api/session`)).status).toBe(404);
    await stop(run);
  });
});
