/**
 * Failure shapes a real server cannot easily produce, made with msw: malformed bodies,
 * bursts of 500s, bodies that trickle, garbage on the stream. The client must degrade to
 * last-known values, never throw from evaluation, and recover.
 */
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SdkSnapshot } from '../../../src/core/types.js';
import { createClient, type FlagwireClient, type FlagwireError } from '../../../src/index.js';
import { whenTrue } from '../../helpers/wait.js';

const BASE = 'http://flagwire.test/api/v1';
const snapshot = (revision: number, enabled: boolean): SdkSnapshot => ({
  epoch: 'E',
  revision,
  eventId: `E:${revision}`,
  flags: { f: { key: 'f', type: 'boolean', enabled, version: revision } },
});

/** An SSE response whose frames are given, then held open. */
function sse(frames: string[]): HttpResponse<ReadableStream> {
  const encoder = new TextEncoder();
  const body = new ReadableStream({
    start(controller) {
      for (const frame of frames) controller.enqueue(encoder.encode(frame));
    },
  });
  return new HttpResponse(body, { headers: { 'content-type': 'text/event-stream' } });
}

const mock = setupServer();
beforeAll(() => mock.listen({ onUnhandledRequest: 'error' }));
afterAll(() => mock.close());
const clients: FlagwireClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  mock.resetHandlers();
});

function client(overrides: Partial<Parameters<typeof createClient>[0]> = {}): FlagwireClient {
  const c = createClient({
    baseUrl: BASE,
    apiKey: 'fw_live_MockMockMockMockMockMockMockMock',
    logger: false,
    initialRetryDelayMs: 10,
    maxRetryDelayMs: 50,
    timeoutMs: 500,
    ...overrides,
  });
  clients.push(c);
  return c;
}

describe('client against failure shapes', () => {
  it('recovers from a burst of 500s on the snapshot', async () => {
    let calls = 0;
    mock.use(
      http.get(`${BASE}/sdk/flags`, () => {
        calls++;
        if (calls <= 4)
          return HttpResponse.json({ error: 'INTERNAL_ERROR', message: 'boom' }, { status: 500 });
        return HttpResponse.json(snapshot(1, true));
      }),
      http.get(`${BASE}/sdk/events`, () => sse([])),
    );
    const c = client();
    const errors: FlagwireError[] = [];
    c.on('error', (e) => errors.push(e));
    await c.ready();
    expect(c.isEnabled('f', 'u')).toBe(true);
    expect(errors.slice(0, 4).map((e) => [e.code, e.status])).toEqual(Array(4).fill(['INTERNAL_ERROR', 500]));
  });

  it('treats a malformed snapshot body as a failed load and retries', async () => {
    let calls = 0;
    mock.use(
      http.get(`${BASE}/sdk/flags`, () => {
        calls++;
        if (calls === 1)
          return new HttpResponse('{"revision": 1, "flags": {', {
            headers: { 'content-type': 'application/json' },
          });
        if (calls === 2) return HttpResponse.json({ revision: 'x', flags: [] });
        return HttpResponse.json(snapshot(1, true));
      }),
      http.get(`${BASE}/sdk/events`, () => sse([])),
    );
    const c = client();
    const codes: string[] = [];
    c.on('error', (e) => codes.push(e.code));
    await c.ready();
    expect(codes.slice(0, 2)).toEqual(['INVALID_RESPONSE', 'INVALID_RESPONSE']);
    expect(c.isEnabled('f', 'u')).toBe(true);
  });

  it('times out a body that trickles and retries', async () => {
    let calls = 0;
    mock.use(
      http.get(`${BASE}/sdk/flags`, () => {
        calls++;
        if (calls === 1) {
          // Headers at once, then the body never finishes.
          const body = new ReadableStream({
            start(controller) {
              controller.enqueue(new TextEncoder().encode('{"epoch":"E",'));
            },
          });
          return new HttpResponse(body, { headers: { 'content-type': 'application/json' } });
        }
        return HttpResponse.json(snapshot(1, true));
      }),
      http.get(`${BASE}/sdk/events`, () => sse([])),
    );
    const c = client({ timeoutMs: 100 });
    const codes: string[] = [];
    c.on('error', (e) => codes.push(e.code));
    await c.ready();
    expect(codes[0]).toBe('TIMEOUT');
    expect(calls).toBe(2);
  });

  it('survives garbage on the stream: ignores it, reloads the snapshot, keeps last-known values', async () => {
    let snapshots = 0;
    mock.use(
      http.get(`${BASE}/sdk/flags`, () => {
        snapshots++;
        return HttpResponse.json(snapshots === 1 ? snapshot(1, false) : snapshot(3, true));
      }),
      http.get(`${BASE}/sdk/events`, () =>
        sse([
          'id: E:2\nevent: flags:updated\ndata: {not json\n\n',
          'event: flags:sync\ndata: {"flags": 5}\n\n',
          'event: flags:updated\ndata: {"key":"f"}\n\n',
        ]),
      ),
    );
    const c = client();
    await c.ready();
    expect(() => c.isEnabled('f', 'u')).not.toThrow();
    await whenTrue(c, () => c.isEnabled('f', 'u'));
    expect(c.status().revision).toBe(3);
  });

  it('never goes backwards: an older or repeated update does not win', async () => {
    mock.use(
      http.get(`${BASE}/sdk/flags`, () => HttpResponse.json(snapshot(5, true))),
      http.get(`${BASE}/sdk/events`, () =>
        sse([
          'id: E:4\nevent: flags:updated\ndata: {"key":"f","type":"boolean","enabled":false,"version":4}\n\n',
          'id: E:5\nevent: flags:updated\ndata: {"key":"f","type":"boolean","enabled":false,"version":5}\n\n',
          'id: E:6\nevent: flags:updated\ndata: {"key":"g","type":"boolean","enabled":true,"version":6}\n\n',
        ]),
      ),
    );
    const c = client();
    await c.ready();
    await whenTrue(c, () => c.isEnabled('g', 'u'));
    expect(c.isEnabled('f', 'u')).toBe(true);
  });

  it('stops for good on a 403 from the stream', async () => {
    mock.use(
      http.get(`${BASE}/sdk/flags`, () => HttpResponse.json(snapshot(1, true))),
      http.get(`${BASE}/sdk/events`, () =>
        HttpResponse.json({ error: 'FORBIDDEN', message: 'no' }, { status: 403 }),
      ),
    );
    const c = client();
    const failed = new Promise<FlagwireError>((resolve) => c.on('error', resolve));
    await c.ready();
    expect(await failed).toMatchObject({ code: 'FORBIDDEN', status: 403 });
    expect(c.status().state).toBe('failed');
    expect(c.isEnabled('f', 'u')).toBe(true);
  });

  it('reads Retry-After of a 503 into the error, and comes back once the server takes it', async () => {
    let calls = 0;
    mock.use(
      http.get(`${BASE}/sdk/flags`, () => {
        calls++;
        if (calls === 1) {
          return HttpResponse.json(
            { error: 'SERVICE_UNAVAILABLE', message: 'busy' },
            { status: 503, headers: { 'retry-after': '0' } },
          );
        }
        return HttpResponse.json(snapshot(1, true));
      }),
      http.get(`${BASE}/sdk/events`, () => sse([])),
    );
    const c = client();
    const errors: FlagwireError[] = [];
    c.on('error', (e) => errors.push(e));
    await c.ready();
    expect(errors[0]).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', retryAfterMs: 0 });
    expect(c.isEnabled('f', 'u')).toBe(true);
  });
});
