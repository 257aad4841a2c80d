/**
 * One attempt at the event stream (`docs/protocol.md` §5.3) through the `eventsource` package,
 * whose `fetch` option carries the `Authorization` header (so it works in browsers too). The
 * package retries at a fixed interval and gives up on a non-200, so the client never lets it
 * retry: any failure closes the attempt and is handed to the loop once (`dropped`), which backs
 * off, stops on 401/403 and opens a new attempt resuming with `Last-Event-ID`; what the frames
 * mean is the loop's business too (`received`). A watchdog fails the attempt when nothing, not
 * even a `ping`, arrives for `streamReadTimeoutMs`.
 */
import { EventSource } from 'eventsource';
import { answerError } from '../core/http.js';
import { later, type Timer } from '../core/timers.js';
import { type FlagwireError, requestError } from '../errors.js';
import type { ResolvedClientOptions } from './options.js';

/**
 * Opens one attempt, resuming after `lastEventId`; returns the function that closes it. Until
 * then, `received` gets every event that arrives (`open`, each frame by its name, `ping`
 * included: the server is there) and `dropped` the attempt's failure, once (the attempt is
 * closed by then).
 */
export function openStream(
  o: ResolvedClientOptions,
  lastEventId: string | undefined,
  hold: boolean,
  received: (name: string, event: MessageEvent) => void,
  dropped: (error: FlagwireError) => void,
): () => void {
  const url = `${o.base}/sdk/events`;
  let done = false;
  let watchdog: Timer | undefined;
  /** The answer to this attempt's request, for the error of a refusal (the package gives its status only). */
  let answer: Response;
  const close = () => {
    done = true;
    clearTimeout(watchdog);
    // After the event being dispatched: on a failure the package sets a reconnect timer of its
    // own (ref'd) once its listeners have run, and only `close()` clears it.
    queueMicrotask(() => source.close());
  };
  const fail = (error: FlagwireError) => {
    if (done) return;
    close();
    dropped(error);
  };
  /** Fails the attempt unless something (the response, then any frame) arrives within `ms`. */
  const watch = (ms: number, code: string) => {
    clearTimeout(watchdog);
    watchdog = later(ms, () => fail(requestError(code, 'GET', url, `: no data within ${ms} ms`)), hold);
  };
  const source = new EventSource(url, {
    // `async`: a `fetch` that throws fails the attempt like one that rejects.
    fetch: async (input, init) => {
      const headers: Record<string, string> = {
        ...init.headers,
        authorization: o.authorization,
        // The stream of an SDK that evaluates targeting (`docs/protocol.md` §12.6).
        'x-flagwire-capabilities': 'targeting',
      };
      if (lastEventId) headers['Last-Event-ID'] = lastEventId;
      answer = await o.fetch(input, { ...init, headers });
      return answer;
    },
  });
  // A connect that hangs before the response fails like a network error; closing the
  // attempt aborts the request.
  watch(o.timeoutMs, 'NETWORK_ERROR');

  // A transport failure. The package calls `onerror` for those only, and before its listeners of
  // `error` (which then find the attempt over); a frame that the server named `event: error` is a
  // message, for those listeners only.
  source.onerror = ({ code: status, message = 'connection failed' }) =>
    fail(
      status === undefined
        ? requestError('NETWORK_ERROR', 'GET', url, `: ${message}`)
        : answerError(answer, 'GET', url, { message }),
    );
  for (const name of ['open', 'flags:updated', 'flags:sync', 'segments:updated', 'ping', 'error']) {
    source.addEventListener(name, (event) => {
      if (done) return;
      // Something arrived: the watchdog starts again.
      watch(o.streamReadTimeoutMs, 'TIMEOUT');
      received(name, event as MessageEvent);
    });
  }
  return close;
}
