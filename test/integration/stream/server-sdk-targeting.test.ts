/**
 * The targeting capability on the SDK endpoints (`docs/protocol.md` §5.2, §5.3, §12.6) against a
 * real server: how a request asks for it, the capable snapshot (every flag in its SDK form, the
 * segments), its ETag and Vary, the capable stream's `flags:updated` and `segments:updated`
 * frames, resuming across both, and the view of SDKs without the capability, unchanged beside it.
 */
import { request } from 'node:http';
import { brotliDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from '../../../src/core/pattern/parse.js';
import { toWire } from '../../../src/core/pattern/wire.js';
import type { SdkSnapshot } from '../../../src/core/types.js';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';
import { openStream, type SseEvent, type SseReader } from '../../helpers/sse.js';

const CAPABLE = { 'x-flagwire-capabilities': 'targeting' } as const;
const auth = { authorization: `Bearer ${KEYS.acmeProdRead}` } as const;
const VARY = 'Authorization, Accept-Encoding, X-Flagwire-Capabilities';

const servers: TestServer[] = [];
const readers: SseReader[] = [];
afterAll(async () => {
  for (const reader of readers) reader.close();
  await Promise.all(servers.map((s) => s.close()));
});

async function server(): Promise<TestServer> {
  const t = await startTestServer();
  servers.push(t);
  return t;
}

/** A write through the management API that must succeed. */
async function write(t: TestServer, method: string, path: string, body?: unknown): Promise<void> {
  const res = await t.api(method, path, body);
  expect(res.ok, `${method} ${path}: ${res.status} ${await res.clone().text()}`).toBe(true);
  await res.arrayBuffer();
}

/** `GET /sdk/flags` (or `path`) with the read key and `headers`; the body as text. */
async function getFlags(
  t: TestServer,
  headers: Record<string, string> = {},
  path = '/api/v1/sdk/flags',
): Promise<{ res: Response; text: string }> {
  const res = await fetch(`${t.server.url}${path}`, { headers: { ...auth, ...headers } });
  return { res, text: await res.text() };
}

async function snapshot(t: TestServer, headers: Record<string, string> = {}, path?: string) {
  const { res, text } = await getFlags(t, headers, path);
  expect(res.status).toBe(200);
  return JSON.parse(text) as SdkSnapshot;
}

async function stream(t: TestServer, headers: Record<string, string> = {}, path = '/api/v1/sdk/events') {
  const reader = await openStream(`${t.server.url}${path}`, { ...auth, ...headers });
  readers.push(reader);
  expect(reader.response.statusCode).toBe(200);
  return reader;
}

const next = (reader: SseReader): Promise<SseEvent> => reader.next({ skipPings: true });

/** The revision an event id names. */
const revisionOf = (event: SseEvent): number => Number(event.id!.split(':')[1]);

/** The environment of the fixtures: flags of every type, most with targeting, and two segments. */
async function seed(t: TestServer): Promise<Record<string, number>> {
  const versions: Record<string, number> = {};
  let revision = (await snapshot(t)).revision;
  const step = async (name: string, method: string, path: string, body?: unknown) => {
    await write(t, method, path, body);
    versions[name] = ++revision;
  };
  await step('staff', 'POST', '/segments', {
    key: 'staff',
    description: 'people who work here',
    included: ['ann'],
    excluded: ['bob'],
    rules: [{ clauses: [{ attribute: 'email', op: 'endsWith', values: ['@corp.example'] }] }],
  });
  await step('beta', 'POST', '/segments', { key: 'beta', included: ['cy'] });
  await step('banner', 'POST', '/flags', {
    key: 'banner',
    type: 'string',
    description: 'not sent to SDKs',
    variants: { blue: '#00f', red: '#f00' },
    offVariant: 'red',
    fallthrough: { variant: 'red' },
    rules: [{ id: 'staff', clauses: [{ op: 'inSegment', values: ['staff'] }], serve: { variant: 'blue' } }],
  });
  await step('banner', 'PATCH', '/flags/banner', { enabled: true });
  await step('limit', 'POST', '/flags', {
    key: 'limit',
    type: 'number',
    variants: { low: 10, high: 100 },
    offVariant: 'low',
    fallthrough: {
      split: [
        { variant: 'low', weight: 50_000 },
        { variant: 'high', weight: 50_000 },
      ],
    },
    targets: [{ variant: 'high', keys: ['vip'] }],
  });
  await step('theme', 'POST', '/flags', {
    key: 'theme',
    type: 'json',
    variants: { dark: { bg: '#000' }, light: { bg: '#fff' } },
    offVariant: 'light',
    fallthrough: { variant: 'dark' },
    salt: 'theme-v2',
  });
  await step('gated', 'POST', '/flags', {
    key: 'gated',
    type: 'boolean',
    prerequisites: [{ flag: 'banner', variants: ['blue'] }],
  });
  await step('ramp', 'POST', '/flags', { key: 'ramp', type: 'rollout', percentage: 30, salt: 'ramp-v2' });
  await step('plain-gate', 'POST', '/flags', { key: 'plain-gate', type: 'boolean' });
  await step('plain-gate', 'PATCH', '/flags/plain-gate', { enabled: true });
  return versions;
}

describe('asking for the targeting capability', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await server();
    await seed(t);
  });

  const capable = [
    ['the header', { 'x-flagwire-capabilities': 'targeting' }, ''],
    [
      'the header among other tokens, spaced and in any case',
      { 'x-flagwire-capabilities': 'foo , TarGeting,bar' },
      '',
    ],
    ['the query string', {}, '?capabilities=targeting'],
    ['the query string among other tokens', {}, '?capabilities=foo,targeting'],
  ] as const;
  const notCapable = [
    ['no header', {}, ''],
    ['tokens that are not targeting', { 'x-flagwire-capabilities': 'foo, targetingx' }, ''],
    ['a token with a space inside', { 'x-flagwire-capabilities': 'target ing' }, ''],
    ['query tokens that are not targeting', {}, '?capabilities=foo,targetingx'],
    ['another query parameter', {}, '?capability=targeting'],
  ] as const;

  for (const path of ['/api/v1/sdk/flags', '/sdk/flags']) {
    it.each(capable)(`GET ${path}: %s makes the request capable`, async (_, headers, query) => {
      const { res, text } = await getFlags(t, headers, `${path}${query}`);
      expect(res.status).toBe(200);
      const body = JSON.parse(text) as SdkSnapshot;
      expect(res.headers.get('etag')).toBe(`"${body.eventId}:targeting"`);
      expect(Object.keys(body.segments!).sort()).toEqual(['beta', 'staff']);
      expect(body.flags.banner).toBeDefined();
    });

    it.each(notCapable)(`GET ${path}: %s is not capable`, async (_, headers, query) => {
      const { res, text } = await getFlags(t, headers, `${path}${query}`);
      expect(res.status).toBe(200);
      const body = JSON.parse(text) as SdkSnapshot;
      expect(res.headers.get('etag')).toBe(`"${body.eventId}"`);
      expect(body).not.toHaveProperty('segments');
      expect(Object.keys(body.flags).sort()).toEqual(['plain-gate', 'seeded']);
    });
  }

  for (const path of ['/api/v1/sdk/events', '/sdk/events', '/sdk/stream', '/api/v1/sdk/stream']) {
    it.each(capable)(`GET ${path}: %s makes the stream capable`, async (_, headers, query) => {
      const reader = await stream(t, headers, `${path}${query}`);
      const sync = await next(reader);
      expect(sync.event).toBe('flags:sync');
      expect(JSON.parse(sync.data)).toEqual(await snapshot(t, CAPABLE));
      reader.close();
    });

    it.each(notCapable)(`GET ${path}: %s is not capable`, async (_, headers, query) => {
      const reader = await stream(t, headers, `${path}${query}`);
      const sync = await next(reader);
      expect(sync.event).toBe('flags:sync');
      const body = JSON.parse(sync.data) as SdkSnapshot;
      expect(body).not.toHaveProperty('segments');
      expect(body).toEqual(await snapshot(t));
      reader.close();
    });
  }
});

describe('the capable snapshot', () => {
  let t: TestServer;
  let versions: Record<string, number>;
  beforeAll(async () => {
    t = await server();
    versions = await seed(t);
  });

  it('holds every flag of every type in its SDK form and every segment', async () => {
    const body = await snapshot(t, CAPABLE);
    const plain = await snapshot(t);
    expect(Object.keys(body).sort()).toEqual(['epoch', 'eventId', 'flags', 'revision', 'segments']);
    expect(body.revision).toBe(plain.revision);
    expect(body.epoch).toBe(plain.epoch);
    expect(body.eventId).toBe(`${body.epoch}:${body.revision}`);
    expect(Object.keys(body.flags).sort()).toEqual([
      'banner',
      'gated',
      'limit',
      'plain-gate',
      'ramp',
      'seeded',
      'theme',
    ]);

    // The SDK form: key, type, enabled, (percentage), version, then the targeting fields set.
    expect(Object.keys(body.flags.banner!)).toEqual([
      'key',
      'type',
      'enabled',
      'version',
      'variants',
      'offVariant',
      'fallthrough',
      'rules',
    ]);
    expect(body.flags.banner).toEqual({
      key: 'banner',
      type: 'string',
      enabled: true,
      version: versions.banner,
      variants: { blue: '#00f', red: '#f00' },
      offVariant: 'red',
      fallthrough: { variant: 'red' },
      rules: [{ id: 'staff', clauses: [{ op: 'inSegment', values: ['staff'] }], serve: { variant: 'blue' } }],
    });
    expect(body.flags.ramp).toEqual({
      key: 'ramp',
      type: 'rollout',
      enabled: false,
      percentage: 30,
      version: versions.ramp,
      salt: 'ramp-v2',
    });
    expect(body.flags.gated).toEqual({
      key: 'gated',
      type: 'boolean',
      enabled: false,
      version: versions.gated,
      prerequisites: [{ flag: 'banner', variants: ['blue'] }],
    });

    // Every flag: the management representation's fields without the description, and its version.
    for (const [key, sent] of Object.entries(body.flags)) {
      const { description: _, ...managed } = (await (await t.api('GET', `/flags/${key}`)).json()) as Record<
        string,
        unknown
      >;
      expect(sent).toEqual({ ...managed, version: versions[key] ?? sent.version });
    }

    // Segments by key: what evaluation needs and the revision of their last change.
    expect(body.segments).toEqual({
      staff: {
        key: 'staff',
        included: ['ann'],
        excluded: ['bob'],
        rules: [{ clauses: [{ attribute: 'email', op: 'endsWith', values: ['@corp.example'] }] }],
        version: versions.staff,
      },
      beta: { key: 'beta', included: ['cy'], excluded: [], rules: [], version: versions.beta },
    });
  });

  it('sends segments even when there are none', async () => {
    const own = await server();
    const body = await snapshot(own, CAPABLE);
    expect(body.segments).toEqual({});
    expect(Object.keys(body.flags)).toEqual(['seeded']);
  });

  it('gives a plain flag byte for byte the form of the view without the capability', async () => {
    const capable = (await getFlags(t, CAPABLE)).text;
    const plain = (await getFlags(t)).text;
    const plainFlags = (JSON.parse(plain) as SdkSnapshot).flags;
    expect(Object.keys(plainFlags).sort()).toEqual(['plain-gate', 'seeded']);
    for (const [key, flag] of Object.entries(plainFlags)) {
      const bytes = `${JSON.stringify(key)}:${JSON.stringify(flag)}`;
      expect(plain).toContain(bytes);
      expect(capable).toContain(bytes);
    }
    expect(plainFlags['plain-gate']).toEqual({
      key: 'plain-gate',
      type: 'boolean',
      enabled: true,
      version: versions['plain-gate'],
    });
  });

  it('has its own ETag; each view answers 304 to its own tag and 200 to the other', async () => {
    const capable = await getFlags(t, CAPABLE);
    const plain = await getFlags(t);
    const { eventId } = JSON.parse(plain.text) as SdkSnapshot;
    const capableTag = capable.res.headers.get('etag')!;
    const plainTag = plain.res.headers.get('etag')!;
    expect(capableTag).toBe(`"${eventId}:targeting"`);
    expect(plainTag).toBe(`"${eventId}"`);

    const capable304 = await getFlags(t, { ...CAPABLE, 'if-none-match': capableTag });
    expect(capable304.res.status).toBe(304);
    expect(capable304.text).toBe('');
    expect(capable304.res.headers.get('etag')).toBe(capableTag);
    const plain304 = await getFlags(t, { 'if-none-match': plainTag });
    expect(plain304.res.status).toBe(304);
    expect(plain304.res.headers.get('etag')).toBe(plainTag);

    const crossed = await getFlags(t, { ...CAPABLE, 'if-none-match': plainTag });
    expect(crossed.res.status).toBe(200);
    expect(crossed.text).toBe(capable.text);
    const crossedBack = await getFlags(t, { 'if-none-match': capableTag });
    expect(crossedBack.res.status).toBe(200);
    expect(crossedBack.text).toBe(plain.text);

    // A change moves both tags.
    await write(t, 'PATCH', '/flags/banner', { enabled: false });
    expect((await getFlags(t, { ...CAPABLE, 'if-none-match': capableTag })).res.status).toBe(200);
    expect((await getFlags(t, { 'if-none-match': plainTag })).res.status).toBe(200);
  });

  it('answers Vary: Authorization, Accept-Encoding, X-Flagwire-Capabilities in both views, 200 and 304', async () => {
    for (const headers of [CAPABLE, {}]) {
      const ok = await getFlags(t, headers);
      expect(ok.res.headers.get('vary')).toBe(VARY);
      const notModified = await getFlags(t, { ...headers, 'if-none-match': ok.res.headers.get('etag')! });
      expect(notModified.res.status).toBe(304);
      expect(notModified.res.headers.get('vary')).toBe(VARY);
    }
  });

  it('compresses a capable body as the plain one, under the same tag and Vary', async () => {
    const own = await server();
    const included = Array.from({ length: 200 }, (_, i) => `user-${i}`);
    await write(own, 'POST', '/segments', { key: 'many', included });
    const raw = (headers: Record<string, string>) =>
      new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
        const req = request(`${own.server.url}/sdk/flags`, { headers: { ...auth, ...headers } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
          );
        });
        req.on('error', reject);
        req.end();
      });
    const identity = await raw(CAPABLE);
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.body.length).toBeGreaterThan(1024);
    const br = await raw({ ...CAPABLE, 'accept-encoding': 'gzip, br' });
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body).equals(identity.body)).toBe(true);
    expect(br.headers.etag).toBe(identity.headers.etag);
    expect(br.headers.etag).toMatch(/:targeting"$/);
    expect(br.headers.vary).toBe(VARY);
    // The plain body stays small and as it is.
    const plain = await raw({ 'accept-encoding': 'gzip, br' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(plain.body.toString('utf8'))).not.toHaveProperty('segments');
  });
});

describe('matches clauses carry the program their pattern compiles to (§12.6)', () => {
  const clause = {
    attribute: 'email',
    op: 'matches',
    values: ['^[a-z]+@corp\\.example$'],
    caseInsensitive: true,
  };
  const program = toWire(parse('^[a-z]+@corp\\.example$', true));

  it('in flags and segments of the snapshot and the stream, and nowhere in the management API', async () => {
    const t = await server();
    const reader = await stream(t, CAPABLE);
    expect((await next(reader)).event).toBe('flags:sync');
    await write(t, 'POST', '/segments', { key: 'corp', rules: [{ clauses: [clause] }] });
    await write(t, 'POST', '/flags', {
      key: 'corp-only',
      type: 'boolean',
      rules: [{ id: 'corp', clauses: [clause], serve: { variant: 'on' } }],
    });
    const segmentFrame = JSON.parse((await next(reader)).data);
    const flagFrame = JSON.parse((await next(reader)).data);
    expect(segmentFrame.rules[0].clauses[0]).toEqual({ ...clause, program });
    expect(flagFrame.rules[0].clauses[0]).toEqual({ ...clause, program });
    const body = await snapshot(t, CAPABLE);
    expect(body.segments!.corp!.rules[0]!.clauses[0]).toEqual({ ...clause, program });
    expect(body.flags['corp-only']!.rules![0]!.clauses[0]).toEqual({ ...clause, program });
    // What was written is what the management API shows: no program.
    const managed = (await (await t.api('GET', '/flags/corp-only')).json()) as {
      rules: Array<{ clauses: unknown[] }>;
    };
    expect(managed.rules[0]!.clauses[0]).toEqual(clause);
    const segment = (await (await t.api('GET', '/segments/corp')).json()) as {
      rules: Array<{ clauses: unknown[] }>;
    };
    expect(segment.rules[0]!.clauses[0]).toEqual(clause);
  });

  it('refuses a program given in a write, as any field a clause does not have', async () => {
    const t = await server();
    const res = await t.api('POST', '/flags', {
      key: 'sneaky',
      type: 'boolean',
      rules: [{ id: 'r', clauses: [{ ...clause, program }], serve: { variant: 'on' } }],
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'VALIDATION_ERROR' });
  });
});

describe('the capable stream beside the plain one', () => {
  it('sends one frame per revision to each: full forms and segments:updated with, deletions and markers without', async () => {
    const t = await server();
    const capable = await stream(t, CAPABLE);
    const plain = await stream(t);
    const capableSync = await next(capable);
    const plainSync = await next(plain);
    expect(capableSync.event).toBe('flags:sync');
    expect(plainSync.event).toBe('flags:sync');
    expect(capableSync.id).toBe(plainSync.id);
    const base = JSON.parse(capableSync.data) as SdkSnapshot;
    expect(base.segments).toEqual({});
    const { epoch } = base;
    let revision = base.revision;

    /** Makes one change; answers the frame each stream got for it, checking both ids. */
    const change = async (method: string, path: string, body?: unknown) => {
      await write(t, method, path, body);
      revision += 1;
      const got = { capable: await next(capable), plain: await next(plain) };
      expect(got.capable.id).toBe(`${epoch}:${revision}`);
      expect(got.plain.id).toBe(`${epoch}:${revision}`);
      return {
        capable: {
          event: got.capable.event,
          data: JSON.parse(got.capable.data) as unknown,
          raw: got.capable.data,
        },
        plain: { event: got.plain.event, data: JSON.parse(got.plain.data) as unknown, raw: got.plain.data },
      };
    };
    const plainDeletion = (key: string) => ({
      event: 'flags:updated',
      data: { key, type: 'boolean', enabled: false, version: revision, deleted: true },
    });
    const segmentsMarker = () => ({
      event: 'flags:updated',
      data: { key: '$segments', type: 'boolean', enabled: false, version: revision, deleted: true },
    });
    const pick = ({ event, data }: { event: string; data: unknown }) => ({ event, data });

    // A string flag: created, updated, deleted.
    const greeting = {
      key: 'greeting',
      type: 'string',
      variants: { hi: 'Hello', yo: 'Yo' },
      offVariant: 'hi',
      fallthrough: { variant: 'hi' },
    };
    let frames = await change('POST', '/flags', greeting);
    expect(pick(frames.capable)).toEqual({
      event: 'flags:updated',
      data: { ...greeting, enabled: false, version: revision },
    });
    expect(Object.keys(frames.capable.data as object)).toEqual([
      'key',
      'type',
      'enabled',
      'version',
      'variants',
      'offVariant',
      'fallthrough',
    ]);
    expect(pick(frames.plain)).toEqual(plainDeletion('greeting'));

    frames = await change('PATCH', '/flags/greeting', { enabled: true, fallthrough: { variant: 'yo' } });
    expect(pick(frames.capable)).toEqual({
      event: 'flags:updated',
      data: { ...greeting, enabled: true, fallthrough: { variant: 'yo' }, version: revision },
    });
    expect(pick(frames.plain)).toEqual(plainDeletion('greeting'));

    // A boolean flag: plain (the same bytes in both), then gaining a rule.
    frames = await change('POST', '/flags', { key: 'gate', type: 'boolean' });
    expect(pick(frames.capable)).toEqual({
      event: 'flags:updated',
      data: { key: 'gate', type: 'boolean', enabled: false, version: revision },
    });
    expect(frames.plain.raw).toBe(frames.capable.raw);
    expect(frames.plain.event).toBe('flags:updated');

    const rule = {
      id: 'nz',
      clauses: [{ attribute: 'country', op: 'in', values: ['NZ'] }],
      serve: { variant: 'on' },
    };
    frames = await change('PATCH', '/flags/gate', { rules: [rule] });
    expect(pick(frames.capable)).toEqual({
      event: 'flags:updated',
      data: { key: 'gate', type: 'boolean', enabled: false, version: revision, rules: [rule] },
    });
    expect(pick(frames.plain)).toEqual(plainDeletion('gate'));

    // A segment: created, updated, deleted.
    frames = await change('POST', '/segments', { key: 'beta', description: 'not sent', included: ['ann'] });
    expect(pick(frames.capable)).toEqual({
      event: 'segments:updated',
      data: { key: 'beta', included: ['ann'], excluded: [], rules: [], version: revision },
    });
    expect(pick(frames.plain)).toEqual(segmentsMarker());

    const segmentRules = [{ clauses: [{ attribute: 'plan', op: 'in', values: ['pro'] }] }];
    frames = await change('PATCH', '/segments/beta', { excluded: ['bob'], rules: segmentRules });
    expect(pick(frames.capable)).toEqual({
      event: 'segments:updated',
      data: { key: 'beta', included: ['ann'], excluded: ['bob'], rules: segmentRules, version: revision },
    });
    expect(pick(frames.plain)).toEqual(segmentsMarker());

    frames = await change('DELETE', '/segments/beta');
    expect(pick(frames.capable)).toEqual({
      event: 'segments:updated',
      data: { key: 'beta', version: revision, deleted: true },
    });
    expect(pick(frames.plain)).toEqual(segmentsMarker());

    // Deletions keep the flag's own type (and a rollout flag's percentage) with the capability.
    frames = await change('DELETE', '/flags/greeting');
    expect(pick(frames.capable)).toEqual({
      event: 'flags:updated',
      data: { key: 'greeting', type: 'string', enabled: false, version: revision, deleted: true },
    });
    expect(pick(frames.plain)).toEqual(plainDeletion('greeting'));

    await change('POST', '/flags', { key: 'ramp', type: 'rollout', percentage: 40, salt: 'ramp-v2' });
    frames = await change('DELETE', '/flags/ramp');
    const rampDeletion = {
      key: 'ramp',
      type: 'rollout',
      enabled: false,
      percentage: 40,
      version: revision,
      deleted: true,
    };
    expect(pick(frames.capable)).toEqual({ event: 'flags:updated', data: rampDeletion });
    expect(pick(frames.plain)).toEqual({ event: 'flags:updated', data: rampDeletion });

    // Both views end where a fresh snapshot of each is.
    const capableNow = await snapshot(t, CAPABLE);
    expect(capableNow.revision).toBe(revision);
    expect(Object.keys(capableNow.flags).sort()).toEqual(['gate', 'seeded']);
    expect(capableNow.segments).toEqual({});
    expect(Object.keys((await snapshot(t)).flags)).toEqual(['seeded']);
  });

  it('resumes with Last-Event-ID across flags:updated and segments:updated frames without a gap', async () => {
    const t = await server();
    const from = await snapshot(t, CAPABLE);
    await write(t, 'POST', '/flags', { key: 'one', type: 'string', variants: { a: 'A' } });
    await write(t, 'POST', '/segments', { key: 'seg', included: ['ann'] });
    await write(t, 'PATCH', '/flags/one', { enabled: true });
    await write(t, 'DELETE', '/segments/seg');

    const resumed = await stream(t, { ...CAPABLE, 'last-event-id': from.eventId });
    const missed = [await next(resumed), await next(resumed), await next(resumed), await next(resumed)];
    expect(missed.map((e) => e.event)).toEqual([
      'flags:updated',
      'segments:updated',
      'flags:updated',
      'segments:updated',
    ]);
    expect(missed.map(revisionOf)).toEqual([1, 2, 3, 4].map((n) => from.revision + n));
    expect(missed.map((e) => JSON.parse(e.data).key)).toEqual(['one', 'seg', 'one', 'seg']);
    expect(JSON.parse(missed[3]!.data)).toEqual({ key: 'seg', version: from.revision + 4, deleted: true });
    // Then live changes, the next revision: no sync, nothing repeated.
    await write(t, 'POST', '/segments', { key: 'live', included: ['cy'] });
    const live = await next(resumed);
    expect(live.event).toBe('segments:updated');
    expect(revisionOf(live)).toBe(from.revision + 5);
    resumed.close();

    // From a segment frame in the middle, by the query string (clients that cannot set headers).
    const query = `?capabilities=targeting&lastEventId=${encodeURIComponent(missed[1]!.id!)}`;
    const middle = await stream(t, {}, `/sdk/events${query}`);
    const after = [await next(middle), await next(middle), await next(middle)];
    expect(after.map(revisionOf)).toEqual([3, 4, 5].map((n) => from.revision + n));
    expect(after.map((e) => e.event)).toEqual(['flags:updated', 'segments:updated', 'segments:updated']);
    middle.close();

    // The view without the capability resumes from the same id with a frame for each revision.
    const plain = await stream(t, { 'last-event-id': from.eventId });
    const plainMissed = await Promise.all([1, 2, 3, 4, 5].map(() => next(plain)));
    expect(plainMissed.map(revisionOf)).toEqual([1, 2, 3, 4, 5].map((n) => from.revision + n));
    expect(plainMissed.every((e) => e.event === 'flags:updated')).toBe(true);
    expect(plainMissed.map((e) => JSON.parse(e.data).key)).toEqual([
      'one',
      '$segments',
      'one',
      '$segments',
      '$segments',
    ]);
    plain.close();

    // Current: nothing is sent until the next change.
    const current = await stream(t, { ...CAPABLE, 'last-event-id': `${from.epoch}:${from.revision + 5}` });
    await write(t, 'PATCH', '/flags/one', { enabled: false });
    const first = await next(current);
    expect(first.event).toBe('flags:updated');
    expect(revisionOf(first)).toBe(from.revision + 6);
    current.close();
  });

  it('sends a flags:sync carrying the segments on a fresh connect, and for an id it cannot resume', async () => {
    const t = await server();
    await write(t, 'POST', '/segments', { key: 'staff', included: ['ann'] });
    await write(t, 'POST', '/flags', {
      key: 'banner',
      type: 'string',
      variants: { blue: 'b', red: 'r' },
      rules: [{ clauses: [{ op: 'inSegment', values: ['staff'] }], serve: { variant: 'blue' } }],
    });
    const expected = await snapshot(t, CAPABLE);
    expect(Object.keys(expected.segments!)).toEqual(['staff']);
    for (const lastEventId of [undefined, 'another-epoch:1', `${expected.epoch}:${expected.revision + 10}`]) {
      const reader = await stream(t, {
        ...CAPABLE,
        ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
      });
      const sync = await next(reader);
      expect(sync.event).toBe('flags:sync');
      expect(sync.retry).toBe(1000);
      expect(sync.id).toBe(expected.eventId);
      expect(JSON.parse(sync.data)).toEqual(expected);
      reader.close();
    }
    // Without the capability, at the same revision: no segments, no targeting flag.
    const plain = await stream(t);
    const sync = await next(plain);
    expect(sync.id).toBe(expected.eventId);
    expect(JSON.parse(sync.data)).toEqual({
      revision: expected.revision,
      epoch: expected.epoch,
      eventId: expected.eventId,
      flags: { seeded: expected.flags.seeded },
    });
    plain.close();
  });
});
