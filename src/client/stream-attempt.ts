/**
 * One attempt at the event stream (`docs/protocol.md` §5.3): a `GET` through the client's
 * `fetch`, which carries the `Authorization` header in every runtime (browsers, Node, Deno, Bun,
 * workers), whose body `./sse.ts` reads. The attempt never retries by itself: any failure closes
 * it and is handed to the loop once (`dropped`), which backs off, stops on 401/403 and opens a
 * new attempt resuming with `Last-Event-ID`; what the frames mean is the loop's business too
 * (`received`). A watchdog fails the attempt when the response does not come within
 * `timeoutMs`, then whenever nothing, not even a `ping`, arrives for `streamReadTimeoutMs`.
 */
import { answerError } from '../core/http.js';
import { later, type Timer } from '../core/timers.js';
import { type FlagwireError, requestError } from '../errors.js';
import type { ResolvedClientOptions } from './options.js';
import { sseReader } from './sse.js';

/**
 * Opens one attempt, resuming after `lastEventId`; returns the function that closes it (and
 * aborts the request). Until then, `received` gets every event that arrives (`open` once the
 * stream is answered, then each frame by its name, `ping` included: the server is there; a frame
 * named `error` is one more message) and `dropped` the attempt's failure, once (the attempt is
 * closed by then).
 */
export function openStream(
  o: ResolvedClientOptions,
  lastEventId: string | undefined,
  hold: boolean,
  received: (name: string, event: { data: string; lastEventId: string }) => void,
  dropped: (error: FlagwireError) => void,
): () => void {
  const url = `${o.base}/sdk/events`;
  const controller = new AbortController();
  const { signal } = controller;
  let watchdog: Timer | undefined;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  const close = () => {
    clearTimeout(watchdog);
    controller.abort();
    // Also for a `fetch` that ignores the signal: the pending read ends, the body is let go.
    reader?.cancel().catch(() => {});
  };
  const fail = (error: FlagwireError) => {
    if (signal.aborted) return;
    close();
    dropped(error);
  };
  const networkError = (detail: string, cause?: unknown) =>
    requestError('NETWORK_ERROR', 'GET', url, `: ${detail}`, { cause });
  /** Fails the attempt unless something (the response, then any event) arrives within `ms`. */
  const watch = (ms: number, code: string) => {
    clearTimeout(watchdog);
    watchdog = later(ms, () => fail(requestError(code, 'GET', url, `: no data within ${ms} ms`)), hold);
  };
  const arrived = (name: string, data = '', id = '') => {
    if (signal.aborted) return;
    // Something arrived: the watchdog starts again.
    watch(o.streamReadTimeoutMs, 'TIMEOUT');
    received(name, { data, lastEventId: id });
  };
  const headers: Record<string, string> = {
    authorization: o.authorization,
    accept: 'text/event-stream',
    // The stream of an SDK that evaluates targeting (`docs/protocol.md` §12.6).
    'x-flagwire-capabilities': 'targeting',
  };
  if (lastEventId) headers['last-event-id'] = lastEventId;
  // A connect that hangs before the response fails like a network error.
  watch(o.timeoutMs, 'NETWORK_ERROR');
  // `async`: a `fetch` that throws fails the attempt like one that rejects.
  (async () => {
    const answer = await o.fetch(url, { headers, signal, cache: 'no-store' });
    reader = answer.body?.getReader();
    // Closed while the request was out: let go of the answer.
    if (signal.aborted) return close();
    // A refusal keeps its meaning (401/403: stop; 503: its Retry-After), as on the snapshot.
    if (answer.status !== 200 || !/^text\/event-stream/i.test(answer.headers.get('content-type') ?? '')) {
      return fail(answerError(answer, 'GET', url, answer.ok && { message: 'not text/event-stream' }));
    }
    arrived('open');
    const feed = sseReader(arrived);
    for (;;) {
      // No body at all fails like a body that ends.
      const read = await reader?.read();
      if (!read || read.done) return fail(networkError('the stream ended'));
      feed(read.value);
    }
  })().catch((error: Error) => fail(networkError(error?.message ?? String(error), error)));
  return close;
}
