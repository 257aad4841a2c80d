/**
 * Single sign-on's settings (`docs/protocol.md` §10.6): the issuer is `https://`, or `http://` on
 * a loopback address only; the defaults (role `viewer`, any domain); domains compared in lower
 * case; and the return path after signing in is a path of the server's own, nothing else.
 */
import { describe, expect, it } from 'vitest';
import { returnPath } from '../../../server/dashboard/oidc.js';
import { isLoopbackHost, issuerProblem } from '../../../server/dashboard/oidc-settings.js';
import { oidcOptions, resolveServerOptions } from '../../../server/options.js';

const base = { issuer: 'https://idp.example.com/', clientId: ' flagwire ', clientSecret: 'secret' };

describe('the issuer', () => {
  it('is https://, or http:// on a loopback address only', () => {
    for (const ok of [
      'https://idp.example.com',
      'https://idp.example.com/tenant/v2.0',
      'http://127.0.0.1:8080',
      'http://127.1.2.3',
      'http://[::1]:9000',
      'http://localhost:3000',
    ])
      expect(issuerProblem(ok), ok).toBeUndefined();
    for (const refused of [
      'http://idp.example.com',
      'http://10.0.0.1',
      'http://127.0.0.1.nip.io',
      'http://localhost.evil.example',
      'ftp://idp.example.com',
      'https://user:pw@idp.example.com',
      'https://idp.example.com/?x=1',
      'not a url',
    ])
      expect(issuerProblem(refused), refused).toBeDefined();
    expect(isLoopbackHost('[::1]')).toBe(true);
    expect(isLoopbackHost('128.0.0.1')).toBe(false);
  });
});

describe('oidcOptions', () => {
  it('is off without oidc, with its defaults when given', () => {
    expect(resolveServerOptions({}).oidc).toBeUndefined();
    expect(oidcOptions(base)).toEqual({
      issuer: 'https://idp.example.com',
      clientId: 'flagwire',
      clientSecret: 'secret',
      defaultRole: 'viewer',
      allowedDomains: [],
    });
  });

  it('keeps the domains in lower case, once each, and the role given', () => {
    expect(
      oidcOptions({
        ...base,
        defaultRole: 'editor',
        allowedDomains: ['Example.COM', '@example.com', 'b.org'],
      }),
    ).toMatchObject({ defaultRole: 'editor', allowedDomains: ['example.com', 'b.org'] });
  });

  it('refuses what it cannot use, naming it', () => {
    expect(() => oidcOptions({ ...base, issuer: 'http://idp.example.com' })).toThrow(/oidc\.issuer.*https/);
    expect(() => oidcOptions({ ...base, clientSecret: '' })).toThrow(/oidc\.clientSecret/);
    expect(() => oidcOptions({ ...base, defaultRole: 'owner' as never })).toThrow(/oidc\.defaultRole/);
    expect(() => oidcOptions({ ...base, allowedDomains: ['not a domain'] })).toThrow(/allowedDomains/);
  });
});

describe('the return path', () => {
  it('is a path of the server, else /', () => {
    expect(returnPath('/#/env/acme/production/flags')).toBe('/#/env/acme/production/flags');
    for (const elsewhere of [
      'https://evil.example/',
      '//evil.example/',
      '/\\evil.example',
      'x',
      null,
      '/a\nb',
    ])
      expect(returnPath(elsewhere)).toBe('/');
  });
});
