/** Options of `createClient()`, with every default resolved in one place. */
import { resolveConnection } from '../core/connection.js';
import type { Flag, SdkSnapshot } from '../core/types.js';

/** Where the client reports what it cannot throw. */
export interface ClientLogger {
  debug?(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface ClientOptions {
  /**
   * The management base URL, with the version segment.
   * @example 'http://127.0.0.1:8787/api/v1'
   */
  baseUrl: string;
  /** An API key of the environment; in browsers, a read-only key. */
  apiKey: string;
  /**
   * The `fetch` to use for every request, the stream included.
   * @default globalThis.fetch
   */
  fetch?: typeof fetch;
  /**
   * Where warnings and errors go; `false` silences them.
   * @default console
   */
  logger?: ClientLogger | false;
  /**
   * Flags to start from before (or instead of) the server's: a `GET /sdk/flags` body saved
   * earlier, or flags in the management representation. Evaluation answers from them at once.
   */
  bootstrap?: SdkSnapshot | readonly Flag[];
  /**
   * Make no network call at all: evaluate the `bootstrap` flags only; `ready()` resolves at once.
   * @default false
   */
  offline?: boolean;
  /**
   * Follow changes over the event stream. `false` polls `GET /sdk/flags` every `pollIntervalMs`.
   * @default true
   */
  stream?: boolean;
  /**
   * Interval of polling, when `stream` is false or the stream cannot be held.
   * @default 30000
   */
  pollIntervalMs?: number;
  /**
   * Poll while the stream is down (after it failed `pollAfterStreamFailures` times in a row).
   * @default true
   */
  pollWhileDisconnected?: boolean;
  /**
   * Consecutive stream failures after which polling starts (with `pollWhileDisconnected`).
   * @default 2
   */
  pollAfterStreamFailures?: number;
  /**
   * Timeout of one `GET /sdk/flags` request, and of the stream's response headers.
   * @default 10000
   */
  timeoutMs?: number;
  /**
   * First reconnection delay; it doubles up to `maxRetryDelayMs`, with jitter.
   * @default 1000
   */
  initialRetryDelayMs?: number;
  /**
   * Largest reconnection delay.
   * @default 30000
   */
  maxRetryDelayMs?: number;
  /**
   * A connection that stayed healthy this long resets the delay to `initialRetryDelayMs`.
   * @default 60000
   */
  retryResetAfterMs?: number;
  /**
   * Reconnect when the stream delivers nothing, not even a `ping`, for this long. The server
   * pings every 15 s by default, so the default allows three missed pings.
   * @default 50000
   */
  streamReadTimeoutMs?: number;
  /**
   * `status().state` becomes `stale` after this long without word from the server.
   * @default max(60000, 2 * pollIntervalMs)
   */
  staleAfterMs?: number;
}

export interface ResolvedClientOptions {
  snapshotUrl: string;
  streamUrl: string;
  authorization: string;
  fetch: typeof fetch;
  logger: Required<ClientLogger>;
  bootstrap: SdkSnapshot | readonly Flag[] | undefined;
  offline: boolean;
  stream: boolean;
  pollIntervalMs: number;
  pollWhileDisconnected: boolean;
  pollAfterStreamFailures: number;
  timeoutMs: number;
  initialRetryDelayMs: number;
  maxRetryDelayMs: number;
  retryResetAfterMs: number;
  streamReadTimeoutMs: number;
  staleAfterMs: number;
}

const noop = () => {};

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)) {
    throw new TypeError(
      `flagwire: option "${name}" must be a positive number of milliseconds, got ${String(value)}`,
    );
  }
  return value;
}

/** Validates options (programmer errors throw at once) and fills in every default. */
export function resolveClientOptions(options: ClientOptions): ResolvedClientOptions {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('flagwire: createClient needs options: createClient({ baseUrl, apiKey })');
  }
  const connection = resolveConnection(options);
  const logger: Required<ClientLogger> =
    options.logger === false
      ? { debug: noop, warn: noop, error: noop }
      : {
          debug: options.logger?.debug?.bind(options.logger) ?? noop,
          warn: options.logger
            ? options.logger.warn.bind(options.logger)
            : (m) => console.warn(`flagwire: ${m}`),
          error: options.logger
            ? options.logger.error.bind(options.logger)
            : (m) => console.error(`flagwire: ${m}`),
        };
  const pollIntervalMs = positive('pollIntervalMs', options.pollIntervalMs, 30_000);
  return {
    snapshotUrl: `${connection.base}/sdk/flags`,
    streamUrl: `${connection.base}/sdk/events`,
    authorization: connection.authorization,
    fetch: connection.fetch,
    logger,
    bootstrap: options.bootstrap,
    offline: options.offline ?? false,
    stream: options.stream ?? true,
    pollIntervalMs,
    pollWhileDisconnected: options.pollWhileDisconnected ?? true,
    pollAfterStreamFailures: Math.ceil(
      positive('pollAfterStreamFailures', options.pollAfterStreamFailures, 2),
    ),
    timeoutMs: positive('timeoutMs', options.timeoutMs, 10_000),
    initialRetryDelayMs: positive('initialRetryDelayMs', options.initialRetryDelayMs, 1000),
    maxRetryDelayMs: positive('maxRetryDelayMs', options.maxRetryDelayMs, 30_000),
    retryResetAfterMs: positive('retryResetAfterMs', options.retryResetAfterMs, 60_000),
    streamReadTimeoutMs: positive('streamReadTimeoutMs', options.streamReadTimeoutMs, 50_000),
    staleAfterMs: positive('staleAfterMs', options.staleAfterMs, Math.max(60_000, 2 * pollIntervalMs)),
  };
}
