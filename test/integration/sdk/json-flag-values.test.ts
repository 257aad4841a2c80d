/**
 * What a `json` flag may serve (`docs/protocol.md` §12.1): JSON objects, as OpenFeature's object
 * flags and OFREP's `objectFlag` carry them. Anything else is refused when saved, naming the
 * variant (the management API and the config file); a flag stored before that rule keeps loading
 * and the SDK keeps serving its values, while OFREP answers them with an error that says why.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createClient, type FlagwireClient } from '../../../src/index.js';
import { rewriteStore } from '../../helpers/legacy-store.js';
import { startTestServer, TEST_CONFIG, type TestServer } from '../../helpers/server.js';

const servers: TestServer[] = [];
const clients: FlagwireClient[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all(servers.map((s) => s.close()));
});

const NOT_OBJECTS: Array<[string, unknown]> = [
  ['null', null],
  ['an array', [1, 2]],
  ['a string', 'dark'],
  ['a number', 3],
  ['a boolean', true],
];

describe('saving a json flag', () => {
  it.each(NOT_OBJECTS)('refuses a variant that is %s: 400 naming the variant', async (kind, value) => {
    const t = await startTestServer({ config: undefined, memory: true });
    servers.push(t);
    const res = await t.api('POST', '/flags', {
      key: 'theme',
      type: 'json',
      variants: { dark: { bg: '#000' }, odd: value },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'VALIDATION_ERROR',
      message: `variants.odd: must be a JSON object (a json flag serves objects, as OpenFeature and OFREP carry them), got ${kind}`,
    });
    expect((await t.api('GET', '/flags/theme')).status).toBe(404);
    const objects = await t.api('POST', '/flags', {
      key: 'theme',
      type: 'json',
      variants: { dark: { bg: '#000', accents: ['#f00'] }, empty: {} },
    });
    expect(objects.status).toBe(201);
  });

  it('refuses one in the config file, naming its place', async () => {
    const config = structuredClone(TEST_CONFIG);
    config.projects[0]!.environments[0]!.flags = [
      { key: 'levels', type: 'json', variants: { low: 'low', high: { level: 2 } } } as never,
    ];
    await expect(startTestServer({ config, memory: true })).rejects.toThrow(
      'projects[0].environments[0].flags[0]: variants.low: must be a JSON object',
    );
  });
});

describe('a json flag stored before objects were required', () => {
  /** Its variants as stored, which no save can make any more. */
  const LEGACY = { list: [1, 2], none: null, obj: { a: 1 } };

  /**
   * A server on a data directory holding the flag: created with stand-in objects, whose text
   * is then replaced, in the journal and the snapshot alike, by the values above.
   */
  async function serverWithLegacyFlag(): Promise<TestServer> {
    const dataDir = await mkdtemp(join(tmpdir(), 'flagwire-json-'));
    const first = await startTestServer({ config: undefined, dataDir });
    const made = await first.api('POST', '/flags', {
      key: 'legacy',
      type: 'json',
      variants: { list: { STAND_IN_LIST: 1 }, none: { STAND_IN_NULL: 1 }, obj: { a: 1 } },
      offVariant: 'obj',
      fallthrough: { variant: 'list' },
      targets: [{ variant: 'obj', keys: ['o'] }],
      rules: [{ clauses: [{ attribute: 'plan', op: 'in', values: ['free'] }], serve: { variant: 'none' } }],
    });
    expect(made.status).toBe(201);
    expect((await first.api('PATCH', '/flags/legacy', { enabled: true })).status).toBe(200);
    await first.close();
    expect(
      rewriteStore(dataDir, [
        ['{"STAND_IN_LIST":1}', '[1,2]'],
        ['{"STAND_IN_NULL":1}', 'null'],
      ]),
    ).toBeGreaterThan(0);
    const t = await startTestServer({ config: undefined, dataDir });
    servers.push(t);
    return t;
  }

  const ofrep = (t: TestServer, path: string, context: Record<string, unknown>) =>
    fetch(`${t.server.url}/ofrep/v1/evaluate/flags${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.fullKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ context }),
    });

  it('loads; the management API shows it; the SDK serves its values', async () => {
    const t = await serverWithLegacyFlag();
    expect(await (await t.api('GET', '/flags/legacy')).json()).toMatchObject({ variants: LEGACY });
    const sdk = createClient({ baseUrl: t.base, apiKey: t.fullKey, stream: false, logger: false });
    clients.push(sdk);
    await sdk.ready({ timeoutMs: 10_000 });
    expect(sdk.getJson('legacy', 'u', {})).toEqual([1, 2]);
    expect(sdk.getDetail('legacy', { key: 'u', plan: 'free' }, {})).toMatchObject({
      value: null,
      variant: 'none',
      reason: 'RULE_MATCH',
    });
    expect(sdk.getJson('legacy', 'o', {})).toEqual({ a: 1 });
  });

  it('OFREP answers a value that is not an object as an error saying why, single and in bulk', async () => {
    const t = await serverWithLegacyFlag();
    const list = await ofrep(t, '/legacy', { targetingKey: 'u' });
    expect(list.status).toBe(400);
    expect(await list.json()).toEqual({
      key: 'legacy',
      errorCode: 'GENERAL',
      errorDetails:
        'json flag legacy serves variant "list", which is an array: OFREP carries objects only; give the flag object variants',
    });
    const none = await ofrep(t, '/legacy', { targetingKey: 'u', plan: 'free' });
    expect(none.status).toBe(400);
    expect(await none.json()).toMatchObject({
      errorCode: 'GENERAL',
      errorDetails: expect.stringContaining('is null'),
    });
    const obj = await ofrep(t, '/legacy', { targetingKey: 'o' });
    expect(obj.status).toBe(200);
    expect(await obj.json()).toMatchObject({ key: 'legacy', value: { a: 1 }, variant: 'obj' });
    const bulk = (await (await ofrep(t, '', { targetingKey: 'u' })).json()) as { flags: unknown[] };
    expect(bulk.flags).toContainEqual({
      key: 'legacy',
      errorCode: 'GENERAL',
      errorDetails: expect.stringContaining('serves variant "list"'),
    });
  });
});
