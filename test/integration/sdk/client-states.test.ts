/**
 * The client's loop as a state machine (`src/client/sync-loop.ts`, `docs/protocol.md` §9): the
 * `status` events it emits follow the diagram's transitions, and nothing leaves `closed`.
 * Made with msw, so each answer is chosen.
 */
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SdkSnapshot } from '../../../src/core/types.js';
import { createClient, type FlagwireClient, type FlagwireError } from '../../../src/index.js';
import { whenState } from '../../helpers/wait.js';

const BASE = 'http://flagwire.test/api/v1';
const snapshot: SdkSnapshot = {
  epoch: 'E',
  revision: 1,
  eventId: 'E:1',
  flags: { f: { key: 'f', type: 'boolean', enabled: true, version: 1 } },
};

/** An SSE response held open, with a ping. */
const sse = () =>
  new HttpResponse(
    new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('event: ping\ndata: {}\n\n'));
      },
    }),
    { headers: { 'content-type': 'text/event-stream' } },
  );
const refused = (status: number) =>
  HttpResponse.json({ error: status === 401 ? 'UNAUTHORIZED' : 'INTERNAL_ERROR', message: 'no' }, { status });

const mock = setupServer();
beforeAll(() => mock.listen({ onUnhandledRequest: 'error' }));
afterAll(() => mock.close());
const clients: FlagwireClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  mock.resetHandlers();
});

/** A client with fast retries, and the states of its `status` events. */
function client(overrides: Partial<Parameters<typeof createClient>[0]> = {}) {
  const c = createClient({
    baseUrl: BASE,
    apiKey: 'fw_live_MockMockMockMockMockMockMockMock',
    logger: false,
    initialRetryDelayMs: 5,
    maxRetryDelayMs: 20,
    pollIntervalMs: 10,
    timeoutMs: 500,
    ...overrides,
  });
  clients.push(c);
  const states: string[] = [];
  c.on('status', (status) => states.push(status.state));
  return { c, states };
}

/**
 * Resolves once a control client, polling every 10 ms like the clients under test, has polled
 * `n` times: by then a client under test that were still running would have acted too. How a
 * test that asserts nothing more happens waits for an event rather than for a time.
 */
async function afterControlPolls(n: number): Promise<void> {
  const base = 'http://control.flagwire.test/api/v1';
  let polls = 0;
  let reached!: () => void;
  const done = new Promise<void>((resolve) => {
    reached = resolve;
  });
  mock.use(
    http.get(`${base}/sdk/flags`, () => {
      if (++polls === n) reached();
      return HttpResponse.json(snapshot);
    }),
  );
  const control = client({ baseUrl: base, stream: false }).c;
  control.start();
  await done;
  await control.close();
}

/** Counts the requests of each endpoint; `events(n)` answers the n-th stream request. */
function serve(
  events: (attempt: number) => Response,
  flags: () => Response = () => HttpResponse.json(snapshot),
) {
  const count = { flags: 0, events: 0 };
  mock.use(
    http.get(`${BASE}/sdk/flags`, () => {
      count.flags++;
      return flags();
    }),
    http.get(`${BASE}/sdk/events`, () => events(++count.events)),
  );
  return count;
}

describe('client states', () => {
  it('idle → connecting → connected', async () => {
    serve(sse);
    const { c, states } = client();
    expect(c.status().state).toBe('idle');
    await c.ready();
    await whenState(c, 'connected');
    expect(states).toEqual(['connecting', 'connected']);
  });

  it('a stream that fails: reconnecting, then polling after two failures in a row, then connected', async () => {
    const count = serve((attempt) => (attempt <= 2 ? refused(500) : sse()));
    const { c, states } = client();
    await c.ready();
    await whenState(c, 'connected');
    expect(states).toEqual(['connecting', 'reconnecting', 'polling', 'connected']);
    expect(count.events).toBe(3);
  });

  it('without pollWhileDisconnected, reconnecting until the stream is back', async () => {
    serve((attempt) => (attempt <= 3 ? refused(500) : sse()));
    const { c, states } = client({ pollWhileDisconnected: false });
    await c.ready();
    await whenState(c, 'connected');
    expect(states).toEqual(['connecting', 'reconnecting', 'connected']);
  });

  it('stream: false polls from the first load on, and never opens the stream', async () => {
    const count = serve(sse);
    const { c, states } = client({ stream: false });
    await c.ready();
    await whenState(c, 'polling');
    await expect.poll(() => count.flags).toBeGreaterThan(2);
    expect(states).toEqual(['connecting', 'polling']);
    expect(count.events).toBe(0);
  });

  it('a refused key on the stream: failed, and close() from there: closed', async () => {
    const count = serve(() => refused(401));
    const { c, states } = client();
    const failed = new Promise<FlagwireError>((resolve) => c.on('error', resolve));
    await c.ready();
    expect(await failed).toMatchObject({ code: 'UNAUTHORIZED' });
    expect(states).toEqual(['connecting', 'failed']);
    await c.close();
    await afterControlPolls(3);
    expect(states).toEqual(['connecting', 'failed', 'closed']);
    expect(count).toEqual({ flags: 1, events: 1 });
  });

  it('a refused key on the first load: failed, and ready() rejects', async () => {
    serve(sse, () => refused(401));
    const { c, states } = client();
    await expect(c.ready()).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    expect(states).toEqual(['connecting', 'failed']);
  });

  it('nothing leaves closed: close() from a ready listener of a polling client stops it', async () => {
    const count = serve(sse);
    const { c, states } = client({ stream: false });
    c.on('ready', () => void c.close());
    await c.ready();
    await afterControlPolls(5);
    expect(states).toEqual(['connecting', 'closed']);
    expect(c.status().state).toBe('closed');
    expect(count.flags).toBe(1);
  });

  it('close() while idle: closed, and start() does nothing after it', async () => {
    const count = serve(sse);
    const { c, states } = client();
    await c.close();
    c.start();
    await expect(c.ready()).rejects.toMatchObject({ code: 'CLIENT_CLOSED' });
    await afterControlPolls(2);
    expect(states).toEqual(['closed']);
    expect(count).toEqual({ flags: 0, events: 0 });
  });
});
