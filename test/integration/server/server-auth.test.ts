/** Authentication and access levels (`docs/protocol.md` §2). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY_PATTERN } from '../../../src/core/limits.js';
import { expectError } from '../../helpers/assert.js';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const call = (path: string, authorization?: string) =>
  fetch(`${t.base}${path}`, authorization === undefined ? {} : { headers: { authorization } });

describe('401 UNAUTHORIZED', () => {
  it.each([
    ['no header', undefined],
    ['an empty header', ''],
    ['another scheme', `Basic ${KEYS.acmeProdFull}`],
    ['a scheme without a key', 'Bearer'],
    ['two tokens', `Bearer ${KEYS.acmeProdFull} extra`],
    ['a key of the wrong format', 'Bearer fw_live_short'],
    ['an unknown key of the right format', `Bearer fw_live_${'Z'.repeat(32)}`],
    ['a key with a changed last character', `Bearer ${KEYS.acmeProdFull.slice(0, -1)}1`],
  ])('for %s, with one generic message', async (_, header) => {
    const messages = await Promise.all(
      ['/flags', '/flags/seeded', '/webhooks', '/sdk/flags'].map(async (path) =>
        expectError(await call(path, header), 401, 'UNAUTHORIZED'),
      ),
    );
    expect(new Set(messages).size).toBe(1);
    expect(messages[0]).not.toContain('fw_live_');
  });

  it('comes before validation and method checks would leak anything', async () => {
    await expectError(await fetch(`${t.base}/flags`, { method: 'PUT' }), 401, 'UNAUTHORIZED');
    await expectError(
      await fetch(`${t.base}/flags`, { method: 'POST', body: 'garbage' }),
      401,
      'UNAUTHORIZED',
    );
  });

  it('takes the scheme in any case and tolerates extra spaces', async () => {
    for (const scheme of ['bearer', 'BEARER', 'BeArEr']) {
      expect((await call('/flags', `${scheme} ${KEYS.acmeProdFull}`)).status).toBe(200);
    }
    expect((await call('/flags', `Bearer   ${KEYS.acmeProdFull}  `)).status).toBe(200);
  });
});

describe('read-only keys', () => {
  const read = (method: string, path: string, body?: unknown) => t.api(method, path, body, KEYS.acmeProdRead);

  it('may read flags and use the SDK endpoints', async () => {
    expect((await read('GET', '/flags')).status).toBe(200);
    expect((await read('GET', '/flags/seeded')).status).toBe(200);
    expect((await read('GET', '/sdk/flags')).status).toBe(200);
    const stream = await fetch(`${t.base}/sdk/events`, {
      headers: { authorization: `Bearer ${KEYS.acmeProdRead}` },
    });
    expect(stream.status).toBe(200);
    await stream.body?.cancel();
  });

  it.each([
    ['POST', '/flags', { key: 'ro', type: 'boolean' }],
    ['PATCH', '/flags/seeded', { enabled: false }],
    ['DELETE', '/flags/seeded', undefined],
    ['GET', '/webhooks', undefined],
    ['POST', '/webhooks', { url: 'http://127.0.0.1:1/', events: ['flag.updated'] }],
    ['GET', '/webhooks/wh_x', undefined],
    ['PATCH', '/webhooks/wh_x', { active: false }],
    ['DELETE', '/webhooks/wh_x', undefined],
  ])('answers 403 FORBIDDEN to %s %s and changes nothing', async (method, path, body) => {
    await expectError(await read(method, path, body), 403, 'FORBIDDEN');
    expect(await (await t.api('GET', '/flags/seeded')).json()).toMatchObject({ enabled: true });
  });

  it('still gets 405 for a method no key may use', async () => {
    await expectError(await read('PUT', '/flags'), 405, 'METHOD_NOT_ALLOWED');
  });
});

describe('the default project', () => {
  it('creates project default / environment development with a full and a read-only key', async () => {
    const d = await startTestServer({ config: undefined });
    try {
      expect(d.server.keys.map((k) => [k.project, k.environment, k.access])).toEqual([
        ['default', 'development', 'full'],
        ['default', 'development', 'read-only'],
      ]);
      for (const { key } of d.server.keys) expect(key).toMatch(API_KEY_PATTERN);
      expect((await d.api('POST', '/flags', { key: 'x', type: 'boolean' })).status).toBe(201);
      await expectError(
        await d.api('POST', '/flags', { key: 'y', type: 'boolean' }, d.readKey),
        403,
        'FORBIDDEN',
      );
    } finally {
      await d.close();
    }
  });
});
