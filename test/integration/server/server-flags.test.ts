/** The flags API (`docs/protocol.md` §3.1) against a real server. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../helpers/assert.js';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

describe('POST /flags', () => {
  it('creates a boolean flag, disabled, with exactly the management fields', async () => {
    const res = await t.api('POST', '/flags', { key: 'create-bool', type: 'boolean' });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({
      key: 'create-bool',
      type: 'boolean',
      enabled: false,
      description: null,
    });
  });

  it('creates a rollout flag with percentage 0 unless given', async () => {
    const a = await t.api('POST', '/flags', { key: 'create-roll', type: 'rollout', description: 'd' });
    expect(await a.json()).toEqual({
      key: 'create-roll',
      type: 'rollout',
      enabled: false,
      percentage: 0,
      description: 'd',
    });
    const b = await t.api('POST', '/flags', { key: 'create-roll-30', type: 'rollout', percentage: 30 });
    expect(((await b.json()) as { percentage: number }).percentage).toBe(30);
  });

  it('accepts enabled and ignores it: a new flag is always disabled', async () => {
    const res = await t.api('POST', '/flags', { key: 'create-enabled', type: 'boolean', enabled: true });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { enabled: boolean }).enabled).toBe(false);
  });

  it('answers 409 CONFLICT for a key that is taken', async () => {
    await t.api('POST', '/flags', { key: 'dup', type: 'boolean' });
    const message = await expectError(
      await t.api('POST', '/flags', { key: 'dup', type: 'rollout' }),
      409,
      'CONFLICT',
    );
    expect(message).toContain('dup');
  });

  it('gives exactly one 201 to racing creates of one key', async () => {
    const answers = await Promise.all(
      Array.from({ length: 25 }, () => t.api('POST', '/flags', { key: 'race', type: 'boolean' })),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(24);
    await Promise.all(answers.map((r) => r.arrayBuffer()));
  });

  it.each([
    [{ type: 'boolean' }, 'key'],
    [{ key: '', type: 'boolean' }, 'key'],
    [{ key: 'a'.repeat(129), type: 'boolean' }, 'key'],
    [{ key: '-leading', type: 'boolean' }, 'key'],
    [{ key: 'has space', type: 'boolean' }, 'key'],
    [{ key: 'slash/key', type: 'boolean' }, 'key'],
    [{ key: 'ünïcode', type: 'boolean' }, 'key'],
    [{ key: 42, type: 'boolean' }, 'key'],
    [{ key: 'k' }, 'type'],
    [{ key: 'k', type: 'text' }, 'type'],
    [{ key: 'k', type: 'string' }, 'variants'],
    [{ key: 'k', type: 'boolean', percentage: 10 }, 'percentage'],
    [{ key: 'k', type: 'rollout', percentage: -1 }, 'percentage'],
    [{ key: 'k', type: 'rollout', percentage: 101 }, 'percentage'],
    [{ key: 'k', type: 'rollout', percentage: 50.5 }, 'percentage'],
    [{ key: 'k', type: 'rollout', percentage: '50' }, 'percentage'],
    [{ key: 'k', type: 'boolean', description: 'x'.repeat(1001) }, 'description'],
    [{ key: 'k', type: 'boolean', description: 5 }, 'description'],
    [{ key: 'k', type: 'boolean', enabled: 'yes' }, 'enabled'],
    [{ key: 'k', type: 'boolean', color: 'red' }, 'color'],
    [{ key: 'k', type: 'boolean', __proto__x: 1 }, '__proto__x'],
  ])('rejects %j with 400 VALIDATION_ERROR naming "%s"', async (body, field) => {
    const message = await expectError(await t.api('POST', '/flags', body), 400, 'VALIDATION_ERROR');
    expect(message).toContain(`"${field}"`);
  });

  it('accepts the length and value limits themselves', async () => {
    const key = `A${'b'.repeat(127)}`;
    expect(
      (await t.api('POST', '/flags', { key, type: 'boolean', description: 'x'.repeat(1000) })).status,
    ).toBe(201);
    expect((await t.api('POST', '/flags', { key: 'p100', type: 'rollout', percentage: 100 })).status).toBe(
      201,
    );
    expect((await t.api('POST', '/flags', { key: 'a.b_c-9', type: 'rollout', percentage: 0 })).status).toBe(
      201,
    );
  });

  it.each([
    ['[]', 'an array'],
    ['null', 'null'],
    ['"flag"', 'a string'],
  ])('rejects a body that is not an object (%s)', async (raw, what) => {
    const message = await expectError(await t.api('POST', '/flags', raw), 400, 'VALIDATION_ERROR');
    expect(message).toContain(what);
  });

  it('answers 400 INVALID_JSON for malformed JSON and invalid UTF-8', async () => {
    await expectError(await t.api('POST', '/flags', '{"key": "x",'), 400, 'INVALID_JSON');
    const bad = await fetch(`${t.base}/flags`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.fullKey}`, 'content-type': 'application/json' },
      body: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
    });
    await expectError(bad, 400, 'INVALID_JSON');
  });

  it('answers 415 for a body that is not application/json, and 400 for no body', async () => {
    const text = await fetch(`${t.base}/flags`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.fullKey}`, 'content-type': 'text/plain' },
      body: '{"key":"k","type":"boolean"}',
    });
    await expectError(text, 415, 'UNSUPPORTED_MEDIA_TYPE');
    const none = await fetch(`${t.base}/flags`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.fullKey}` },
    });
    await expectError(none, 400, 'VALIDATION_ERROR');
  });

  it('accepts a charset parameter and a +json media type', async () => {
    const res = await fetch(`${t.base}/flags`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.fullKey}`, 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ key: 'charset', type: 'boolean' }),
    });
    expect(res.status).toBe(201);
  });

  it('answers 413 PAYLOAD_TOO_LARGE for a body over 1 MiB', async () => {
    const body = JSON.stringify({ key: 'big', type: 'boolean', description: 'x'.repeat(1024 * 1024) });
    await expectError(await t.api('POST', '/flags', body), 413, 'PAYLOAD_TOO_LARGE');
    expect((await t.api('GET', '/flags/big')).status).toBe(404);
  });
});

describe('GET /flags and /flags/:key', () => {
  it('lists the environment flags sorted by key', async () => {
    const res = await t.api('GET', '/flags');
    expect(res.status).toBe(200);
    const flags = (await res.json()) as Array<{ key: string }>;
    const keys = flags.map((f) => f.key);
    expect(keys).toEqual([...keys].sort((a, b) => (a < b ? -1 : 1)));
    expect(keys).toContain('seeded');
  });

  it('reads one flag; a seeded rollout flag keeps its config state', async () => {
    const res = await t.api('GET', '/flags/seeded');
    expect(await res.json()).toEqual({
      key: 'seeded',
      type: 'rollout',
      enabled: true,
      percentage: 25,
      description: null,
    });
  });

  it('answers 404 NOT_FOUND naming an unknown key', async () => {
    const message = await expectError(await t.api('GET', '/flags/nope-123'), 404, 'NOT_FOUND');
    expect(message).toContain('nope-123');
  });

  it('decodes percent-encoded keys in the path', async () => {
    await t.api('POST', '/flags', { key: 'enc.oded', type: 'boolean' });
    expect((await t.api('GET', '/flags/enc%2Eoded')).status).toBe(200);
  });
});

describe('PATCH /flags/:key', () => {
  it('toggles enabled and sets percentage and description', async () => {
    await t.api('POST', '/flags', { key: 'patch-me', type: 'rollout', description: 'before' });
    let res = await t.api('PATCH', '/flags/patch-me', { enabled: true });
    expect(await res.json()).toMatchObject({ enabled: true, percentage: 0, description: 'before' });
    res = await t.api('PATCH', '/flags/patch-me', { percentage: 60, description: 'after' });
    expect(await res.json()).toEqual({
      key: 'patch-me',
      type: 'rollout',
      enabled: true,
      percentage: 60,
      description: 'after',
    });
    res = await t.api('PATCH', '/flags/patch-me', { description: null, enabled: false });
    expect(await res.json()).toMatchObject({ enabled: false, description: null });
    expect(await (await t.api('GET', '/flags/patch-me')).json()).toMatchObject({
      enabled: false,
      percentage: 60,
    });
  });

  it('answers 200 with the unchanged flag for an empty or no-op patch', async () => {
    await t.api('POST', '/flags', { key: 'noop', type: 'boolean' });
    const res = await t.api('PATCH', '/flags/noop', {});
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ key: 'noop', type: 'boolean', enabled: false, description: null });
  });

  it.each([
    [{ percentage: 20 }, 'percentage'],
    [{ enabled: 'true' }, 'enabled'],
    [{ description: 'x'.repeat(1001) }, 'description'],
    [{ key: 'other' }, 'key'],
    [{ type: 'rollout' }, 'type'],
    [{ extra: 1 }, 'extra'],
  ])('rejects %j on a boolean flag naming "%s"', async (patch, field) => {
    await t.api('POST', '/flags', { key: 'patch-bool', type: 'boolean' });
    const message = await expectError(
      await t.api('PATCH', '/flags/patch-bool', patch),
      400,
      'VALIDATION_ERROR',
    );
    expect(message).toContain(`"${field}"`);
  });

  it('answers 404 for an unknown flag', async () => {
    await expectError(await t.api('PATCH', '/flags/ghost', { enabled: true }), 404, 'NOT_FOUND');
  });
});

describe('DELETE /flags/:key', () => {
  it('removes the flag with 204 and no body', async () => {
    await t.api('POST', '/flags', { key: 'doomed', type: 'boolean' });
    const res = await t.api('DELETE', '/flags/doomed');
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    await expectError(await t.api('GET', '/flags/doomed'), 404, 'NOT_FOUND');
    await expectError(await t.api('DELETE', '/flags/doomed'), 404, 'NOT_FOUND');
  });

  it('frees the key for a new flag', async () => {
    await t.api('POST', '/flags', { key: 'reborn', type: 'boolean' });
    await t.api('DELETE', '/flags/reborn');
    const res = await t.api('POST', '/flags', { key: 'reborn', type: 'rollout' });
    expect(res.status).toBe(201);
  });
});

describe('environment isolation', () => {
  it('keeps flags of one environment invisible to the keys of another', async () => {
    await t.api('POST', '/flags', { key: 'prod-only', type: 'boolean' });
    await expectError(
      await t.api('GET', '/flags/prod-only', undefined, KEYS.acmeStageFull),
      404,
      'NOT_FOUND',
    );
    await expectError(await t.api('GET', '/flags/prod-only', undefined, KEYS.otherFull), 404, 'NOT_FOUND');
    const staging = (await (await t.api('GET', '/flags', undefined, KEYS.acmeStageFull)).json()) as unknown[];
    expect(staging).toEqual([]);
  });

  it('lets the same key exist in two environments independently', async () => {
    await t.api('POST', '/flags', { key: 'shared-key', type: 'boolean' });
    expect(
      (await t.api('POST', '/flags', { key: 'shared-key', type: 'rollout' }, KEYS.otherFull)).status,
    ).toBe(201);
    await t.api('PATCH', '/flags/shared-key', { enabled: true });
    const other = await (await t.api('GET', '/flags/shared-key', undefined, KEYS.otherFull)).json();
    expect(other).toMatchObject({ type: 'rollout', enabled: false });
  });
});

describe('routing', () => {
  it('answers 404 NOT_FOUND as JSON for unknown routes', async () => {
    await expectError(await t.api('GET', '/nothing-here'), 404, 'NOT_FOUND');
    await expectError(await fetch(`${t.server.url}/flags`), 404, 'NOT_FOUND');
    await expectError(await fetch(`${t.server.url}/favicon.ico`), 404, 'NOT_FOUND');
    await expectError(await fetch(`${t.server.url}/dashboard/nope.js`), 404, 'NOT_FOUND');
    // `/` is the dashboard's page (docs/protocol.md §10.1), a 404 only with the dashboard off.
    const off = await startTestServer({ dashboard: false });
    try {
      await expectError(await fetch(`${off.server.url}/`), 404, 'NOT_FOUND');
    } finally {
      await off.close();
    }
  });

  it('answers 405 METHOD_NOT_ALLOWED with an Allow header', async () => {
    const res = await t.api('PUT', '/flags/seeded', { enabled: true });
    expect(res.headers.get('allow')).toBe('GET, PATCH, DELETE, HEAD, OPTIONS');
    await expectError(res, 405, 'METHOD_NOT_ALLOWED');
    const list = await t.api('DELETE', '/flags');
    expect(list.headers.get('allow')).toBe('GET, POST, HEAD, OPTIONS');
    await expectError(list, 405, 'METHOD_NOT_ALLOWED');
  });

  it('answers CORS preflights without a key', async () => {
    const res = await fetch(`${t.base}/sdk/flags`, {
      method: 'OPTIONS',
      headers: { origin: 'http://example.test', 'access-control-request-headers': 'authorization' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-headers')).toContain('Authorization');
  });
});
