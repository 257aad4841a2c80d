/** Options of `createClient()`, with every default resolved in one place. */
import { fail, resolveConnection } from '../core/connection.js';
import type { Flag, SdkSnapshot } from '../core/types.js';
import { unheldFetch } from './unheld-fetch.js';

/** Where the client reports what it cannot throw. */
export interface ClientLogger {
  debug?(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** Usage reports (`docs/protocol.md` §13.6): what the client counts of its evaluations, sent to the server. */
export interface UsageOptions {
  /**
   * How often the counts are reported; each wait is drawn from 75 to 125 % of it, so clients
   * started together do not report together.
   * @default 60000
   */
  flushIntervalMs?: number;
  /**
   * Your application, as usage insights show it: which apps evaluate a flag, and which versions.
   * @example { name: 'checkout', version: '4.2.0' }
   */
  app?: { name: string; version?: string };
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
   * A `matches` clause needs the program only the SDK form carries (a body saved with the
   * targeting capability); without it the flag serves its default until the server's arrives.
   */
  bootstrap?: SdkSnapshot | readonly Flag[];
  /**
   * Whether a started client keeps the process alive, as a connection pool or a listening
   * server does: from `start()`/`ready()` until `close()` (or until a refused key stops it), in
   * every state, connected, reconnecting or polling alike, so that a worker that only follows
   * changes does not exit when the server goes away. `false` for scripts that should exit when
   * their own work is done, `close()` or not: then nothing of the client holds the process, in
   * any state (on Node the client's requests then go over connections of their own whose
   * sockets are unref'd, unless you pass your own `fetch`). Either way a pending `ready()`,
   * `flush()` or `close()` holds the process until it settles: its caller awaits it. Browsers and
   * workers have no process to hold.
   * @default true
   */
  holdProcess?: boolean;
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
  /**
   * Count evaluations (per flag, version, variant and reason: never a user key or attribute)
   * and report them to the server (`POST /sdk/usage`), so it can tell which flags are still
   * evaluated, by which apps. `false` sends nothing; `offline: true` implies it.
   * @default { flushIntervalMs: 60000 }
   */
  usage?: boolean | UsageOptions;
}

/** The options that are a positive number, with their defaults (`staleAfterMs`: see below). */
const NUMBERS = {
  pollIntervalMs: 30_000,
  pollAfterStreamFailures: 2,
  timeoutMs: 10_000,
  initialRetryDelayMs: 1000,
  maxRetryDelayMs: 30_000,
  retryResetAfterMs: 60_000,
  streamReadTimeoutMs: 50_000,
  staleAfterMs: 0,
};

/** The options after `resolveClientOptions`: every number set, the URLs and the header built. */
export interface ResolvedClientOptions
  extends Omit<ClientOptions, keyof typeof NUMBERS | 'logger' | 'fetch' | 'usage'>,
    Record<keyof typeof NUMBERS, number> {
  /** The base URL, without a trailing slash. */
  base: string;
  authorization: string;
  fetch: typeof fetch;
  /** Where warnings and errors go (a no-op with `logger: false`). */
  logger: Pick<ClientLogger, 'warn' | 'error'>;
  /** Usage reports' settings; `undefined` when the client reports nothing. */
  usage: { flushIntervalMs: number; app: UsageOptions['app'] } | undefined;
}

/** Validates options (programmer errors throw at once) and fills in every default. */
export function resolveClientOptions(options: ClientOptions): ResolvedClientOptions {
  // First: it also fails clearly when there are no options at all.
  const connection = resolveConnection(options);
  const sink = options.logger;
  const log = (level: 'warn' | 'error'): ((message: string) => void) =>
    sink === false
      ? () => {}
      : sink
        ? sink[level].bind(sink)
        : (message) => console[level](`flagwire: ${message}`);
  const resolved = {
    ...options,
    ...connection,
    logger: { warn: log('warn'), error: log('error') },
  } as ResolvedClientOptions;
  if (unheldFetch && options.holdProcess === false && !options.fetch) resolved.fetch = unheldFetch;
  let name: keyof typeof NUMBERS;
  for (name in NUMBERS) {
    const value = options[name];
    if (value !== undefined && !(Number.isFinite(value) && value > 0)) {
      fail(`"${name}" must be a positive number`);
    }
    resolved[name] = value ?? NUMBERS[name];
  }
  resolved.staleAfterMs ||= Math.max(60_000, 2 * resolved.pollIntervalMs);
  const usage = options.usage ?? true;
  resolved.usage = undefined;
  if (usage && !options.offline) {
    const { flushIntervalMs = 60_000, app } = usage === true ? {} : usage;
    if (!(flushIntervalMs > 0)) fail('"usage.flushIntervalMs" must be a positive number');
    if (app && !(typeof app.name === 'string' && app.name))
      fail('"usage.app.name" must be a non-empty string');
    resolved.usage = { flushIntervalMs, app };
  }
  return resolved;
}
