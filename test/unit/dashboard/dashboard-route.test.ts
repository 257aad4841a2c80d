/**
 * The dashboard's hash routes (dashboard/route.ts): what each address opens, and that
 * `envHref` writes addresses `parseHash` reads back, whatever characters a key holds. Among them
 * the new flag page with a key filled in (`#/env/P/E/new-flag/KEY`), which the Usage
 * tab links to for keys SDKs evaluated that are not flags: such a key is whatever the code asked
 * for, so it may hold characters no flag key may (the page says so, next to the field).
 */
import { describe, expect, it } from 'vitest';
import { envHref, parseHash } from '../../../dashboard/route.js';

const env = { name: 'env', project: 'acme', env: 'production' } as const;

describe('parseHash', () => {
  it('reads the overview, the tabs and their items', () => {
    expect(parseHash('')).toEqual({ name: 'overview' });
    expect(parseHash('#/')).toEqual({ name: 'overview' });
    expect(parseHash('#/env/acme/production')).toEqual({ ...env, tab: 'flags', flag: undefined });
    expect(parseHash('#/env/acme/production/usage')).toEqual({ ...env, tab: 'usage', flag: undefined });
    expect(parseHash('#/env/acme/production/usage/stale')).toEqual({ ...env, tab: 'usage', flag: 'stale' });
    expect(parseHash('#/env/acme/production/flags/banner')).toEqual({ ...env, tab: 'flags', flag: 'banner' });
    expect(parseHash('#/env/acme/production/keys/x')).toEqual({ name: 'not-found' });
    expect(parseHash('#/env/acme/production/usage/other')).toEqual({ name: 'not-found' });
  });

  it('reads the new flag page, with or without a key to start with', () => {
    const creating = { ...env, tab: 'flags', flag: undefined, creating: true };
    expect(parseHash('#/env/acme/production/new-flag')).toEqual(creating);
    expect(parseHash('#/env/acme/production/new-flag/')).toEqual(creating);
    expect(parseHash('#/env/acme/production/new-flag/chekout-typo')).toEqual({
      ...creating,
      newKey: 'chekout-typo',
    });
    expect(parseHash('#/env/acme/production/new-flag/a%20b%2Fc')).toEqual({ ...creating, newKey: 'a b/c' });
    // No key, a key that does not decode, or more after it: no such page.
    expect(parseHash('#/env/acme/production/new-flag//')).toEqual({ name: 'not-found' });
    expect(parseHash('#/env/acme/production/new-flag/%E0%A4%A')).toEqual({ name: 'not-found' });
    expect(parseHash('#/env/acme/production/new-flag/a/b')).toEqual({ name: 'not-found' });
  });
});

describe('envHref', () => {
  it('writes addresses parseHash reads back, any key encoded', () => {
    for (const key of ['chekout-typo', 'a b/c', 'ключ', '%41', '#x?y=1', 'new-flag']) {
      expect(envHref('acme', 'production', 'new-flag', key)).toBe(
        `#/env/acme/production/new-flag/${encodeURIComponent(key)}`,
      );
      expect(parseHash(envHref('acme', 'production', 'new-flag', key))).toEqual({
        ...env,
        tab: 'flags',
        flag: undefined,
        creating: true,
        newKey: key,
      });
      expect(parseHash(envHref('acme', 'production', 'flags', key))).toEqual({
        ...env,
        tab: 'flags',
        flag: key,
      });
    }
    expect(parseHash(envHref('acme', 'production', 'new-flag'))).toEqual({
      ...env,
      tab: 'flags',
      flag: undefined,
      creating: true,
    });
  });
});
