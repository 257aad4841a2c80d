/**
 * `flagwire-server`'s single sign-on flags and variables (`docs/protocol.md` §10.6): the issuer,
 * client id and secret from `--oidc-*` or `FLAGWIRE_OIDC_*`, all three or none; an `http://`
 * issuer on a loopback address only. The provider is not asked anything at start-up.
 */
import { describe, expect, it } from 'vitest';
import { spawnCli, startCli } from '../../helpers/cli.js';

/** An issuer nothing listens at: start-up must not need it. */
const ISSUER = 'http://127.0.0.1:9';

describe('flagwire-server --oidc-*', () => {
  it('takes the secret from FLAGWIRE_OIDC_CLIENT_SECRET and offers single sign-on', async () => {
    const run = await startCli(['--memory', '--oidc-issuer', ISSUER, '--oidc-client-id', 'flagwire'], {
      FLAGWIRE_OIDC_CLIENT_SECRET: 'a-secret',
      FLAGWIRE_OIDC_ISSUER: '',
      FLAGWIRE_OIDC_CLIENT_ID: '',
    });
    try {
      const answer = await fetch(`${run.url}/admin/api/sso`);
      expect(await answer.json()).toEqual({ enabled: true, loginUrl: '/admin/oidc/login' });
      expect(run.stdout()).not.toContain('a-secret');
    } finally {
      run.child.kill('SIGTERM');
      await run.exited;
    }
  });

  it.each([
    [['--oidc-issuer', ISSUER], /needs --oidc-issuer, --oidc-client-id and --oidc-client-secret/],
    [
      ['--oidc-issuer', 'http://idp.example.com', '--oidc-client-id', 'a', '--oidc-client-secret', 'b'],
      /invalid --oidc-issuer .*loopback/,
    ],
    [
      [
        '--oidc-issuer',
        ISSUER,
        '--oidc-client-id',
        'a',
        '--oidc-client-secret',
        'b',
        '--oidc-default-role',
        'owner',
      ],
      /invalid --oidc-default-role/,
    ],
    [['--oidc-allowed-domains', 'example.com'], /need --oidc-issuer/],
  ])('refuses %j, exiting 1', async (args, message) => {
    const run = spawnCli(['--memory', '--port', '0', ...args], {
      FLAGWIRE_OIDC_ISSUER: '',
      FLAGWIRE_OIDC_CLIENT_ID: '',
      FLAGWIRE_OIDC_CLIENT_SECRET: '',
    });
    expect((await run.exited).code).toBe(1);
    expect(run.err()).toMatch(message);
  });
});
