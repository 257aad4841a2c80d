/**
 * The ping, retry and slow-reader options on OFREP's stream (`docs/protocol.md` §11.4) and the
 * dashboard's (§10.5), as on the SDK's (§5.3): first on the stream classes over a real
 * `node:http` server (a client that stops reading is cut), then through `startServer`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AdminEvents } from '../../../server/dashboard/events.js';
import { OfrepStreams } from '../../../server/ofrep/stream.js';
import type { Grant, KeyRing } from '../../../server/state/admin/key-ring.js';
import type { FlagCommit } from '../../../server/state/flags/ops.js';
import { SseGroup } from '../../../server/stream/channel.js';
import { adminCaller } from '../../helpers/admin.js';
import { type Client, closeServed, connect, serve } from '../../helpers/raw-stream.js';
import { KEYS, startTestServer, type TestServer, type TestServerOptions } from '../../helpers/server.js';

afterEach(closeServed);

const env = { id: 'p/e', epoch: 'E' };
const grant = { env, id: 'key-1' } as unknown as Grant;
const change = (revision: number) =>
  ({ env, revision, before: null, after: { key: 'some-flag' } }) as unknown as FlagCommit;
const count = (text: string, part: string) => text.split(part).length - 1;
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('OFREP’s stream over the SSE channel', () => {
  const open = async (options: ConstructorParameters<typeof OfrepStreams>[2]) => {
    const streams = new OfrepStreams('secret', {} as KeyRing, options);
    const url = await serve((req, res) => streams.subscribe(grant, req, res, { 'x-cors': 'yes' }));
    return { streams, url };
  };

  it('opens with the retry option and pings as comments every pingIntervalMs', async () => {
    const { streams, url } = await open({ retryMs: 2345, pingIntervalMs: 10 });
    const client = await connect(url);
    expect(client.res.headers).toMatchObject({
      'x-cors': 'yes',
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
    });
    await client.until((text) => count(text, ': ping\n\n') >= 2);
    expect(client.text().startsWith('retry: 2345\n\n: ping\n\n')).toBe(true);
    streams.close();
    await client.ended;
  });

  it('cuts a stream that stops reading past maxBufferedBytes', async () => {
    const { streams, url } = await open({ maxBufferedBytes: 32 * 1024, pingIntervalMs: 60_000 });
    await connect(url, { paused: true });
    expect(streams.size).toBe(1);
    let revision = 0;
    while (streams.size > 0) {
      for (let i = 0; i < 100; i++) streams.changed(change(++revision));
      await turn();
    }
    expect(streams.size).toBe(0);
  });
});

describe('the dashboard’s stream over the SSE channel', () => {
  const open = async (options: ConstructorParameters<typeof AdminEvents>[1]) => {
    const events = new AdminEvents(() => ({ 'p/e': 3 }), options);
    const url = await serve((req, res) => events.subscribe(req, res));
    return { events, url };
  };

  it('opens with the retry option and the counts, and pings every pingIntervalMs', async () => {
    const { events, url } = await open({ retryMs: 777, pingIntervalMs: 10 });
    const client = await connect(url);
    await client.until((text) => count(text, 'event: ping\ndata: {}\n\n') >= 2);
    expect(client.text().startsWith('retry: 777\nevent: streams\ndata: {"p/e":3}\n\n')).toBe(true);
    events.close();
    await client.ended;
  });

  it('cuts a stream that stops reading past maxBufferedBytes (it had no bound before)', async () => {
    const { events, url } = await open({ maxBufferedBytes: 32 * 1024, pingIntervalMs: 60_000 });
    await connect(url, { paused: true });
    expect(events.size).toBe(1);
    let revision = 0;
    while (events.size > 0) {
      for (let i = 0; i < 100; i++) events.change(change(++revision));
      await turn();
    }
    expect(events.size).toBe(0);
  });

  it('does not count against maxStreams, where OFREP’s streams do, in one shared group', async () => {
    const group = new SseGroup({ maxStreams: 1 });
    const events = new AdminEvents(() => ({}), { group });
    const ofrep = new OfrepStreams('secret', {} as KeyRing, { group });
    const url = await serve((req, res) =>
      req.url === '/admin' ? events.subscribe(req, res) : ofrep.subscribe(grant, req, res, {}),
    );
    await connect(`${url}/admin`);
    expect(ofrep.full).toBe(false);
    await connect(`${url}/ofrep`);
    expect(ofrep.full).toBe(true);
    group.close();
  });
});

describe('through startServer', () => {
  let t: TestServer | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });
  const start = async (options: TestServerOptions) => {
    t = await startTestServer(options);
    return t.server.url;
  };

  async function ofrepStream(url: string): Promise<Client> {
    const bulk = await fetch(`${url}/ofrep/v1/evaluate/flags`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEYS.acmeProdRead}`, 'content-type': 'application/json' },
      body: '{}',
    });
    return connect(`${url}${(await bulk.json()).eventStreams[0].endpoint.requestUri}`);
  }

  async function adminStream(url: string): Promise<Client> {
    const admin = await adminCaller(t!.server);
    return connect(`${url}/admin/api/events`, { headers: { cookie: admin.cookie } });
  }

  /** Whether the server cut the stream: refused mid-head, or ended once opened. */
  const cut = (opening: Promise<Client>) =>
    opening.then(
      (client) => client.ended.then(() => true),
      () => true,
    );

  // A bound below the bytes a stream opens with cuts it as it opens; a reader that stops
  // reading is cut the same way once the kernel's buffers are full (above, and test/sse-channel).
  it('cuts OFREP’s stream past streamMaxBufferedBytes', async () => {
    const url = await start({ streamMaxBufferedBytes: 8 });
    expect(await cut(ofrepStream(url))).toBe(true);
  });

  it('pings on OFREP’s stream every pingIntervalMs and opens it with streamRetryMs', async () => {
    const client = await ofrepStream(await start({ pingIntervalMs: 10, streamRetryMs: 2345 }));
    await client.until((text) => count(text, ': ping\n\n') >= 2);
    expect(client.text().startsWith('retry: 2345\n\n')).toBe(true);
    client.destroy();
  });

  it('pings on the dashboard’s stream every pingIntervalMs and opens it with streamRetryMs', async () => {
    const client = await adminStream(await start({ pingIntervalMs: 10, streamRetryMs: 777 }));
    await client.until((text) => count(text, 'event: ping\ndata: {}\n\n') >= 2);
    expect(client.text().startsWith('retry: 777\nevent: streams\n')).toBe(true);
    client.destroy();
  });

  it('cuts the dashboard’s stream past streamMaxBufferedBytes', async () => {
    const url = await start({ streamMaxBufferedBytes: 8 });
    expect(await cut(adminStream(url))).toBe(true);
  });

  it('keeps both streams open with the default bound', async () => {
    const url = await start({});
    const ofrep = await ofrepStream(url);
    const admin = await adminStream(url);
    await ofrep.until((text) => text.startsWith('retry: 1000\n\n'));
    await admin.until((text) => text.includes('event: streams\n'));
    await t!.api('PATCH', '/flags/seeded', { description: 'moved' });
    await ofrep.until((text) => text.includes('refetchEvaluation'));
    await admin.until((text) => text.includes('event: change\n'));
    ofrep.destroy();
    admin.destroy();
  });
});
