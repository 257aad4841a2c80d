/**
 * Targeting through the management API (`docs/protocol.md` §12): the new flag fields, segments,
 * validation naming the JSON path, history, OFREP evaluation by the one evaluator, and what an
 * SDK without the targeting capability sees (no targeting flag, no revision gap).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../helpers/assert.js';
import { startReceiver } from '../../helpers/receiver.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { openStream } from '../../helpers/sse.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ config: undefined });
});
afterAll(() => t.close());

const json = async <T = Record<string, unknown>>(res: Response | Promise<Response>) =>
  (await (await res).json()) as T;

const colors = {
  key: 'button-color',
  type: 'string',
  variants: { red: '#f00', green: '#0f0', blue: '#00f' },
  offVariant: 'red',
  fallthrough: { variant: 'green' },
  targets: [{ variant: 'blue', keys: ['vip-1'] }],
  rules: [
    {
      description: 'staff',
      clauses: [{ attribute: 'email', op: 'endsWith', values: ['@Corp.Example'], caseInsensitive: true }],
      serve: { variant: 'blue' },
    },
  ],
};

describe('flags with targeting', () => {
  it('creates a string flag with variants, targets and rules; a rule without an id is given one', async () => {
    const res = await t.api('POST', '/flags', colors);
    expect(res.status).toBe(201);
    const flag = await json<{ rules: Array<{ id: string }> }>(res);
    expect(flag).toEqual({
      key: 'button-color',
      type: 'string',
      enabled: false,
      description: null,
      variants: colors.variants,
      offVariant: 'red',
      fallthrough: { variant: 'green' },
      targets: colors.targets,
      rules: [{ ...colors.rules[0], id: expect.stringMatching(/^[A-Za-z0-9_.-]{1,64}$/) }],
    });
    // The id is kept by later edits that name it.
    const id = flag.rules[0]!.id;
    const again = await json(t.api('PATCH', '/flags/button-color', { rules: [{ ...colors.rules[0], id }] }));
    expect((again.rules as Array<{ id: string }>)[0]!.id).toBe(id);
  });

  it('a plain boolean flag keeps exactly today representation; its default fallthrough is not shown', async () => {
    await t.api('POST', '/flags', { key: 'plain', type: 'boolean', fallthrough: { variant: 'on' } });
    expect(await json(t.api('GET', '/flags/plain'))).toEqual({
      key: 'plain',
      type: 'boolean',
      enabled: false,
      description: null,
    });
  });

  it('PATCH replaces a list whole; [] and null clear it', async () => {
    await t.api('POST', '/flags', {
      key: 'lists',
      type: 'boolean',
      targets: [{ variant: 'on', keys: ['a'] }],
    });
    const replaced = await json(
      t.api('PATCH', '/flags/lists', { targets: [{ variant: 'off', keys: ['b'] }] }),
    );
    expect(replaced.targets).toEqual([{ variant: 'off', keys: ['b'] }]);
    expect(await json(t.api('PATCH', '/flags/lists', { targets: [] }))).not.toHaveProperty('targets');
    await t.api('PATCH', '/flags/lists', { salt: 'abc', rules: [{ clauses: [], serve: { variant: 'on' } }] });
    const cleared = await json(t.api('PATCH', '/flags/lists', { salt: null, rules: null }));
    expect(cleared).not.toHaveProperty('rules');
    expect(cleared).not.toHaveProperty('salt');
  });

  it.each([
    [{ key: 'v1', type: 'boolean', variants: { a: true } }, '"variants" is not allowed on boolean flags'],
    [{ key: 'v2', type: 'number', variants: { a: 'x' } }, 'variants.a: must be a number'],
    [{ key: 'v3', type: 'string', variants: {} }, 'variants: must have 1 to 100 variants'],
    [{ key: 'v4', type: 'string', variants: { 'bad name': 'x' } }, 'variants.bad name: must match'],
    [
      { key: 'v5', type: 'rollout', fallthrough: { variant: 'on' } },
      'fallthrough: is not allowed on rollout flags',
    ],
    [
      {
        key: 'v6',
        type: 'boolean',
        rules: [{ clauses: [{ attribute: 'a', op: 'startWith', values: ['x'] }], serve: { variant: 'on' } }],
      },
      'rules[0].clauses[0].op: unknown operator "startWith"',
    ],
    [
      {
        key: 'v7',
        type: 'boolean',
        rules: [
          {
            clauses: [],
            serve: {
              split: [
                { variant: 'on', weight: 50000 },
                { variant: 'off', weight: 40000 },
              ],
            },
          },
        ],
      },
      'rules[0].serve.split: weights must sum to 100000',
    ],
    [
      { key: 'v8', type: 'boolean', fallthrough: { split: [{ variant: null, weight: 100000 }] } },
      'fallthrough.split[0].variant: null (no variant) is only allowed in rules',
    ],
    [
      {
        key: 'v9',
        type: 'boolean',
        rules: [
          { clauses: [{ attribute: 'v', op: 'semVerEqual', values: ['v1.2.3'] }], serve: { variant: 'on' } },
        ],
      },
      'rules[0].clauses[0].values[0]: must be a SemVer version',
    ],
    [
      {
        key: 'v10',
        type: 'boolean',
        rules: [
          { clauses: [{ attribute: 'ip', op: 'inCidr', values: ['10.0.0.0/33'] }], serve: { variant: 'on' } },
        ],
      },
      'rules[0].clauses[0].values[0]: must be an IP address or CIDR range',
    ],
    [
      {
        key: 'v11',
        type: 'boolean',
        rules: [{ clauses: [{ op: 'inSegment', values: ['nope'] }], serve: { variant: 'on' } }],
      },
      'rules[0].clauses[0].values[0]: no segment "nope"',
    ],
    [
      { key: 'v12', type: 'boolean', prerequisites: [{ flag: 'missing', variants: ['on'] }] },
      'prerequisites[0].flag: no flag "missing"',
    ],
    [
      {
        key: 'v15',
        type: 'boolean',
        rules: [
          { clauses: [{ attribute: 'e', op: 'matches', values: ['a(?=b)'] }], serve: { variant: 'on' } },
        ],
      },
      'rules[0].clauses[0].values[0]: at 1: lookahead (?= is not supported (RE2 syntax)',
    ],
    [
      { key: 'v13', type: 'string', variants: { a: 'x' }, offVariant: 'b' },
      "offVariant: must be one of the flag's variants",
    ],
    [
      {
        key: 'v14',
        type: 'boolean',
        rules: [
          { id: 'x', clauses: [], serve: { variant: 'on' } },
          { id: 'x', clauses: [], serve: { variant: 'off' } },
        ],
      },
      'rules[1].id: "x" is used by another rule',
    ],
    // A clause without values ("if age is more than , serve control"): every operator but exists.
    [
      {
        key: 'v16',
        type: 'boolean',
        rules: [{ clauses: [{ attribute: 'age', op: 'greaterThan', values: [] }], serve: { variant: 'on' } }],
      },
      'rules[0].clauses[0].values: greaterThan takes at least one value',
    ],
    [
      {
        key: 'v17',
        type: 'boolean',
        rules: [
          { clauses: [{ attribute: 'a', op: 'exists' }], serve: { variant: 'on' } },
          {
            clauses: [
              { attribute: 'c', op: 'in', values: ['NZ'] },
              { attribute: 'c', op: 'in', values: [], negate: true },
            ],
            serve: { variant: 'on' },
          },
        ],
      },
      'rules[1].clauses[1].values: in takes at least one value',
    ],
    [
      {
        key: 'v18',
        type: 'boolean',
        rules: [{ clauses: [{ op: 'inSegment', values: [] }], serve: { variant: 'on' } }],
      },
      'rules[0].clauses[0].values: inSegment takes at least one value',
    ],
    [
      {
        key: 'v19',
        type: 'boolean',
        rules: [{ clauses: [{ attribute: 'e', op: 'matches', values: [] }], serve: { variant: 'on' } }],
      },
      'rules[0].clauses[0].values: matches takes at least one value',
    ],
  ])('refuses %j naming the path', async (body, message) => {
    const text = await expectError(await t.api('POST', '/flags', body), 400, 'VALIDATION_ERROR');
    expect(text).toContain(message);
  });

  it('refuses a prerequisite cycle and a chain deeper than 5; deleting a prerequisite in use is 409', async () => {
    await t.api('POST', '/flags', { key: 'p0', type: 'boolean' });
    for (let i = 1; i <= 5; i++)
      expect(
        (
          await t.api('POST', '/flags', {
            key: `p${i}`,
            type: 'boolean',
            prerequisites: [{ flag: `p${i - 1}`, variants: ['on'] }],
          })
        ).status,
      ).toBe(201);
    const deep = await expectError(
      await t.api('POST', '/flags', {
        key: 'p6',
        type: 'boolean',
        prerequisites: [{ flag: 'p5', variants: ['on'] }],
      }),
      400,
      'VALIDATION_ERROR',
    );
    expect(deep).toContain('prerequisites: nest at most 5 deep, got 6');
    const cycle = await expectError(
      await t.api('PATCH', '/flags/p0', { prerequisites: [{ flag: 'p2', variants: ['on'] }] }),
      400,
      'VALIDATION_ERROR',
    );
    expect(cycle).toContain('a cycle: p0 -> p2 -> p1 -> p0');
    const inUse = await expectError(await t.api('DELETE', '/flags/p3'), 409, 'CONFLICT');
    expect(inUse).toContain('"p4"');
  });

  it('records field-level history of targeting changes', async () => {
    await t.api('POST', '/flags', { key: 'hist', type: 'boolean' });
    await t.api('PATCH', '/flags/hist', { rules: [{ id: 'r', clauses: [], serve: { variant: 'off' } }] });
    const res = await fetch(`${t.server.url}/admin/api/environments/default/development/history?flag=hist`, {
      headers: { authorization: `Bearer ${t.server.adminToken}` },
    });
    const entries = (await res.json()) as Array<{
      action: string;
      changes: Array<{ field: string; from: unknown; to: unknown }>;
    }>;
    expect(entries[0]).toMatchObject({
      action: 'updated',
      changes: [{ field: 'rules', from: null, to: [{ id: 'r', clauses: [], serve: { variant: 'off' } }] }],
    });
  });
});

describe('segments', () => {
  it('creates, reads, updates and deletes a segment; a read-only key reads but does not write', async () => {
    const body = {
      key: 'beta',
      description: 'beta testers',
      included: ['u1', 'u1', 'u2'],
      excluded: ['u3'],
      rules: [{ clauses: [{ attribute: 'plan', op: 'in', values: ['pro'] }] }],
    };
    const created = await t.api('POST', '/segments', body);
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({
      key: 'beta',
      included: ['u1', 'u2'],
      excluded: ['u3'],
      rules: body.rules,
    });
    expect(await json<unknown[]>(t.api('GET', '/segments', undefined, t.readKey))).toHaveLength(1);
    await expectError(await t.api('POST', '/segments', { key: 'x' }, t.readKey), 403, 'FORBIDDEN');
    await expectError(await t.api('POST', '/segments', body), 409, 'CONFLICT');
    const patched = await json(t.api('PATCH', '/segments/beta', { excluded: [] }));
    expect(patched.excluded).toEqual([]);
    await expectError(await t.api('GET', '/segments/none'), 404, 'NOT_FOUND');
  });

  it('refuses segments in segments and deleting a segment a flag uses, naming the flags', async () => {
    await t.api('POST', '/segments', { key: 'used', included: ['a'] });
    const nested = await expectError(
      await t.api('POST', '/segments', {
        key: 'nested',
        rules: [{ clauses: [{ op: 'inSegment', values: ['used'] }] }],
      }),
      400,
      'VALIDATION_ERROR',
    );
    expect(nested).toContain('rules[0].clauses[0].op: segments do not reference segments');
    await t.api('POST', '/flags', {
      key: 'uses-segment',
      type: 'boolean',
      rules: [{ clauses: [{ op: 'inSegment', values: ['used'] }], serve: { variant: 'on' } }],
    });
    const refused = await expectError(await t.api('DELETE', '/segments/used'), 409, 'CONFLICT');
    expect(refused).toContain('"uses-segment"');
    await t.api('PATCH', '/flags/uses-segment', { rules: [] });
    expect((await t.api('DELETE', '/segments/used')).status).toBe(204);
  });

  it('refuses a segment rule clause without values, created or patched', async () => {
    const empty = { rules: [{ clauses: [{ attribute: 'plan', op: 'endsWith', values: [] }] }] };
    const created = await expectError(
      await t.api('POST', '/segments', { key: 'no-values', ...empty }),
      400,
      'VALIDATION_ERROR',
    );
    expect(created).toContain('rules[0].clauses[0].values: endsWith takes at least one value');
    await t.api('POST', '/segments', { key: 'some-values', included: ['a'] });
    const patched = await expectError(
      await t.api('PATCH', '/segments/some-values', empty),
      400,
      'VALIDATION_ERROR',
    );
    expect(patched).toContain('rules[0].clauses[0].values: endsWith takes at least one value');
  });

  it('takes a segment body of 50,000 keys (over 1 MiB) and refuses 50,001', async () => {
    const keys = Array.from({ length: 50_000 }, (_, i) => `user-key-${String(i).padStart(12, '0')}`);
    expect(JSON.stringify(keys).length).toBeGreaterThan(1024 * 1024);
    expect((await t.api('POST', '/segments', { key: 'big', included: keys })).status).toBe(201);
    const over = await expectError(
      await t.api('PATCH', '/segments/big', { excluded: ['one-more'] }),
      400,
      'VALIDATION_ERROR',
    );
    expect(over).toContain('at most 50000 keys');
  });
});

describe('webhooks', () => {
  it('sends segment.updated with the sizes, never the keys, and flag.updated with the old rules in previous', async () => {
    const receiver = await startReceiver();
    try {
      await t.api('POST', '/webhooks', { url: receiver.url, events: ['segment.updated', 'flag.updated'] });
      await t.api('POST', '/segments', {
        key: 'hooked',
        included: ['secret-user'],
        rules: [{ clauses: [] }],
      });
      const segment = await receiver.next();
      expect(segment.json.type).toBe('segment.updated');
      expect(segment.json.data).toEqual({
        action: 'created',
        actor: expect.objectContaining({ type: 'apiKey' }),
        segment: { key: 'hooked', description: null, includedCount: 1, excludedCount: 0, ruleCount: 1 },
      });
      expect(segment.body).not.toContain('secret-user');
      await t.api('POST', '/flags', { key: 'hooked-flag', type: 'boolean' });
      expect((await receiver.next()).json.data).toMatchObject({ action: 'created' });
      const rules = [
        { id: 'r', clauses: [{ op: 'inSegment', values: ['hooked'] }], serve: { variant: 'on' } },
      ];
      await t.api('PATCH', '/flags/hooked-flag', { rules });
      const updated = await receiver.next();
      expect(updated.json.type).toBe('flag.updated');
      expect(updated.json.data).toMatchObject({
        action: 'updated',
        flag: { rules },
        previous: { rules: null },
      });
    } finally {
      await receiver.close();
    }
  });
});

describe('OFREP evaluates targeting with the one evaluator', () => {
  const ofrep = (key: string, context: Record<string, unknown>) =>
    fetch(`${t.server.url}/ofrep/v1/evaluate/flags/${key}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.fullKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ context }),
    }).then((r) => r.json() as Promise<Record<string, unknown>>);

  it('serves variants with OpenFeature reasons', async () => {
    await t.api('POST', '/flags', { ...colors, key: 'of-colors' });
    expect(await ofrep('of-colors', { targetingKey: 'x' })).toMatchObject({
      value: '#f00',
      variant: 'red',
      reason: 'DISABLED',
    });
    await t.api('PATCH', '/flags/of-colors', { enabled: true });
    expect(await ofrep('of-colors', { targetingKey: 'vip-1' })).toMatchObject({
      value: '#00f',
      variant: 'blue',
      reason: 'TARGETING_MATCH',
    });
    const staff = await ofrep('of-colors', { targetingKey: 'x', email: 'ann@CORP.example' });
    expect(staff).toMatchObject({ value: '#00f', reason: 'TARGETING_MATCH', metadata: { ruleIndex: 0 } });
    expect(await ofrep('of-colors', { targetingKey: 'x' })).toMatchObject({
      value: '#0f0',
      variant: 'green',
      // OFREP has no DEFAULT (§11.2): the fallthrough after targeting, marked.
      reason: 'TARGETING_MATCH',
      metadata: { fallthrough: true },
    });
  });
});

describe('client keys', () => {
  it('a client key evaluates through OFREP and nothing else; the dashboard and the config make them', async () => {
    const clientKey = 'fw_live_AcmeClient0000000000000000000000';
    const server = await startTestServer({
      config: {
        projects: [
          {
            key: 'acme',
            environments: [
              {
                key: 'production',
                apiKeys: [
                  { key: 'fw_live_AcmeFull000000000000000000000000', access: 'full' },
                  { key: clientKey, access: 'client' },
                ],
                flags: [{ key: 'f', type: 'string', variants: { a: 'x' }, enabled: true }],
              },
            ],
          },
        ],
      },
    });
    try {
      const refused = await expectError(
        await server.api('GET', '/flags', undefined, clientKey),
        403,
        'FORBIDDEN',
      );
      expect(refused).toContain('client key');
      await expectError(await server.api('GET', '/sdk/flags', undefined, clientKey), 403, 'FORBIDDEN');
      await expectError(await server.api('GET', '/segments', undefined, clientKey), 403, 'FORBIDDEN');
      const evaluated = await fetch(`${server.server.url}/ofrep/v1/evaluate/flags/f`, {
        method: 'POST',
        headers: { authorization: `Bearer ${clientKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ context: { targetingKey: 'u' } }),
      });
      expect(await evaluated.json()).toMatchObject({ key: 'f', value: 'x', variant: 'a', reason: 'STATIC' });
      const made = await fetch(`${server.server.url}/admin/api/environments/acme/production/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.server.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ access: 'client', name: 'web page' }),
      });
      expect(made.status).toBe(201);
      const { key } = (await made.json()) as { key: string };
      await expectError(await server.api('GET', '/sdk/flags', undefined, key), 403, 'FORBIDDEN');
    } finally {
      await server.close();
    }
  });
});

describe('an SDK without the targeting capability', () => {
  it('gets no targeting flag, sees a flag that gains targeting as deleted and a segment change as no gap', async () => {
    const server = await startTestServer({ config: undefined });
    try {
      const api = server.api;
      await api('POST', '/flags', { key: 'old-plain', type: 'boolean' });
      await api('PATCH', '/flags/old-plain', { enabled: true });
      await api('POST', '/flags', { key: 'old-string', type: 'string', variants: { a: 'x' } });
      const snapshot = await json<{ flags: Record<string, unknown>; revision: number }>(
        fetch(`${server.server.url}/sdk/flags`, { headers: { authorization: `Bearer ${server.readKey}` } }),
      );
      expect(Object.keys(snapshot.flags)).toEqual(['old-plain']);
      const stream = await openStream(`${server.server.url}/sdk/events`, {
        authorization: `Bearer ${server.readKey}`,
      });
      expect((await stream.next({ skipPings: true })).event).toBe('flags:sync');
      await api('PATCH', '/flags/old-plain', { rules: [{ clauses: [], serve: { variant: 'off' } }] });
      const gone = await stream.next({ skipPings: true });
      expect(gone.id).toBe(`${gone.id!.split(':')[0]}:${snapshot.revision + 1}`);
      expect(JSON.parse(gone.data)).toMatchObject({ key: 'old-plain', deleted: true });
      await api('POST', '/segments', { key: 's', included: ['a'] });
      const marker = await stream.next({ skipPings: true });
      expect(marker.id!.endsWith(`:${snapshot.revision + 2}`)).toBe(true);
      expect(JSON.parse(marker.data)).toEqual({
        key: '$segments',
        type: 'boolean',
        enabled: false,
        version: snapshot.revision + 2,
        deleted: true,
      });
      stream.close();

      // Today's built SDK against this server: test/integration/sdk/sdk-compatibility.test.ts.
    } finally {
      await server.close();
    }
  });
});
