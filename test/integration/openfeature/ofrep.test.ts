/**
 * OFREP on the reference server (`docs/protocol.md` §11) with the real server provider,
 * `@openfeature/ofrep-provider` under `@openfeature/server-sdk`, and on the wire: reasons,
 * errors, auth, ETags, CORS, the change stream and its credential, and the bucketing vectors
 * (every one gives the same value through OFREP as through the SDK client).
 */
import { readFileSync } from 'node:fs';
import { OFREPProvider } from '@openfeature/ofrep-provider';
import { OpenFeature } from '@openfeature/server-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../../src/index.js';
import { type AdminCaller, adminCaller } from '../../helpers/admin.js';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';
import { openStream } from '../../helpers/sse.js';
import { whenTrue } from '../../helpers/wait.js';

let t: TestServer;
let admin: AdminCaller;
const DOMAIN = 'ofrep-test';

const ofrep = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${t.server.url}/ofrep/v1/evaluate/flags${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEYS.acmeProdRead}`, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

beforeAll(async () => {
  t = await startTestServer();
  admin = await adminCaller(t.server);
  await t.api('POST', '/flags', { key: 'on-flag', type: 'boolean' });
  await t.api('PATCH', '/flags/on-flag', { enabled: true });
  await t.api('POST', '/flags', { key: 'off-flag', type: 'boolean' });
  await t.api('POST', '/flags', { key: 'half', type: 'rollout', percentage: 50 });
  await t.api('PATCH', '/flags/half', { enabled: true });
  await OpenFeature.setProviderAndWait(
    DOMAIN,
    new OFREPProvider({ baseUrl: t.server.url, headers: [['Authorization', `Bearer ${KEYS.acmeProdRead}`]] }),
  );
});

afterAll(async () => {
  await OpenFeature.clearProviders();
  await t?.close();
});

describe('the real OFREP server provider', () => {
  const client = () => OpenFeature.getClient(DOMAIN);

  it('resolves booleans with STATIC and DISABLED', async () => {
    expect(await client().getBooleanDetails('on-flag', false)).toMatchObject({
      value: true,
      reason: 'STATIC',
      variant: 'on',
    });
    expect(await client().getBooleanDetails('off-flag', true)).toMatchObject({
      value: false,
      reason: 'DISABLED',
      variant: 'off',
    });
  });

  it("resolves rollouts by the targetingKey's bucket, SPLIT, as the SDK client does", async () => {
    const sdk = createClient({ baseUrl: t.base, apiKey: KEYS.acmeProdRead, logger: false, stream: false });
    await sdk.ready();
    try {
      for (let n = 0; n < 50; n++) {
        const details = await client().getBooleanDetails('half', false, { targetingKey: `user-${n}` });
        expect(details.reason).toBe('SPLIT');
        expect(details.value).toBe(sdk.isEnabled('half', `user-${n}`));
        expect(details.flagMetadata.bucket).toBe(sdk.isEnabledDetail('half', `user-${n}`).bucket);
      }
    } finally {
      await sdk.close();
    }
  });

  it('maps errors: unknown flag, missing targetingKey, a type the flag is not', async () => {
    expect(await client().getBooleanDetails('nope', true)).toMatchObject({
      value: true,
      reason: 'ERROR',
      errorCode: 'FLAG_NOT_FOUND',
    });
    expect(await client().getBooleanDetails('half', true)).toMatchObject({
      value: true,
      errorCode: 'TARGETING_KEY_MISSING',
    });
    expect(await client().getStringDetails('on-flag', 'x')).toMatchObject({
      value: 'x',
      errorCode: 'TYPE_MISMATCH',
    });
  });

  it('sees a flag flipped through the API on the next evaluation', async () => {
    await t.api('PATCH', '/flags/off-flag', { enabled: true });
    expect(await client().getBooleanValue('off-flag', false)).toBe(true);
    await t.api('PATCH', '/flags/off-flag', { enabled: false });
    expect(await client().getBooleanValue('off-flag', true)).toBe(false);
  });
});

describe('OFREP on the wire', () => {
  it('answers a single flag with value, reason, variant and metadata', async () => {
    const res = await ofrep('/half', { context: { targetingKey: 'user-42' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const body = await res.json();
    expect(body).toMatchObject({ key: 'half', reason: 'SPLIT', metadata: { version: expect.any(Number) } });
    expect(typeof body.value).toBe('boolean');
  });

  it('accepts X-API-Key, a body without context, and a // before ofrep', async () => {
    const res = await ofrep('/on-flag', {}, { authorization: '', 'x-api-key': KEYS.acmeProdRead });
    expect(await res.json()).toMatchObject({ key: 'on-flag', value: true });
    const doubled = await fetch(`${t.server.url}//ofrep/v1/evaluate/flags/on-flag`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${KEYS.acmeProdFull}`,
        'content-type': 'application/json; charset=utf-8',
      },
      body: '{}',
    });
    expect(doubled.status).toBe(200);
  });

  it('answers 401 with no body for a missing or wrong key, and never opens the service API', async () => {
    for (const headers of [
      { authorization: '' },
      { authorization: 'Bearer fw_live_wrong000000000000000000000000000' },
    ]) {
      const res = await ofrep('/on-flag', {}, headers);
      expect(res.status).toBe(401);
      expect(await res.text()).toBe('');
    }
    expect((await ofrep('/on-flag', {}, { authorization: `Bearer ${t.server.adminToken}` })).status).toBe(
      401,
    );
  });

  it('carries key and errorCode on every failure', async () => {
    const notFound = await ofrep('/nope', { context: {} });
    expect(notFound.status).toBe(404);
    expect(await notFound.json()).toMatchObject({ key: 'nope', errorCode: 'FLAG_NOT_FOUND' });
    const noKey = await ofrep('/half', { context: {} });
    expect(noKey.status).toBe(400);
    expect(await noKey.json()).toMatchObject({ key: 'half', errorCode: 'TARGETING_KEY_MISSING' });
    const parse = await ofrep('/half', '{"context":');
    expect(parse.status).toBe(400);
    expect(await parse.json()).toMatchObject({ key: 'half', errorCode: 'PARSE_ERROR' });
    for (const body of [{ context: 'x' }, { context: { targetingKey: 7 } }, [1]]) {
      const bad = await ofrep('/half', body);
      expect(bad.status).toBe(400);
      expect(await bad.json()).toMatchObject({ key: 'half', errorCode: 'INVALID_CONTEXT' });
    }
    const bulk = await ofrep('', '{');
    expect(await bulk.json()).toEqual({ errorCode: 'PARSE_ERROR', errorDetails: expect.any(String) });
  });

  it('evaluates every flag in bulk, a failing one carrying its own errorCode', async () => {
    const res = await ofrep('', { context: {} });
    expect(res.status).toBe(200);
    const body = await res.json();
    const byKey = Object.fromEntries(body.flags.map((f: { key: string }) => [f.key, f]));
    expect(byKey['on-flag']).toMatchObject({ value: true, reason: 'STATIC' });
    expect(byKey.half).toMatchObject({ errorCode: 'TARGETING_KEY_MISSING' });
    expect(body.eventStreams).toEqual([
      {
        type: 'sse',
        endpoint: { requestUri: expect.stringMatching(/^\/ofrep\/v1\/events\?token=/) },
        inactivityDelaySec: 120,
      },
    ]);
    expect(JSON.stringify(body)).not.toContain(KEYS.acmeProdRead);
  });

  it('answers an unchanged bulk with 304, and a new ETag when the flags or the context change', async () => {
    const context = { targetingKey: 'user-1', plan: 'free' };
    const first = await ofrep('?flagConfigEtag=abc', { context });
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^".+"$/);
    for (const tag of [etag, `W/${etag}`, etag.slice(1, -1)]) {
      const again = await ofrep(
        '',
        { context: { plan: 'free', targetingKey: 'user-1' } },
        { 'if-none-match': tag },
      );
      expect(again.status).toBe(304);
      expect(await again.text()).toBe('');
    }
    const otherContext = await ofrep('', { context: { ...context, plan: 'pro' } }, { 'if-none-match': etag });
    expect(otherContext.status).toBe(200);
    await t.api('PATCH', '/flags/half', { percentage: 51 });
    const changed = await ofrep('', { context }, { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
  });

  it('refuses a context nested too deep with INVALID_CONTEXT (no stack overflow, no 500)', async () => {
    const depth = 100_000;
    const res = await ofrep('', `{"context":{"a":${'['.repeat(depth)}"x"${']'.repeat(depth)}}}`);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ errorCode: 'INVALID_CONTEXT' });
  });

  it('gives another key another ETag (its stream URL differs)', async () => {
    const context = { targetingKey: 'user-1' };
    const read = (await ofrep('', { context })).headers.get('etag');
    const full = (await ofrep('', { context }, { authorization: `Bearer ${KEYS.acmeProdFull}` })).headers.get(
      'etag',
    );
    expect(read).not.toBe(full);
  });

  it('answers CORS preflights for the headers the web provider sends', async () => {
    const res = await fetch(`${t.server.url}/ofrep/v1/evaluate/flags`, { method: 'OPTIONS' });
    expect(res.status).toBe(204);
    const allowed = res.headers.get('access-control-allow-headers')!.toLowerCase();
    for (const header of ['content-type', 'authorization', 'if-none-match', 'x-api-key'])
      expect(allowed).toContain(header);
    const post = await ofrep('', { context: {} });
    expect(post.headers.get('access-control-expose-headers')).toContain('ETag');
  });
});

describe('the change stream', () => {
  async function streamUrl(key: string): Promise<string> {
    const res = await ofrep('', { context: {} }, { authorization: `Bearer ${key}` });
    const body = await res.json();
    return `${t.server.url}${body.eventStreams[0].endpoint.requestUri}`;
  }

  it('sends refetchEvaluation after every change, as unnamed message events', async () => {
    const stream = await openStream(await streamUrl(KEYS.acmeProdRead));
    expect(stream.response.statusCode).toBe(200);
    expect(stream.response.headers['access-control-allow-origin']).toBe('*');
    await t.api('PATCH', '/flags/on-flag', { description: 'changed' });
    const event = await stream.next({ skipPings: true });
    expect(event.event).toBe('message');
    expect(JSON.parse(event.data)).toMatchObject({ type: 'refetchEvaluation', etag: expect.any(String) });
    stream.close();
  });

  it('refuses a forged or altered token', async () => {
    const url = await streamUrl(KEYS.acmeProdRead);
    for (const bad of [
      url.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')),
      `${t.server.url}/ofrep/v1/events`,
    ]) {
      const res = await fetch(bad);
      expect(res.status).toBe(401);
    }
  });

  it('refuses streams past maxStreams with 503 and a Retry-After in whole seconds', async () => {
    const own = await startTestServer({ maxStreams: 1 });
    try {
      const res = await fetch(`${own.server.url}/ofrep/v1/evaluate/flags`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEYS.acmeProdRead}`, 'content-type': 'application/json' },
        body: '{}',
      });
      const url = `${own.server.url}${(await res.json()).eventStreams[0].endpoint.requestUri}`;
      const first = await openStream(url);
      expect(first.response.statusCode).toBe(200);
      const second = await fetch(url);
      expect(second.status).toBe(503);
      expect(second.headers.get('retry-after')).toMatch(/^[1-5]$/);
      expect(await second.json()).toMatchObject({ errorCode: 'GENERAL' });
      first.close();
    } finally {
      await own.close();
    }
  });

  it('answers HEAD on the stream with its headers and no open stream', async () => {
    const res = await fetch(await streamUrl(KEYS.acmeProdRead), { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
  });

  it('counts OFREP and SDK streams against one maxStreams', async () => {
    const own = await startTestServer({ maxStreams: 1 });
    try {
      const sdk = await openStream(`${own.server.url}/sdk/events`, {
        authorization: `Bearer ${KEYS.acmeProdRead}`,
      });
      expect(sdk.response.statusCode).toBe(200);
      const bulk = await fetch(`${own.server.url}/ofrep/v1/evaluate/flags`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEYS.acmeProdRead}`, 'content-type': 'application/json' },
        body: '{}',
      });
      const url = `${own.server.url}${(await bulk.json()).eventStreams[0].endpoint.requestUri}`;
      expect((await fetch(url)).status).toBe(503);
      sdk.close();
      await sdk.ended;
      const ofrepStream = await openStream(url);
      expect(ofrepStream.response.statusCode).toBe(200);
      const refused = await fetch(`${own.server.url}/sdk/events`, {
        headers: { authorization: `Bearer ${KEYS.acmeProdRead}` },
      });
      expect(refused.status).toBe(503);
      ofrepStream.close();
    } finally {
      await own.close();
    }
  });

  it("closes a revoked key's stream and refuses its token", async () => {
    const key = await (
      await admin.asPage('POST', '/environments/acme/production/keys', { access: 'read-only' })
    ).json();
    const url = await streamUrl(key.key);
    const stream = await openStream(url);
    expect(stream.response.statusCode).toBe(200);
    await admin.asPage('DELETE', `/environments/acme/production/keys/${key.id}`);
    await stream.ended;
    expect((await fetch(url)).status).toBe(401);
  });
});

describe('bucketing vectors through OFREP', () => {
  interface Vector {
    flagKey: string;
    userKey: string;
    bucket: number;
  }
  const { vectors } = JSON.parse(
    readFileSync(new URL('../../vectors/bucketing.json', import.meta.url), 'utf8'),
  ) as {
    vectors: Vector[];
  };

  it('gives every vector the same value and bucket through OFREP as through the SDK client', async () => {
    const own = await startTestServer();
    const sdk = createClient({ baseUrl: own.base, apiKey: own.readKey, logger: false });
    try {
      await sdk.ready();
      const checked: string[] = [];
      for (const v of vectors.filter((x) => x.userKey !== '')) {
        for (const percentage of [v.bucket, v.bucket - 1]) {
          const exists = (await own.api('GET', `/flags/${encodeURIComponent(v.flagKey)}`)).status === 200;
          if (!exists) {
            await own.api('POST', '/flags', { key: v.flagKey, type: 'rollout', percentage });
            await own.api('PATCH', `/flags/${encodeURIComponent(v.flagKey)}`, { enabled: true });
          } else {
            await own.api('PATCH', `/flags/${encodeURIComponent(v.flagKey)}`, { percentage });
          }
          const flag = await (await own.api('GET', `/flags/${encodeURIComponent(v.flagKey)}`)).json();
          await whenTrue(sdk, () => sdk.allFlags()[v.flagKey]?.percentage === flag.percentage);
          const res = await fetch(
            `${own.server.url}/ofrep/v1/evaluate/flags/${encodeURIComponent(v.flagKey)}`,
            {
              method: 'POST',
              headers: { authorization: `Bearer ${own.readKey}`, 'content-type': 'application/json' },
              body: JSON.stringify({ context: { targetingKey: v.userKey } }),
            },
          );
          const body = await res.json();
          const expected = v.bucket <= percentage;
          expect(body.value, `${v.flagKey}:${v.userKey} at ${percentage} %`).toBe(expected);
          expect(body.value).toBe(sdk.isEnabled(v.flagKey, v.userKey));
          if (percentage > 0 && percentage < 100) expect(body.metadata.bucket).toBe(v.bucket);
          checked.push(v.flagKey);
        }
      }
      expect(checked.length).toBeGreaterThanOrEqual(80);
    } finally {
      await sdk.close();
      await own.close();
    }
  });
});
