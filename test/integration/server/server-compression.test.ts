/**
 * `GET /sdk/flags` compressed (`docs/protocol.md` §5.2): brotli or gzip as the request accepts,
 * the same JSON as the identity body, made once per revision, `Vary: Accept-Encoding`; small
 * bodies as they are; the SDK client in Node receives it compressed and works.
 */
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EncodedBodies, pickEncoding } from '../../../server/stream/encoded.js';
import { createClient } from '../../../src/index.js';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';
import { whenTrue } from '../../helpers/wait.js';

let t: TestServer;

/** A raw GET (fetch would decode), answering status, headers and the undecoded bytes. */
function get(path: string, headers: Record<string, string>) {
  return new Promise<{
    status: number;
    headers: Record<string, string | string[] | undefined>;
    body: Buffer;
  }>((resolve, reject) => {
    const req = request(
      `${t.server.url}${path}`,
      { headers: { authorization: `Bearer ${KEYS.acmeProdRead}`, ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  t = await startTestServer();
  for (let i = 0; i < 60; i++) {
    const flag = i % 2 ? { type: 'boolean' } : { type: 'rollout', percentage: i };
    expect((await t.api('POST', '/flags', { key: `compress-${i}`, ...flag })).status).toBe(201);
  }
});
afterAll(() => t?.close());

describe('GET /sdk/flags compressed', () => {
  it('answers br, gzip or identity as the request accepts, always the same JSON', async () => {
    const plain = await get('/sdk/flags', {});
    expect(plain.headers['content-encoding']).toBeUndefined();
    const json = JSON.parse(plain.body.toString('utf8'));
    const br = await get('/sdk/flags', { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(br.body).toString('utf8'))).toEqual(json);
    expect(br.body.length).toBeLessThan(plain.body.length / 3);
    expect(Number(br.headers['content-length'])).toBe(br.body.length);
    const gz = await get('/sdk/flags', { 'accept-encoding': 'br;q=0, gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(gz.body).toString('utf8'))).toEqual(json);
    for (const header of ['identity', 'deflate', 'gzip;q=0, br;q=0', '*;q=0']) {
      expect(
        (await get('/sdk/flags', { 'accept-encoding': header })).headers['content-encoding'],
      ).toBeUndefined();
    }
    for (const res of [plain, br, gz]) {
      expect(res.headers.vary).toBe('Authorization, Accept-Encoding, X-Flagwire-Capabilities');
      expect(res.headers.etag).toBe(plain.headers.etag);
    }
  });

  it('answers 304 to a compressed client as to any, and follows a change', async () => {
    const first = await get('/sdk/flags', { 'accept-encoding': 'br' });
    const again = await get('/sdk/flags', {
      'accept-encoding': 'br',
      'if-none-match': first.headers.etag as string,
    });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    await t.api('PATCH', '/flags/compress-0', { enabled: true });
    const changed = await get('/sdk/flags', {
      'accept-encoding': 'br',
      'if-none-match': first.headers.etag as string,
    });
    expect(changed.status).toBe(200);
    expect(JSON.parse(brotliDecompressSync(changed.body).toString('utf8')).flags['compress-0'].enabled).toBe(
      true,
    );
  });

  it('sends a small snapshot as it is', async () => {
    const res = await get('/sdk/flags', {
      'accept-encoding': 'br',
      authorization: `Bearer ${KEYS.acmeStageFull}`,
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
  });

  it("reaches the SDK client compressed through Node's fetch, which decodes it", async () => {
    const encodings: Array<string | null> = [];
    const client = createClient({
      baseUrl: t.base,
      apiKey: KEYS.acmeProdRead,
      logger: false,
      stream: false,
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        encodings.push(res.headers.get('content-encoding'));
        return res;
      },
    });
    try {
      await client.ready();
      await whenTrue(client, () => client.allFlags()['compress-59'] !== undefined);
      expect(encodings[0]).toMatch(/^(br|gzip)$/);
      expect(client.isEnabled('compress-0', 'u', true)).toBe(client.isEnabledDetail('compress-0', 'u').value);
    } finally {
      await client.close();
    }
  });
});

describe('the per-revision compressed bodies', () => {
  it('compresses once per encoding, however many requests ask at once', async () => {
    const bodies = new EncodedBodies(Buffer.from(JSON.stringify({ x: 'y'.repeat(5000) })), { etag: '"e"' });
    expect(bodies.ready('br')).toBeUndefined();
    const all = await Promise.all(Array.from({ length: 20 }, () => bodies.get('br')));
    for (const encoded of all) expect(encoded).toBe(all[0]); // the very same body and headers
    expect(bodies.ready('br')).toBe(all[0]);
    expect(all[0]!.headers).toMatchObject({ etag: '"e"', 'content-encoding': 'br' });
  });

  it('picks the encoding as the header asks', () => {
    expect(pickEncoding('gzip, deflate, br')).toBe('br');
    expect(pickEncoding('gzip')).toBe('gzip');
    expect(pickEncoding('br;q=0.5, gzip;q=0.9')).toBe('gzip');
    expect(pickEncoding('*')).toBe('br');
    expect(pickEncoding('*;q=0, gzip')).toBe('gzip');
    expect(pickEncoding('identity')).toBeUndefined();
    expect(pickEncoding(undefined)).toBeUndefined();
    expect(pickEncoding('br;q=x')).toBeUndefined();
  });
});
