/**
 * One attempt at the event stream (`docs/protocol.md` §5.3) through the `eventsource`
 * package, whose `fetch` option carries the `Authorization` header (so it works in browsers
 * too). The package retries at a fixed interval and gives up on a non-200, so this module
 * never lets it retry: any failure closes the attempt and reports it once, and the caller
 * owns the policy (backoff, 401/403 stop, resume with `Last-Event-ID`). A watchdog fails the
 * attempt when nothing, not even a `ping`, arrives for `streamReadTimeoutMs`.
 */
import { EventSource, type FetchLikeResponse } from 'eventsource';
import { FlagwireError, parseRetryAfter } from '../errors.js';
import type { ResolvedClientOptions } from './options.js';
import { cancel, later, type Timer } from './timers.js';

export type StreamEventName = 'flags:updated' | 'flags:sync' | 'ping';

export interface StreamHandlers {
  open(): void;
  event(name: StreamEventName, data: string, id: string | undefined): void;
  /** Called at most once per attempt; the attempt is closed by then. */
  failure(error: FlagwireError, fatal: boolean): void;
}

export interface StreamAttempt {
  close(): void;
}

const EVENTS: StreamEventName[] = ['flags:updated', 'flags:sync', 'ping'];

export function openStream(
  options: ResolvedClientOptions,
  lastEventId: string | undefined,
  handlers: StreamHandlers,
): StreamAttempt {
  const url = options.streamUrl;
  let done = false;
  let watchdog: Timer | undefined;
  let source: EventSource | undefined;
  let retryAfterMs: number | undefined;

  const finish = (error: FlagwireError, fatal: boolean) => {
    if (done) return;
    done = true;
    watchdog = cancel(watchdog);
    source?.close();
    handlers.failure(error, fatal);
  };
  const arm = () => {
    cancel(watchdog);
    watchdog = later(options.streamReadTimeoutMs, () =>
      finish(
        new FlagwireError(
          'TIMEOUT',
          `GET ${url}: no data for ${options.streamReadTimeoutMs} ms, reconnecting`,
          {
            method: 'GET',
            url,
          },
        ),
        false,
      ),
    );
  };

  source = new EventSource(url, {
    fetch: (input, init) => {
      const headers: Record<string, string> = { ...init.headers, Authorization: options.authorization };
      if (lastEventId) headers['Last-Event-ID'] = lastEventId;
      // A connect that hangs before the response headers fails like a network error (not an
      // abort, which the package would swallow), so the caller's backoff takes over.
      const controller = new AbortController();
      const outer = init.signal as AbortSignal | undefined;
      outer?.addEventListener('abort', () => controller.abort(), { once: true });
      return new Promise<FetchLikeResponse>((resolve, reject) => {
        const timer = later(options.timeoutMs, () => {
          controller.abort();
          reject(new Error(`no response within ${options.timeoutMs} ms`));
        });
        options.fetch(input, { ...init, headers, signal: controller.signal }).then(
          (response) => {
            cancel(timer);
            if (response.status !== 200) retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
            resolve(response);
          },
          (error: unknown) => {
            cancel(timer);
            reject(error);
          },
        );
      });
    },
  });

  source.addEventListener('open', () => {
    if (done) return;
    arm();
    handlers.open();
  });
  for (const name of EVENTS) {
    source.addEventListener(name, (event: MessageEvent) => {
      if (done) return;
      arm();
      handlers.event(name, String(event.data), event.lastEventId || undefined);
    });
  }
  source.addEventListener('error', (event) => {
    // A frame the server named `event: error` is a message, not a transport failure.
    if ('data' in event) {
      if (!done) arm();
      return;
    }
    const status = (event as { code?: number }).code;
    const message = (event as { message?: string }).message ?? 'connection failed';
    if (status === 401 || status === 403) {
      finish(
        new FlagwireError(
          status === 401 ? 'UNAUTHORIZED' : 'FORBIDDEN',
          `GET ${url} answered ${status}: ${message}`,
          {
            status,
            method: 'GET',
            url,
          },
        ),
        true,
      );
    } else if (status !== undefined) {
      finish(
        new FlagwireError('HTTP_ERROR', `GET ${url} answered ${status}: ${message}`, {
          status,
          method: 'GET',
          url,
          retryAfterMs,
        }),
        false,
      );
    } else {
      finish(new FlagwireError('NETWORK_ERROR', `GET ${url}: ${message}`, { method: 'GET', url }), false);
    }
  });

  return {
    close() {
      done = true;
      watchdog = cancel(watchdog);
      source?.close();
    },
  };
}
