/**
 * The SDK's `text/event-stream` reader (`src/client/sse.ts`) against the WHATWG HTML standard's
 * rules for server-sent events: one case per rule, then a property that feeds random streams cut
 * at random byte boundaries and compares what is dispatched with `eventsource-parser` (a test
 * dependency only) fed the same text; last, the attempt that reads a stream with it
 * (`src/client/stream-attempt.ts`) over a stub `fetch`.
 *
 * Seeded: `PROPERTY_SEED=<n> npx vitest run test/unit/stream/sse-parser.test.ts` replays a run;
 * `PROPERTY_RUNS=<factor>` scales the run count.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ResolvedClientOptions, resolveClientOptions } from '../../../src/client/options.js';
import { sseReader } from '../../../src/client/sse.js';
import { openStream } from '../../../src/client/stream-attempt.js';
import type { FlagwireError } from '../../../src/errors.js';
import { params } from '../../helpers/property-seed.js';

interface Dispatched {
  type: string;
  data: string;
  lastEventId: string;
}

const utf8 = (text: string) => new TextEncoder().encode(text);

/** Feeds `chunks` (text, or bytes as they are) to a new reader: what it dispatched, and the `retry` values. */
function read(...chunks: Array<string | Uint8Array | number[]>): { events: Dispatched[]; retries: number[] } {
  const events: Dispatched[] = [];
  const retries: number[] = [];
  const feed = sseReader(
    (type, data, lastEventId) => events.push({ type, data, lastEventId }),
    (ms) => retries.push(ms),
  );
  for (const chunk of chunks) feed(typeof chunk === 'string' ? utf8(chunk) : Uint8Array.from(chunk));
  return { events, retries };
}

const events = (...chunks: Array<string | Uint8Array | number[]>) => read(...chunks).events;
const message = (data: string, lastEventId = '', type = 'message'): Dispatched => ({
  type,
  data,
  lastEventId,
});

/** Every way to cut `bytes` in two, three and (some) four pieces. */
function cuts(bytes: Uint8Array): Uint8Array[][] {
  const out: Uint8Array[][] = [[bytes]];
  for (let i = 0; i <= bytes.length; i++) {
    out.push([bytes.slice(0, i), bytes.slice(i)]);
    for (let j = i; j <= bytes.length; j++) out.push([bytes.slice(0, i), bytes.slice(i, j), bytes.slice(j)]);
  }
  // One byte at a time, with empty chunks between.
  out.push([...bytes].flatMap((b) => [Uint8Array.of(b), new Uint8Array(0)]));
  return out;
}

describe('sseReader: the HTML standard, rule by rule', () => {
  it('dispatches on a blank line: data lines joined with \\n, type message by default', () => {
    expect(events('data: a\ndata: b\n\ndata:c\n\n')).toEqual([message('a\nb'), message('c')]);
  });

  it('names the event with `event`; the type resets after each dispatch', () => {
    expect(events('event: flags:updated\ndata: 1\n\ndata: 2\n\nevent: ping\ndata\n\n')).toEqual([
      message('1', '', 'flags:updated'),
      message('2'),
      message('', '', 'ping'),
    ]);
  });

  it('resets the type even when nothing is dispatched (no data line), and an empty `event` is message', () => {
    expect(events('event: x\n\ndata: y\n\nevent:\ndata: z\n\n')).toEqual([message('y'), message('z')]);
  });

  it('takes a frame named `error` as one more event', () => {
    expect(events('event: error\ndata: {}\n\n')).toEqual([message('{}', '', 'error')]);
  });

  it('keeps the last event id from event to event, sets it from an event never dispatched, and `id` empty clears it', () => {
    expect(
      events('id: 1\ndata: a\n\ndata: b\n\nid: 2\n\ndata: c\n\nid\ndata: d\n\nid:\ndata: e\n\n'),
    ).toEqual([message('a', '1'), message('b', '1'), message('c', '2'), message('d', ''), message('e', '')]);
  });

  it('ignores an `id` that holds U+0000', () => {
    expect(events('id: 7\ndata: a\n\nid: 8\0\ndata: b\n\nid: \0\ndata: c\n\n')).toEqual([
      message('a', '7'),
      message('b', '7'),
      message('c', '7'),
    ]);
  });

  it('removes one space after the colon, no more, and none before it', () => {
    expect(events('data:  two\n\ndata:x\n\ndata: \n\ndata:\n\n data: no\n\n')).toEqual([
      message(' two'),
      message('x'),
      message(''),
      message(''),
    ]);
    expect(events('event:  spaced\ndata: a\n\nid:  9\ndata: b\n\n')).toEqual([
      message('a', '', ' spaced'),
      message('b', ' 9'),
    ]);
  });

  it('reads a line without a colon as a field with an empty value; a value may hold colons', () => {
    expect(events('data\n\ndata\ndata\n\ndata: a:b: c\n\n')).toEqual([
      message(''),
      message('\n'),
      message('a:b: c'),
    ]);
  });

  it('ignores comments, unknown fields and field names in another case', () => {
    expect(
      events(': hello\n:\n:data: x\nData: no\nEVENT: no\nx-flag: 1\nfoo\ndata: a\n: between\ndata: b\n\n'),
    ).toEqual([message('a\nb')]);
    expect(events(': only a comment\n\n')).toEqual([]);
  });

  it('dispatches nothing for a blank line without data, or blank lines in a row', () => {
    expect(events('\n\n\n\r\n\r\r')).toEqual([]);
    expect(events('id: 3\nevent: e\n\n\n')).toEqual([]);
  });

  it('parses `retry` when it is all ASCII digits, and ignores it otherwise', () => {
    const { events: dispatched, retries } = read(
      'retry: 1500\nretry:20\nretry: soon\nretry: -5\nretry: 1.5\nretry: 15 \nretry:\nretry\nretry: ١٢\nretry: 0\n\n',
    );
    expect(retries).toEqual([1500, 20, 0]);
    expect(dispatched).toEqual([]);
  });

  it('ends lines with LF, CRLF or CR, mixed', () => {
    const expected = [message('a\nb\nc'), message('d', '1', 'x')];
    expect(events('data: a\ndata: b\ndata: c\n\nevent: x\nid: 1\ndata: d\n\n')).toEqual(expected);
    expect(events('data: a\r\ndata: b\r\ndata: c\r\n\r\nevent: x\r\nid: 1\r\ndata: d\r\n\r\n')).toEqual(
      expected,
    );
    expect(events('data: a\rdata: b\rdata: c\r\revent: x\rid: 1\rdata: d\r\r')).toEqual(expected);
    expect(events('data: a\rdata: b\r\ndata: c\n\r\nevent: x\rid: 1\ndata: d\n\r')).toEqual(expected);
    // `\n\r` is two line ends, `\r\n` one: here a blank line ends `event: x` (nothing dispatched).
    expect(events('data: a\n\revent: x\n\rid: 1\r\ndata: d\r\n\r\n')).toEqual([
      message('a'),
      message('d', '1'),
    ]);
  });

  it('takes a CR that ends one chunk and an LF that starts the next for one line end', () => {
    // One line end each time: a second one would dispatch after `data: a`.
    expect(events('data: a\r', '\ndata: b\r', '\n\r', '\n')).toEqual([message('a\nb')]);
    // An empty chunk between them changes nothing.
    expect(events('data: a\r', new Uint8Array(0), '\ndata: b\r\n\r', '', '\n')).toEqual([message('a\nb')]);
    // A CR, then a CR: two line ends.
    expect(events('data: a\r', '\r')).toEqual([message('a')]);
  });

  it('dispatches on a CR that ends the chunk at once, without waiting for more bytes', () => {
    const dispatched: string[] = [];
    const feed = sseReader((_, data) => dispatched.push(data));
    feed(utf8('data: now\r\r'));
    expect(dispatched).toEqual(['now']);
    feed(utf8('\ndata: then\r'));
    feed(utf8('\r'));
    expect(dispatched).toEqual(['now', 'then']);
  });

  it('gives the same events however the bytes are cut (inside characters, inside CRLF, inside the BOM)', () => {
    const bytes = utf8('\uFEFFid: é:1\r\nevent: flags:updated\r\ndata: {"k":"€😀中"}\r\r\ndata: 2\r\n\n');
    const expected = [message('{"k":"€😀中"}', 'é:1', 'flags:updated'), message('2', 'é:1')];
    for (const chunks of cuts(bytes)) expect(events(...chunks)).toEqual(expected);
  });

  it('decodes UTF-8 as a stream: a character cut between chunks is whole, invalid bytes are U+FFFD', () => {
    const euro = [...utf8('€')];
    expect(events('data: ', euro.slice(0, 1), euro.slice(1, 2), [...euro.slice(2), 10, 10])).toEqual([
      message('€'),
    ]);
    expect(events([...utf8('data: a'), 0xff, 0xc3, 0x28, 10, 10])).toEqual([message('a\uFFFD\uFFFD(')]);
  });

  it('drops one leading BOM, once, and only at the start', () => {
    expect(events('\uFEFFdata: a\n\n')).toEqual([message('a')]);
    expect(events([0xef], [0xbb], [0xbf], 'data: a\n\n')).toEqual([message('a')]);
    // A second BOM is part of the first field's name: `\uFEFFdata` is no field.
    expect(events('\uFEFF\uFEFFdata: a\n\ndata: b\n\n')).toEqual([message('b')]);
    expect(events('data: a\n\n', '\uFEFFdata: b\n\n')).toEqual([message('a')]);
    expect(events('data: \uFEFFa\n\n')).toEqual([message('\uFEFFa')]);
  });

  it('never dispatches an event that no blank line ends', () => {
    expect(events('data: a\n')).toEqual([]);
    expect(events('data: a\n\ndata: b')).toEqual([message('a')]);
    expect(events('data: a\n\ndata: b\ndata: c\n')).toEqual([message('a')]);
    expect(events('data: a\r\n\r')).toEqual([message('a')]);
  });

  it('keeps U+2028, U+2029, tabs and other controls inside a line', () => {
    expect(events('data: a\u2028b\u2029c\td\u000be\u000cf\u0085g\n\n')).toEqual([
      message('a\u2028b\u2029c\td\u000be\u000cf\u0085g'),
    ]);
  });
});

// ---------------------------------------------------------------- against eventsource-parser

/** Pieces of a stream: field names (right and wrong), separators, line ends, values, odd characters. */
const PIECES = [
  'data',
  'data:',
  'data: ',
  'event',
  'event:',
  'event: ',
  'id',
  'id:',
  'id: ',
  'retry',
  'retry:',
  'retry: ',
  'Data:',
  'ev',
  ':',
  ': ',
  ' ',
  '  ',
  '\n',
  '\n',
  '\n',
  '\r',
  '\r\n',
  '\n\n',
  '\r\r',
  '\r\n\r\n',
  'x',
  'flags:updated',
  'ping',
  '12',
  '0',
  '-3',
  '\0',
  '\t',
  'é',
  '€',
  '😀',
  '中',
  '\uFEFF',
  '\u2028',
] as const;

/** A value: pieces (separators, line ends and odd characters included), sometimes an invalid byte. */
const piecesArb = (maxLength: number) =>
  fc.array(fc.oneof({ weight: 20, arbitrary: fc.constantFrom(...PIECES) }, fc.constant(0xff)), { maxLength });

/** A line as a server would write one: a name, a colon or not, a space or two, a value, a line end. */
const lineArb = fc
  .tuple(
    fc.constantFrom('data', 'data', 'data', 'event', 'id', 'id', 'retry', '', 'Data', 'x', ' data'),
    fc.constantFrom('', ':', ': ', ':  '),
    fc.oneof(piecesArb(4), fc.constantFrom(['1'], ['E:12'], ['7', '\0'], [], ['flags:updated'])),
    fc.constantFrom('\n', '\n', '\r\n', '\r', '\n\n', '\r\n\r\n', '\r\r', '\n\r'),
  )
  .map(([name, colon, value, end]) => [name, colon, ...value, end]);

/** A stream's bytes: random pieces, or lines of fields, or both; a BOM first, sometimes. */
const streamArb = fc
  .tuple(
    fc.boolean(),
    fc.oneof(
      piecesArb(80),
      fc.array(lineArb, { maxLength: 20 }).map((lines) => lines.flat()),
      fc.array(fc.oneof(lineArb, piecesArb(3)), { maxLength: 20 }).map((parts) => parts.flat()),
    ),
  )
  .map(([bom, pieces]) => {
    const bytes: number[] = bom ? [0xef, 0xbb, 0xbf] : [];
    for (const piece of pieces) bytes.push(...(typeof piece === 'number' ? [piece] : utf8(piece)));
    return Uint8Array.from(bytes);
  });

/** Cuts `bytes` at `at` (positions modulo its length + 1), in order. */
function cutAt(bytes: Uint8Array, at: number[]): Uint8Array[] {
  const points = [...new Set(at.map((n) => n % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const point of [...points, bytes.length]) {
    chunks.push(bytes.slice(from, point));
    from = point;
  }
  return chunks;
}

/**
 * What the standard dispatches for `text` (decoded, its BOM dropped), by `eventsource-parser`:
 * the text is cut into lines here (CRLF, LF, CR) and each line is fed with an LF. The parser
 * reports an event's own `id` only (and forgets one set in an event it never dispatches), so the
 * last event id is followed here: a fresh parser tells, for each line, whether it sets the id.
 */
function oracle(text: string): { events: Dispatched[]; retries: number[] } {
  const events: Dispatched[] = [];
  const retries: number[] = [];
  let lastEventId = '';
  const parser = createParser({
    onEvent: (event: EventSourceMessage) =>
      events.push({ type: event.event ?? 'message', data: event.data, lastEventId }),
    onRetry: (ms) => retries.push(ms),
  });
  const lines = text.split(/\r\n|\r|\n/);
  // The last piece has no line end: never read.
  for (const line of lines.slice(0, -1)) {
    let id: string | undefined;
    createParser({
      onEvent: (event) => {
        id ??= event.id;
      },
    }).feed(`${line}\ndata\n\n`);
    if (id !== undefined) lastEventId = id;
    parser.feed(`${line}\n`);
  }
  return { events, retries };
}

describe('sseReader against eventsource-parser, random streams cut at random byte boundaries', () => {
  it('dispatches the same events (type, data, last event id) and the same retry values', () => {
    fc.assert(
      fc.property(streamArb, fc.array(fc.nat(), { maxLength: 20 }), (bytes, at) => {
        const text = new TextDecoder().decode(bytes);
        expect(read(...cutAt(bytes, at))).toEqual(oracle(text));
      }),
      params(1000),
    );
  });

  it('dispatches the same types and data as eventsource-parser fed the decoded text in chunks of its own', () => {
    fc.assert(
      fc.property(
        streamArb,
        fc.array(fc.nat(), { maxLength: 20 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        (bytes, at, textAt) => {
          const text = new TextDecoder().decode(bytes);
          const theirs: Array<{ type: string; data: string }> = [];
          const parser = createParser({
            onEvent: (event) => theirs.push({ type: event.event ?? 'message', data: event.data }),
          });
          // `eventsource-parser` holds a CR that ends its input (an LF may follow): an LF after the
          // last one makes it one line end, which it is for the reader.
          const input = text.endsWith('\r') ? `${text}\n` : text;
          const points = [...new Set(textAt.map((n) => n % (input.length + 1)))].sort((a, b) => a - b);
          let from = 0;
          for (const point of [...points, input.length]) {
            parser.feed(input.slice(from, point));
            from = point;
          }
          const ours = read(...cutAt(bytes, at)).events.map(({ type, data }) => ({ type, data }));
          expect(ours).toEqual(theirs);
        },
      ),
      params(1000),
    );
  });
});

// ---------------------------------------------------------------- the attempt around the reader

/** One attempt over a stub `fetch` that answers `answer`: the request it made, what it received, its failure. */
function attempt(answer: (signal: AbortSignal) => Response | Promise<Response>, lastEventId?: string) {
  const o = resolveClientOptions({
    baseUrl: 'http://flagwire.test/api/v1',
    apiKey: 'fw_live_SseSseSseSseSseSseSseSseSseSse00',
    logger: false,
    fetch: (async (url: string, init: RequestInit) => {
      requests.push({ url, headers: new Headers(init.headers), cache: init.cache });
      return answer(init.signal!);
    }) as typeof fetch,
  });
  const requests: Array<{ url: string; headers: Headers; cache: RequestCache | undefined }> = [];
  const received: Array<[string, { data: string; lastEventId: string }]> = [];
  let failed!: (error: FlagwireError) => void;
  const dropped = new Promise<FlagwireError>((resolve) => {
    failed = resolve;
  });
  const close = openStream(o, lastEventId, false, (name, event) => received.push([name, event]), failed);
  return { requests, received, dropped, close };
}

/** A body of `chunks`, then open (or ended, with `end`). */
function body(chunks: string[], end = false): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(utf8(chunk));
      if (end) controller.close();
    },
  });
}

const eventStream = (stream: ReadableStream<Uint8Array> | null, init: ResponseInit = {}) =>
  new Response(stream, { headers: { 'content-type': 'text/event-stream; charset=utf-8' }, ...init });

describe('openStream: one attempt, read by sseReader', () => {
  it('asks with the key, for an event stream, with the targeting capability and Last-Event-ID; then hands over open and each frame', async () => {
    const a = attempt(
      () =>
        eventStream(
          body([
            ': hi\nid: E:2\nevent: flags:updated\ndata: {"a":',
            '1}\n\nevent: error\ndata: {}\n\nevent: ping\ndata\n\n',
          ]),
        ),
      'E:1',
    );
    await expect.poll(() => a.received.length).toBe(4);
    a.close();
    expect(a.requests).toEqual([
      { url: 'http://flagwire.test/api/v1/sdk/events', headers: expect.any(Headers), cache: 'no-store' },
    ]);
    expect(Object.fromEntries(a.requests[0]!.headers)).toEqual({
      authorization: 'Bearer fw_live_SseSseSseSseSseSseSseSseSseSse00',
      accept: 'text/event-stream',
      'x-flagwire-capabilities': 'targeting',
      'last-event-id': 'E:1',
    });
    expect(a.received).toEqual([
      ['open', { data: '', lastEventId: '' }],
      ['flags:updated', { data: '{"a":1}', lastEventId: 'E:2' }],
      ['error', { data: '{}', lastEventId: 'E:2' }],
      ['ping', { data: '', lastEventId: 'E:2' }],
    ]);
  });

  it('sends no Last-Event-ID without one', async () => {
    const a = attempt(() => eventStream(body([])));
    await expect.poll(() => a.received.length).toBe(1);
    a.close();
    expect(a.requests[0]!.headers.has('last-event-id')).toBe(false);
  });

  it('fails with NETWORK_ERROR, once, when the body ends, and hands over nothing after', async () => {
    const a = attempt(() => eventStream(body(['data: a\n\ndata: cut'], true)));
    expect(await a.dropped).toMatchObject({ code: 'NETWORK_ERROR', message: expect.stringMatching(/ended/) });
    expect(a.received.map(([name, { data }]) => [name, data])).toEqual([
      ['open', ''],
      ['message', 'a'],
    ]);
  });

  it('fails with NETWORK_ERROR when the request fails, or the body fails while read', async () => {
    const refused = attempt(() => Promise.reject(new TypeError('fetch failed')));
    expect(await refused.dropped).toMatchObject({
      code: 'NETWORK_ERROR',
      message: expect.stringMatching(/fetch failed/),
    });
    const broken = attempt(() =>
      eventStream(
        new ReadableStream({
          pull: (controller) => controller.error(new Error('socket hang up')),
        }),
      ),
    );
    expect(await broken.dropped).toMatchObject({
      code: 'NETWORK_ERROR',
      message: expect.stringMatching(/socket hang up/),
    });
    expect(broken.received.map(([name]) => name)).toEqual(['open']);
  });

  it("fails a refusal with the answer's error (401, 403, 503 and its Retry-After), and a 200 that is no event stream", async () => {
    const refusal = (status: number, headers: Record<string, string> = {}) =>
      attempt(() => Response.json({ error: 'X', message: 'no' }, { status, headers })).dropped;
    expect(await refusal(401)).toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
    expect(await refusal(403)).toMatchObject({ code: 'FORBIDDEN', status: 403 });
    expect(await refusal(503, { 'retry-after': '7' })).toMatchObject({ status: 503, retryAfterMs: 7000 });
    const json = attempt(() => Response.json({}));
    expect(await json.dropped).toMatchObject({
      status: 200,
      message: expect.stringMatching(/text\/event-stream/),
    });
    expect(json.received).toEqual([]);
    const empty = attempt(() => eventStream(null, { status: 204 }));
    expect(await empty.dropped).toMatchObject({ status: 204 });
  });

  it('aborts the request and lets go of the body on close(), and fails nothing after', async () => {
    let signal!: AbortSignal;
    let cancelled = false;
    const a = attempt((s) => {
      signal = s;
      return eventStream(
        new ReadableStream({
          cancel: () => {
            cancelled = true;
          },
        }),
      );
    });
    await expect.poll(() => a.received.length).toBe(1);
    let dropped = false;
    void a.dropped.then(() => {
      dropped = true;
    });
    a.close();
    // The body's cancel runs once the reader lets go; one more turn of the loop, and a drop, had
    // close() reported one, would have been seen.
    await expect.poll(() => cancelled).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect({ aborted: signal.aborted, cancelled, dropped }).toEqual({
      aborted: true,
      cancelled: true,
      dropped: false,
    });
  });

  it('fails with TIMEOUT when nothing arrives within streamReadTimeoutMs, and NETWORK_ERROR when no answer comes within timeoutMs', async () => {
    const o = (
      options: { timeoutMs?: number; streamReadTimeoutMs?: number },
      answer: () => Promise<Response>,
    ) =>
      resolveClientOptions({
        baseUrl: 'http://flagwire.test/api/v1',
        apiKey: 'fw_live_SseSseSseSseSseSseSseSseSseSse00',
        logger: false,
        fetch: answer as typeof fetch,
        ...options,
      });
    const failure = (options: ResolvedClientOptions) =>
      new Promise<FlagwireError>((resolve) => openStream(options, undefined, false, () => {}, resolve));
    const silent = await failure(
      o({ streamReadTimeoutMs: 30 }, async () => eventStream(body([': comment only\n']))),
    );
    expect(silent).toMatchObject({ code: 'TIMEOUT' });
    const hung = await failure(o({ timeoutMs: 30 }, () => new Promise<Response>(() => {})));
    expect(hung).toMatchObject({ code: 'NETWORK_ERROR', message: expect.stringMatching(/30 ms/) });
  });
});
