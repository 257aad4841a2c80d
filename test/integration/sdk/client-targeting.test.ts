/**
 * The SDK with targeting against a real reference server (`docs/protocol.md` §9, §12): the
 * capability on the snapshot and the stream, the typed getters and `getDetail`, segments and
 * prerequisites that change answers (and fire `change` for the flags that use them), and both
 * views of the SDK endpoints side by side.
 */
import { OpenFeature } from '@openfeature/server-sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type FlagwireClient } from '../../../src/index.js';
import { FlagwireProvider } from '../../../src/openfeature/index.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { nextChange, whenTrue } from '../../helpers/wait.js';

let t: TestServer;
const clients: FlagwireClient[] = [];
beforeAll(async () => {
  t = await startTestServer({ pingIntervalMs: 100 });
  const created = [
    await t.api('POST', '/segments', { key: 'staff', included: ['ann'], excluded: [], rules: [] }),
    await t.api('POST', '/flags', {
      key: 'banner',
      type: 'string',
      variants: { blue: 'blue', red: 'red' },
      offVariant: 'red',
      fallthrough: { variant: 'red' },
      targets: [{ variant: 'blue', keys: ['zed'] }],
      rules: [
        { id: 'staff', clauses: [{ op: 'inSegment', values: ['staff'] }], serve: { variant: 'blue' } },
        {
          id: 'mail',
          clauses: [{ attribute: 'email', op: 'matches', values: ['@example\\.com$'] }],
          serve: { variant: 'blue' },
        },
      ],
    }),
    await t.api('POST', '/flags', {
      key: 'limit',
      type: 'number',
      variants: { low: 10, high: 100 },
      fallthrough: { variant: 'low' },
      rules: [
        {
          clauses: [{ attribute: 'plan', op: 'in', values: ['pro'] }],
          serve: { variant: 'high' },
        },
      ],
    }),
    await t.api('POST', '/flags', {
      key: 'theme',
      type: 'json',
      variants: { dark: { bg: '#000', accents: ['#f00'] }, light: { bg: '#fff', accents: [] } },
      fallthrough: { variant: 'dark' },
    }),
    await t.api('POST', '/flags', { key: 'gate', type: 'boolean' }),
    await t.api('POST', '/flags', {
      key: 'gated',
      type: 'boolean',
      prerequisites: [{ flag: 'gate', variants: ['on'] }],
    }),
    await t.api('POST', '/flags', { key: 'plain', type: 'rollout', percentage: 100 }),
  ];
  for (const res of created) expect(res.status, await res.clone().text()).toBe(201);
  for (const key of ['banner', 'limit', 'theme', 'gated', 'plain'])
    expect((await t.api('PATCH', `/flags/${key}`, { enabled: true })).status).toBe(200);
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(() => t.close());

async function client(): Promise<FlagwireClient> {
  const c = createClient({ baseUrl: t.base, apiKey: t.readKey, logger: false });
  clients.push(c);
  await c.ready({ timeoutMs: 10_000 });
  return c;
}

describe('typed getters', () => {
  it('serve each type by targets, segments, rules and patterns, locally', async () => {
    const c = await client();
    expect(c.getString('banner', 'zed', 'none')).toBe('blue');
    expect(c.getString('banner', 'ann', 'none')).toBe('blue');
    expect(c.getString('banner', { key: 'bob', email: 'bob@example.com' }, 'none')).toBe('blue');
    expect(c.getString('banner', { key: 'bob', email: 'bob@example.org' }, 'none')).toBe('red');
    expect(c.getNumber('limit', { key: 'u', plan: 'pro' }, 0)).toBe(100);
    expect(c.getNumber('limit', { key: 'u', plan: 'free' }, 0)).toBe(10);
    expect(c.getJson('theme', 'u', {})).toEqual({ bg: '#000', accents: ['#f00'] });
    expect(c.isEnabled('plain', 'u')).toBe(true);
  });

  it('give the default for another type, a missing flag, and never throw', async () => {
    const c = await client();
    expect(c.getNumber('banner', 'zed', 7)).toBe(7);
    expect(c.getString('limit', 'u', 'x')).toBe('x');
    expect(c.isEnabled('banner', 'zed', true)).toBe(true);
    expect(c.getString('missing', 'u', 'd')).toBe('d');
    expect(c.getDetail('banner', 'zed', 1)).toMatchObject({
      value: 1,
      reason: 'ERROR',
      errorCode: 'TYPE_MISMATCH',
    });
    expect(c.getString('banner', { key: 'u', email: 5 } as never, 'd')).toBe('red');
  });

  it('hand out JSON values frozen, so a caller cannot change the flag', async () => {
    const c = await client();
    const theme = c.getJson<{ bg: string; accents: string[] }>('theme', 'u', { bg: '', accents: [] });
    expect(Object.isFrozen(theme) && Object.isFrozen(theme.accents)).toBe(true);
    expect(() => theme.accents.push('#0f0')).toThrow(TypeError);
    expect(c.getJson('theme', 'u', {})).toEqual({ bg: '#000', accents: ['#f00'] });
  });

  it('getDetail names the variant, the reason and what decided', async () => {
    const c = await client();
    expect(c.getDetail('banner', 'zed', '')).toMatchObject({
      value: 'blue',
      variant: 'blue',
      reason: 'TARGET_MATCH',
    });
    expect(c.getDetail('banner', 'ann', '')).toMatchObject({
      value: 'blue',
      variant: 'blue',
      reason: 'RULE_MATCH',
      ruleIndex: 0,
      ruleId: 'staff',
    });
    expect(c.getDetail('banner', 'bob', '')).toMatchObject({ value: 'red', reason: 'FALLTHROUGH' });
    expect(c.getDetail('gated', 'u', false)).toMatchObject({
      value: false,
      variant: 'off',
      reason: 'PREREQUISITE_FAILED',
      prerequisiteKey: 'gate',
    });
    // Today's flags keep today's detail through isEnabledDetail.
    expect(c.isEnabledDetail('plain', 'u')).toEqual({
      value: true,
      reason: 'ROLLOUT_IN',
      version: expect.any(Number),
    });
    expect(c.getDetail('plain', 'u', false)).toMatchObject({
      value: true,
      variant: 'on',
      reason: 'ROLLOUT_IN',
    });
  });
});

describe('changes that reach other flags', () => {
  it('a segment change moves the answers of the flags that name it and fires their change events', async () => {
    const c = await client();
    expect(c.getString('banner', 'carl', 'none')).toBe('red');
    const change = nextChange(c, 'banner');
    const res = await t.api('PATCH', '/segments/staff', { included: ['ann', 'carl'] });
    expect(res.status).toBe(200);
    const fired = await change;
    expect(fired.before).toBe(fired.after);
    expect(c.getString('banner', 'carl', 'none')).toBe('blue');
    expect(c.status().revision).toBeGreaterThan(0);
  });

  it('a prerequisite change fires change for its dependents', async () => {
    const c = await client();
    const change = nextChange(c, 'gated');
    expect((await t.api('PATCH', '/flags/gate', { enabled: true })).status).toBe(200);
    await change;
    expect(c.getDetail('gated', 'u', false)).toMatchObject({ value: true, reason: 'FALLTHROUGH' });
    const back = nextChange(c, 'gated');
    expect((await t.api('PATCH', '/flags/gate', { enabled: false })).status).toBe(200);
    await back;
    expect(c.isEnabled('gated', 'u')).toBe(false);
  });

  it('a flag that gains rules stays held (the stream carries the capability too)', async () => {
    const c = await client();
    expect((await t.api('POST', '/flags', { key: 'grows', type: 'boolean' })).status).toBe(201);
    await whenTrue(c, () => 'grows' in c.allFlags());
    const change = nextChange(c, 'grows');
    const patched = await t.api('PATCH', '/flags/grows', {
      enabled: true,
      rules: [{ clauses: [{ attribute: 'country', op: 'in', values: ['NZ'] }], serve: { variant: 'off' } }],
    });
    expect(patched.status).toBe(200);
    expect((await change).after?.rules).toHaveLength(1);
    expect(c.isEnabled('grows', { key: 'u', country: 'NZ' }, true)).toBe(false);
    expect(c.isEnabled('grows', { key: 'u', country: 'AU' })).toBe(true);
  });
});

describe('the SDK endpoints with and without the targeting capability', () => {
  const get = (query = '', headers: Record<string, string> = {}) =>
    fetch(`${t.base}/sdk/flags${query}`, { headers: { authorization: `Bearer ${t.readKey}`, ...headers } });

  it('sends targeting flags and segments only with the capability (header or query), plain flags alike', async () => {
    const plain = await get();
    const withHeader = await get('', { 'x-flagwire-capabilities': 'other, Targeting' });
    const withQuery = await get('?capabilities=targeting');
    const notQuite = await get('', { 'x-flagwire-capabilities': 'targetingx' });
    const p = (await plain.json()) as { flags: Record<string, unknown>; segments?: unknown };
    const h = (await withHeader.json()) as { flags: Record<string, { rules?: unknown }>; segments: object };
    expect(await withQuery.json()).toEqual(h);
    expect(((await notQuite.json()) as { segments?: unknown }).segments).toBeUndefined();
    expect(p.segments).toBeUndefined();
    expect(Object.keys(p.flags)).not.toContain('banner');
    expect(h.flags.banner?.rules).toHaveLength(2);
    expect(Object.keys(h.segments)).toContain('staff');
    expect(h.flags.plain).toEqual(p.flags.plain);
    for (const res of [plain, withHeader])
      expect(res.headers.get('vary')).toBe('Authorization, Accept-Encoding, X-Flagwire-Capabilities');
    expect(withHeader.headers.get('etag')).toBe(`${plain.headers.get('etag')!.slice(0, -1)}:targeting"`);
    const again = await get('?capabilities=targeting', { 'if-none-match': withHeader.headers.get('etag')! });
    expect(again.status).toBe(304);
    const crossed = await get('', { 'if-none-match': withHeader.headers.get('etag')! });
    expect(crossed.status).toBe(200);
  });
});

describe('OpenFeature server provider', () => {
  it('resolves string, number and object flags with variants and reasons', async () => {
    const c = await client();
    const provider = new FlagwireProvider(c);
    await OpenFeature.setProviderAndWait('targeting-test', provider);
    const of = OpenFeature.getClient('targeting-test');
    expect(await of.getStringDetails('banner', 'none', { targetingKey: 'ann' })).toMatchObject({
      value: 'blue',
      variant: 'blue',
      reason: 'TARGETING_MATCH',
      flagMetadata: { ruleIndex: 0, ruleId: 'staff' },
    });
    expect(await of.getStringDetails('banner', 'none', { targetingKey: 'bob' })).toMatchObject({
      value: 'red',
      reason: 'DEFAULT',
    });
    expect(await of.getNumberValue('limit', 0, { targetingKey: 'u', plan: 'pro' })).toBe(100);
    expect(await of.getObjectValue('theme', {}, { targetingKey: 'u' })).toEqual({
      bg: '#000',
      accents: ['#f00'],
    });
    expect(await of.getBooleanDetails('gated', true, { targetingKey: 'u' })).toMatchObject({
      reason: 'DISABLED',
      flagMetadata: { prerequisiteKey: 'gate' },
    });
    expect(await of.getNumberDetails('banner', 3, { targetingKey: 'u' })).toMatchObject({
      value: 3,
      errorCode: 'TYPE_MISMATCH',
    });
    await OpenFeature.clearProviders();
  });
});
