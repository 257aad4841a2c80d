/** `GET /sdk/flags` and the event stream (`docs/protocol.md` §5) against a real server. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SdkFlagUpdate, SdkSnapshot } from '../../../src/core/types.js';
import { expectError } from '../../helpers/assert.js';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';
import { openStream, type SseReader } from '../../helpers/sse.js';

let t: TestServer;
const readers: SseReader[] = [];
beforeAll(async () => {
  t = await startTestServer({ pingIntervalMs: 50, streamHistorySize: 8 });
});
afterAll(async () => {
  for (const r of readers) r.close();
  await t.close();
});

const auth = (key: string = KEYS.acmeProdRead) => ({ authorization: `Bearer ${key}` });

async function snapshot(key?: string): Promise<SdkSnapshot> {
  const res = await fetch(`${t.base}/sdk/flags`, { headers: auth(key) });
  expect(res.status).toBe(200);
  return (await res.json()) as SdkSnapshot;
}

async function stream(path = '/api/v1/sdk/events', headers: Record<string, string> = {}): Promise<SseReader> {
  const reader = await openStream(`${t.server.url}${path}`, { ...auth(), ...headers });
  readers.push(reader);
  return reader;
}

describe('GET /sdk/flags', () => {
  it('returns every flag with what local evaluation needs, a revision, epoch and event id', async () => {
    const body = await snapshot();
    expect(body.eventId).toBe(`${body.epoch}:${body.revision}`);
    expect(body.flags.seeded).toEqual({
      key: 'seeded',
      type: 'rollout',
      enabled: true,
      percentage: 25,
      version: expect.any(Number),
    });
  });

  it('answers at /sdk/flags too, with the same body', async () => {
    const root = await fetch(`${t.server.url}/sdk/flags`, { headers: auth() });
    expect(await root.json()).toEqual(await snapshot());
  });

  it('moves the revision with every change and only then', async () => {
    const before = await snapshot();
    await t.api('POST', '/flags', { key: 'sdk-rev', type: 'boolean' });
    const after = await snapshot();
    expect(after.revision).toBe(before.revision + 1);
    expect(after.flags['sdk-rev']).toEqual({
      key: 'sdk-rev',
      type: 'boolean',
      enabled: false,
      version: after.revision,
    });
    await t.api('PATCH', '/flags/sdk-rev', { enabled: false });
    expect((await snapshot()).revision).toBe(after.revision);
  });

  it('supports ETag and If-None-Match with 304', async () => {
    const first = await fetch(`${t.base}/sdk/flags`, { headers: auth() });
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^".+"$/);
    await first.arrayBuffer();
    const cached = await fetch(`${t.base}/sdk/flags`, { headers: { ...auth(), 'if-none-match': etag } });
    expect(cached.status).toBe(304);
    expect(cached.headers.get('etag')).toBe(etag);
    await t.api('POST', '/flags', { key: 'sdk-etag', type: 'boolean' });
    const changed = await fetch(`${t.base}/sdk/flags`, { headers: { ...auth(), 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    await changed.arrayBuffer();
  });

  it('shows only the key environment', async () => {
    await t.api('POST', '/flags', { key: 'staging-only', type: 'boolean' }, KEYS.acmeStageFull);
    expect((await snapshot()).flags['staging-only']).toBeUndefined();
    expect((await snapshot(KEYS.acmeStageFull)).flags['staging-only']).toBeDefined();
  });

  it('needs a key', async () => {
    await expectError(await fetch(`${t.base}/sdk/flags`), 401, 'UNAUTHORIZED');
    await expectError(await fetch(`${t.base}/sdk/events`), 401, 'UNAUTHORIZED');
  });
});

describe('GET /sdk/events', () => {
  it.each(['/api/v1/sdk/events', '/sdk/events', '/sdk/stream', '/api/v1/sdk/stream'])(
    'streams at %s with SSE headers, a retry hint and a sync of the current state',
    async (path) => {
      const reader = await stream(path);
      expect(reader.response.statusCode).toBe(200);
      expect(reader.response.headers['content-type']).toBe('text/event-stream');
      expect(reader.response.headers['cache-control']).toBe('no-cache');
      const first = await reader.next({ skipPings: true });
      expect(first.retry).toBe(1000);
      expect(first.event).toBe('flags:sync');
      const body = JSON.parse(first.data) as SdkSnapshot;
      expect(first.id).toBe(body.eventId);
      expect(body).toEqual(await snapshot());
      reader.close();
    },
  );

  it('sends flags:updated with an id for create, update and delete', async () => {
    const reader = await stream();
    const sync = await reader.next({ skipPings: true });
    const base = JSON.parse(sync.data) as SdkSnapshot;

    await t.api('POST', '/flags', { key: 'live', type: 'rollout', percentage: 10 });
    let event = await reader.next({ skipPings: true });
    expect(event.event).toBe('flags:updated');
    expect(event.id).toBe(`${base.epoch}:${base.revision + 1}`);
    expect(JSON.parse(event.data)).toEqual({
      key: 'live',
      type: 'rollout',
      enabled: false,
      percentage: 10,
      version: base.revision + 1,
    });

    await t.api('PATCH', '/flags/live', { enabled: true });
    event = await reader.next({ skipPings: true });
    expect(JSON.parse(event.data)).toMatchObject({ key: 'live', enabled: true, version: base.revision + 2 });

    await t.api('DELETE', '/flags/live');
    event = await reader.next({ skipPings: true });
    expect(JSON.parse(event.data) as SdkFlagUpdate).toEqual({
      key: 'live',
      type: 'rollout',
      enabled: false,
      percentage: 10,
      version: base.revision + 3,
      deleted: true,
    });
    expect(event.id).toBe(`${base.epoch}:${base.revision + 3}`);
    reader.close();
  });

  it('emits nothing for a change that changes nothing, and nothing for webhook changes', async () => {
    await t.api('POST', '/flags', { key: 'quiet', type: 'boolean' });
    const reader = await stream();
    await reader.next({ skipPings: true });
    await t.api('PATCH', '/flags/quiet', { enabled: false });
    await t.api('PATCH', '/flags/quiet', { description: null });
    await t.api('POST', '/webhooks', { url: 'https://example.test/', events: ['flag.updated'] });
    await t.api('PATCH', '/flags/quiet', { description: 'now it changes' });
    const event = await reader.next({ skipPings: true });
    expect(JSON.parse(event.data)).toMatchObject({ key: 'quiet', enabled: false });
    reader.close();
  });

  it('sends ping events with empty JSON data at the configured interval', async () => {
    const reader = await stream();
    let event = await reader.next();
    while (event.event !== 'ping') event = await reader.next();
    expect(event.data).toBe('{}');
    expect(event.id).toBeUndefined();
    reader.close();
  });

  it('resumes with Last-Event-ID: the missed changes in order, and no sync', async () => {
    const reader = await stream();
    const sync = await reader.next({ skipPings: true });
    reader.close();
    await t.api('POST', '/flags', { key: 'missed', type: 'boolean' });
    await t.api('PATCH', '/flags/missed', { enabled: true });
    await t.api('PATCH', '/flags/missed', { description: 'x' });
    const resumed = await stream('/sdk/events', { 'last-event-id': sync.id! });
    const events = [
      await resumed.next({ skipPings: true }),
      await resumed.next({ skipPings: true }),
      await resumed.next({ skipPings: true }),
    ];
    expect(events.map((e) => e.event)).toEqual(['flags:updated', 'flags:updated', 'flags:updated']);
    const base = Number(sync.id!.split(':')[1]);
    expect(events.map((e) => Number(e.id!.split(':')[1]))).toEqual([base + 1, base + 2, base + 3]);
    expect(events.map((e) => JSON.parse(e.data).enabled)).toEqual([false, true, true]);
    resumed.close();
  });

  it('accepts the resume point as ?lastEventId= for clients that cannot set headers', async () => {
    const { eventId } = await snapshot();
    const reader = await stream(`/sdk/events?lastEventId=${encodeURIComponent(eventId)}`);
    await t.api('POST', '/flags', { key: 'by-query', type: 'boolean' });
    const event = await reader.next({ skipPings: true });
    expect(event.event).toBe('flags:updated');
    expect(JSON.parse(event.data).key).toBe('by-query');
    reader.close();
  });

  it('joins a /sdk/flags snapshot without a gap: resuming from its eventId sends nothing old', async () => {
    const snap = await snapshot();
    const reader = await stream('/sdk/events', { 'last-event-id': snap.eventId });
    await t.api('POST', '/flags', { key: 'after-snapshot', type: 'boolean' });
    const event = await reader.next({ skipPings: true });
    expect(event.id).toBe(`${snap.epoch}:${snap.revision + 1}`);
    reader.close();
  });

  it.each([
    ['an id of another epoch', 'someotherepoch:1'],
    ['a malformed id', 'garbage'],
    ['an id ahead of the server', 'EPOCH:999999'],
    ['an id older than the history', 'EPOCH:0'],
  ])('sends a full flags:sync for %s', async (_, template) => {
    for (let i = 0; i < 10; i++) await t.api('PATCH', '/flags/seeded', { percentage: i + 30 });
    const snap = await snapshot();
    const reader = await stream('/sdk/events', { 'last-event-id': template.replace('EPOCH', snap.epoch) });
    const event = await reader.next({ skipPings: true });
    expect(event.event).toBe('flags:sync');
    expect(JSON.parse(event.data)).toEqual(snap);
    reader.close();
  });

  it('ends every stream when the server closes', async () => {
    const own = await startTestServer();
    const reader = await openStream(`${own.server.url}/sdk/events`, auth());
    expect(own.server.streamCount).toBe(1);
    await own.close();
    await reader.ended;
    expect(own.server.streamCount).toBe(0);
  });
});

describe('load shedding', () => {
  it('refuses streams past maxStreams with a JSON 503 and Retry-After, and accepts again once one closes', async () => {
    const own = await startTestServer({ maxStreams: 2 });
    try {
      const url = `${own.server.url}/sdk/events`;
      const a = await openStream(url, auth());
      const b = await openStream(url, auth());
      const refused = await fetch(url, { headers: auth() });
      expect(refused.headers.get('retry-after')).toMatch(/^[1-5]$/);
      await expectError(refused, 503, 'SERVICE_UNAVAILABLE');
      a.close();
      await expect.poll(() => own.server.streamCount).toBe(1);
      const c = await openStream(url, auth());
      expect(c.response.statusCode).toBe(200);
      b.close();
      c.close();
    } finally {
      await own.close();
    }
  });
});
