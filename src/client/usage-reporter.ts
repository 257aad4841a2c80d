/**
 * The SDK's usage reporter (`docs/protocol.md` §13.6): every `flushIntervalMs` (each wait 75 to
 * 125 % of it) the counts become a report with a random id, sent to `POST /sdk/usage` until a
 * `202`, with that id on every retry (network errors, `5xx`, `408`, `429` no sooner than its
 * `Retry-After`), backing off from 1 s to 60 s; at most 10 wait, none older than an hour. `401`,
 * `403`, `404` stop it for good; another `4xx` drops the report. In browsers a report also goes
 * when the page is hidden or left, with `keepalive`. A report carries counts, the client's
 * random instance id, what it holds and its state: never a user key, attribute, IP or host name.
 *
 * Written for size (every app ships it, `test/bundle-size.test.ts`): one timer, the client's
 * deadline (`startExchange`) and `Retry-After` parsing, closures rather than classes.
 */
import { startExchange } from '../core/deadline-exchange.js';
import { later, type Timer } from '../core/timers.js';
import { MAX_UNKNOWN_KEYS } from '../core/usage-limits.js';
import { FLAGWIRE_VERSION } from '../core/version.js';
import { parseRetryAfter } from '../errors.js';
import type { FlagStore } from './flag-store.js';
import type { ResolvedClientOptions } from './options.js';
import { type CountRow, harvest } from './usage-counts.js';

/** A report made and not yet accepted: its id, its body, when it was made. */
interface Report {
  id: string;
  body: string;
  at: number;
}

export interface UsageReporter {
  /** Starts the interval (the client started). Idempotent. */
  start(): void;
  /** One evaluation of `key`, which the client holds no flag of, counted (`undefined`: no flag). */
  miss(key: string): undefined;
  /** A report of the counts now, then every waiting report sent; `true` when none is left waiting. */
  flush(): Promise<boolean>;
  /** Flushes within `timeoutMs`, then stops for good. */
  close(timeoutMs: number): Promise<void>;
}

const browser = typeof document === 'object';

/**
 * `prefix` and 24 random characters of `[A-Za-z0-9_]` (18 random bytes in base64, `+` and `/`
 * as `_`: 143 bits).
 */
const randomId = (prefix: string): string =>
  prefix + btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(18)))).replace(/\W/g, '_');

/**
 * The runtime, by name and version: nothing that tells one machine from another. Deno and Bun
 * name themselves in `navigator.userAgent` (`Deno/2.1.4`, `Bun/1.2.0`); both also have `process`.
 */
function runtime(): string {
  // biome-ignore lint/suspicious/noExplicitAny: feature detection of runtimes' globals
  const g = globalThis as any;
  const agent: string = g.navigator?.userAgent ?? '';
  const node = g.process?.versions?.node;
  return browser
    ? 'browser'
    : /^(Deno|Bun)\//.test(agent)
      ? agent.toLowerCase()
      : node
        ? `node/${node}`
        : agent === 'Cloudflare-Workers'
          ? 'workerd'
          : 'unknown';
}

/** A reporter of `store`'s counts, the client's state read by `state`. */
export function usageReporter(
  o: ResolvedClientOptions,
  store: FlagStore,
  state: () => string,
): UsageReporter {
  const { flushIntervalMs, app } = o.usage!;
  const instance = randomId('i_');
  const waiting: Report[] = [];
  // What has no flag entry (§13.2): unknown keys (at most 100 a report), the rest, before any load.
  const unknown = new Map<string, { key: string; count: number }>();
  let dropped = 0;
  let notReady = 0;
  let from = Date.now();
  let quiet = 0;
  let started = false;
  let stopped = false;
  /** The attempt under way at the waiting reports, one at a time. */
  let sending: Promise<void> | undefined;
  /** No attempt before this (a backoff, or the server's `Retry-After`). */
  let notBefore = 0;
  /** Retries: 1 s doubling up to 60 s, jittered; back to 1 s once a report is answered. */
  let tries = 0;
  /** The one timer: the next interval, or the retry after the backoff. */
  let timer: Timer | undefined;
  /** The page is being left: requests from now on are `keepalive`, so they outlive it. */
  let leaving = false;
  /** Unsubscribes from the page's events. */
  const page = new AbortController();

  /** The one timer set to `tick` in `ms` (none once stopped: an answer after `close()` sets none). */
  const schedule = (ms: number) => {
    clearTimeout(timer);
    if (!stopped) timer = later(ms, tick);
  };

  /**
   * The counts since the last report as a report (none without counts, but every 5th quiet
   * interval), then every waiting report sent.
   */
  const report = (heartbeat?: boolean): Promise<void> => {
    const counts: CountRow[] = [];
    if (harvest([...store.entries.values(), ...store.retired], counts)) store.retired = [];
    if (!stopped && (counts.length + unknown.size + notReady > 0 || (heartbeat && ++quiet > 4))) {
      quiet = 0;
      const at = Date.now();
      const id = randomId('u_');
      const body = JSON.stringify({
        id,
        sdk: { name: 'flagwire-js', version: FLAGWIRE_VERSION },
        runtime: runtime(),
        app,
        instance,
        eventId: store.lastEventId ?? null,
        state: state(),
        window: { start: from, end: at },
        counts,
        unknown: [...unknown.values()],
        unknownDropped: dropped,
        notReady,
      });
      unknown.clear();
      dropped = notReady = 0;
      from = at;
      if (waiting.push({ id, body, at }) > 10) drop('10 newer wait');
    }
    return send();
  };

  /** Drops the oldest waiting report, with a warning when `why` says why. */
  const drop = (why: string | false) => {
    const { id } = waiting.shift()!;
    if (why) o.logger.warn(`usage report ${id} dropped: ${why}`);
  };

  /**
   * Sends the waiting reports, oldest first, each until answered; stops at the first that must
   * wait (it is retried after the backoff, and the others after it).
   */
  const send = (): Promise<void> =>
    (sending ??= (async () => {
      while (!stopped && waiting[0] && Date.now() >= notBefore) {
        const oldest = waiting[0];
        if (oldest.at < Date.now() - 3_600_000) {
          drop('an hour old');
          continue;
        }
        const exchange = startExchange(o.timeoutMs);
        let status = 0;
        let retryAfter: number | undefined;
        try {
          const response = await exchange.race(
            o.fetch(`${o.base}/sdk/usage`, {
              method: 'POST',
              headers: { authorization: o.authorization, 'content-type': 'application/json' },
              body: oldest.body,
              // A browser's keepalive request carries at most 64 KiB.
              keepalive: leaving && oldest.body.length < 60_000,
              signal: exchange.signal,
            }),
          );
          status = response.status;
          retryAfter = parseRetryAfter(response.headers.get('retry-after'));
          await exchange.race(response.text());
        } catch {
          // A network error, or no answer in time: retried with the same id.
        }
        exchange.end();
        if (status < 200 || status > 499 || status === 408 || status === 429) {
          notBefore =
            Date.now() +
            Math.max(retryAfter ?? 0, Math.min(60_000, 1000 * 2 ** tries++) * (0.5 + Math.random() / 2));
          schedule(notBefore - Date.now());
        } else {
          // Accepted; or refused for what it holds, dropped; or refused for good (§13.6).
          const fatal = status === 401 || status === 403 || status === 404;
          tries = 0;
          if (waiting[0] === oldest)
            drop(status > 299 && `refused (${status})${fatal ? ', no more are sent' : ''}`);
          if (fatal) stop();
        }
      }
    })().finally(() => (sending = undefined)));

  /** The next interval (75 to 125 % of `flushIntervalMs`), not before a backoff ends. */
  const next = () => schedule(Math.max(notBefore - Date.now(), flushIntervalMs * (0.75 + Math.random() / 2)));

  /**
   * The interval: a report (or a heartbeat), sent, and the next interval. The timer is never set
   * to fire before `notBefore`, so any backoff is over (a timer may fire a millisecond or two
   * before `Date.now()` says it is due: without this, that retry would wait a whole interval).
   */
  const tick = () => {
    notBefore = 0;
    void report(true);
    next();
  };

  /** The page is left (or hidden, which may be the last chance): a report now, with `keepalive`. */
  const leave = () => {
    leaving = true;
    void report();
  };

  const stop = () => {
    stopped = true;
    store.counting = false;
    store.retired = [];
    waiting.length = 0;
    clearTimeout(timer);
    page.abort();
  };

  const flush = async () => {
    notBefore = 0;
    // An attempt under way goes on to the rest (`notBefore` no longer holds it), this one too.
    await report();
    return !stopped && waiting.length === 0;
  };

  return {
    start() {
      if (started || stopped) return;
      started = true;
      next();
      if (browser) {
        // The controller as the options: its `signal` removes both listeners when it aborts.
        document.addEventListener(
          'visibilitychange',
          () => {
            leaving = document.visibilityState === 'hidden';
            if (leaving) leave();
          },
          page,
        );
        addEventListener('pagehide', leave, page);
      }
    },
    miss(key) {
      const row = unknown.get(key);
      if (stopped) return;
      if (!store.loaded) notReady++;
      else if (row) row.count++;
      else if (unknown.size < MAX_UNKNOWN_KEYS && key && key.length <= 256)
        unknown.set(key, { key, count: 1 });
      else dropped++;
    },
    flush,
    async close(timeoutMs) {
      const deadline = startExchange(timeoutMs);
      await deadline.race(flush()).catch(() => {});
      deadline.end();
      stop();
    },
  };
}
