/**
 * The SDK's usage reporter (`docs/protocol.md` §13.6): every `flushIntervalMs` (each wait 75 to
 * 125 % of it) the counts become a report with a random id, sent to `POST /sdk/usage` until a
 * `202`, with that id on every retry (network errors, `5xx`, `408`, `429` no sooner than its
 * `Retry-After`), backing off from 1 s to 60 s; at most 10 wait, none older than an hour. A report
 * over 900 KB of JSON is split in several. `401`, `403` stop it for good (the client stops on
 * them too); a Flagwire server's `404 NOT_FOUND` (usage off) for an hour; another `4xx` drops the
 * report. In browsers, when the page is hidden or left, the waiting reports go at once with
 * `keepalive` (64 KiB at most in flight). `close()` sends a last report, `state: "closed"`, and
 * every waiting one, again at once after a failed attempt (`CLOSE_ATTEMPTS` in all), and logs as
 * an error the evaluations it could not deliver. A report carries counts, the client's random
 * instance id, what it holds and its state: never a user key, attribute, IP or host name.
 *
 * Written for size (every app ships it, `test/integration/package/bundle-size.test.ts`): one timer, the client's
 * deadline (`startExchange`) and `Retry-After` parsing, closures rather than classes.
 */
import { startExchange } from '../core/deadline-exchange.js';
import { FLAG_KEY_MAX_LENGTH, FLAG_KEY_PATTERN } from '../core/limits.js';
import { later, type Timer } from '../core/timers.js';
import { MAX_UNKNOWN_KEYS } from '../core/usage-limits.js';
import { FLAGWIRE_VERSION } from '../core/version.js';
import { parseRetryAfter } from '../errors.js';
import type { FlagStore } from './flag-store.js';
import type { ResolvedClientOptions } from './options.js';
import { type CountRow, harvest } from './usage-counts.js';

/** A report made and not yet accepted: its id, its body, when it was made; `k`: sent with `keepalive` now. */
interface Report {
  id: string;
  body: string;
  at: number;
  k?: boolean;
}

export interface UsageReporter {
  /** Starts the interval (the client started). Idempotent. */
  start(): void;
  /** One evaluation of `key`, which the client holds no flag of, counted (`undefined`: no flag). */
  miss(key: string): undefined;
  /** A report of the counts now, then every waiting report sent; `true` when none is left waiting. */
  flush(): Promise<boolean>;
  /**
   * A last report (once started, even empty: it says `closed`) and every waiting one sent, each
   * attempt within `timeoutMs`, a failed one made again at once (`CLOSE_ATTEMPTS` failed attempts
   * in all); what is still not accepted is logged as an error with the evaluations it held. Then
   * stops for good.
   */
  close(): Promise<void>;
}

/**
 * Failed attempts `close()` makes, in all, at the reports it sends (each within `timeoutMs`)
 * before it gives up on those still not accepted (`docs/protocol.md` §13.6).
 */
export const CLOSE_ATTEMPTS = 3;

const browser = typeof document === 'object';
const HOUR = 3_600_000;
/** What a browser's `keepalive` requests may carry in flight together (64 KiB), with a margin. */
const KEEPALIVE_BYTES = 60_000;

/**
 * `prefix` and 24 random characters of `[A-Za-z0-9_]` (18 random bytes in base64, `+` and `/`
 * as `_`: 143 bits).
 */
const randomId = (prefix: string): string =>
  prefix + btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(18)))).replace(/\W/g, '_');

/**
 * The runtime, by name and version: nothing that tells one machine from another. Deno and Bun
 * name themselves first in `navigator.userAgent` (`Deno/2.1.4`, `Bun/1.2.0`); both also have
 * `process`. Only that first token, of printable ASCII (what the server takes, §13.2).
 */
function runtime(): string {
  // biome-ignore lint/suspicious/noExplicitAny: feature detection of runtimes' globals
  const g = globalThis as any;
  const agent: string = g.navigator?.userAgent ?? '';
  const node = g.process?.versions?.node;
  const named = /^(deno|bun)\/[!-~]{1,40}/i.exec(agent);
  return browser
    ? 'browser'
    : named
      ? named[0].toLowerCase()
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
  /** The server said usage is off (`404 NOT_FOUND`): no report is made before this. */
  let off = 0;
  /** The attempt under way at the waiting reports, one at a time. */
  let sending: Promise<void> | undefined;
  /** No attempt before this (a backoff, or the server's `Retry-After`). */
  let notBefore = 0;
  /** Retries: 1 s doubling up to 60 s, jittered; back to 1 s once a report is answered. */
  let tries = 0;
  /** The one timer: the next interval, or the retry after the backoff. */
  let timer: Timer | undefined;
  /** Bytes of the `keepalive` requests under way. */
  let kept = 0;
  /** Why the last failed attempt failed, for the error `close()` logs. */
  let failure = '';
  /** Unsubscribes from the page's events. */
  const page = new AbortController();

  /** The one timer set to `tick` in `ms` (none once stopped: an answer after `close()` sets none). */
  const schedule = (ms: number) => {
    clearTimeout(timer);
    if (!stopped) timer = later(ms, tick);
  };

  /**
   * The counts since the last report as a report, waiting to be sent (none without counts, but
   * every 5th quiet interval, `heartbeat`). Over `limit` characters of JSON (900 KB; 60 KB when
   * the page is left), its rows are split in reports of their own.
   */
  const make = (heartbeat?: boolean, limit = 900_000) => {
    if (stopped || Date.now() < off) return;
    const counts: CountRow[] = [];
    if (harvest([...store.entries.values(), ...store.retired], counts)) store.retired = [];
    if (!(counts.length + unknown.size + notReady > 0 || (heartbeat && ++quiet > 4))) return;
    quiet = 0;
    const at = Date.now();
    const report = {
      id: '',
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
    };
    const push = (rows: CountRow[]) => {
      report.id = randomId('u_');
      const { id } = report;
      report.counts = rows;
      const body = JSON.stringify(report);
      if (body.length > limit && rows.length > 1) {
        const half = rows.length >> 1;
        push(rows.slice(0, half));
        // What is not a count row goes in the first part only.
        report.unknown = [];
        report.unknownDropped = report.notReady = 0;
        push(rows.slice(half));
      } else if (waiting.push({ id, body, at }) > 10) drop(waiting[0]!, '10 newer wait');
    };
    push(counts);
    unknown.clear();
    dropped = notReady = 0;
    from = at;
  };

  /** Drops a waiting report (if it still waits), with a warning when `why` says why. */
  const drop = (report: Report, why: string | false) => {
    const i = waiting.indexOf(report);
    if (i < 0) return;
    waiting.splice(i, 1);
    if (why) o.logger.warn(`usage report ${report.id} dropped: ${why}`);
  };

  /**
   * One attempt at sending `report` (`keepalive`: the page is being left), and its answer
   * handled: accepted, or refused for what it holds, dropped; retried after a backoff; usage off
   * on the server (`404 NOT_FOUND`, which a proxy's `404` is not): none made for an hour; a
   * refused key (`401`, `403`): no more (§13.6).
   */
  const attempt = async (report: Report, keepalive = false) => {
    const exchange = startExchange(o.timeoutMs);
    const url = `${o.base}/sdk/usage`;
    let status = 0;
    let retryAfter: number | undefined;
    let usageOff = false;
    if (keepalive) {
      kept += report.body.length;
      report.k = true;
    }
    try {
      const response = await exchange.race(
        o.fetch(url, {
          method: 'POST',
          headers: { authorization: o.authorization, 'content-type': 'application/json' },
          body: report.body,
          keepalive,
          signal: exchange.signal,
        }),
      );
      status = response.status;
      retryAfter = parseRetryAfter(response.headers.get('retry-after'));
      // Read whole (the connection is reused): a Flagwire server's `404` says `NOT_FOUND`.
      usageOff = (await exchange.race(response.json())).error === 'NOT_FOUND' && status === 404;
    } catch (error) {
      // A network error, no answer in time, or a body that is no JSON: retried with the same id.
      failure = exchange.failure(error, 'POST', url).message;
    }
    exchange.end();
    if (keepalive) {
      kept -= report.body.length;
      report.k = false;
    }
    if (usageOff) {
      // Or an older instance, in a rolling upgrade: the intervals go on, but make no report
      // for an hour (what is counted meanwhile is kept for the first report after it).
      off = Date.now() + HOUR;
      o.logger.warn('usage is off on the server: none sent for an hour');
      waiting.length = 0;
    } else if (status < 200 || status > 499 || status === 404 || status === 408 || status === 429) {
      if (status) failure = `POST ${url} answered ${status}`;
      notBefore =
        Date.now() +
        Math.max(retryAfter ?? 0, Math.min(60_000, 1000 * 2 ** tries++) * (0.5 + Math.random() / 2));
      schedule(notBefore - Date.now());
    } else {
      tries = 0;
      drop(report, status > 299 && `refused (${status})`);
      // The key refused: the client fails too (§9), and reports no more.
      if (status === 401 || status === 403) stop();
    }
  };

  /**
   * Sends the waiting reports, oldest first, each until answered; stops at the first that must
   * wait (it is retried after the backoff, and the others after it).
   */
  const send = (): Promise<void> =>
    (sending ??= (async () => {
      while (!stopped && waiting[0] && Date.now() >= notBefore) {
        if (waiting[0].at < Date.now() - HOUR) drop(waiting[0], 'an hour old');
        else await attempt(waiting[0]);
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
    make(true);
    void send();
    next();
  };

  /**
   * The page is left (or hidden, which may be the last chance): a report now, and the waiting
   * reports sent at once with `keepalive`, whatever the backoff or an attempt under way (which
   * the page's end cancels; the server counts a report sent twice once), as many as fit the
   * browser's 64 KiB.
   */
  const leave = () => {
    make(false, KEEPALIVE_BYTES);
    for (const report of waiting)
      if (!report.k && kept + report.body.length <= KEEPALIVE_BYTES) void attempt(report, true);
  };

  const stop = () => {
    stopped = true;
    store.counting = false;
    store.retired = [];
    waiting.length = 0;
    clearTimeout(timer);
    page.abort();
  };

  /**
   * A report now (`heartbeat`: even without counts, if 5 quiet intervals went by), and every
   * waiting one sent, ignoring the backoff.
   */
  const flush = async (heartbeat?: boolean) => {
    notBefore = 0;
    make(heartbeat);
    // An attempt under way goes on to the rest (`notBefore` no longer holds it), this one too.
    await send();
    return !stopped && waiting.length === 0 && Date.now() >= off;
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
          () => document.visibilityState === 'hidden' && leave(),
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
      // Only what could be a flag key (§3.1) is listed: never an e-mail address or a user id.
      else if (
        unknown.size < MAX_UNKNOWN_KEYS &&
        key.length <= FLAG_KEY_MAX_LENGTH &&
        FLAG_KEY_PATTERN.test(key)
      )
        unknown.set(key, { key, count: 1 });
      else dropped++;
    },
    flush,
    async close() {
      // The last report, even without counts once started (a heartbeat as if 5 quiet intervals went by).
      if (started) quiet = 4;
      // Each flush ends at a failed attempt (a cut connection, no answer in time, a 5xx) or with
      // none left waiting; the next, at once, starts again with the report that failed.
      for (let i = 0; i++ < CLOSE_ATTEMPTS && !(await flush(true)); );
      if (!stopped && waiting[0]) {
        // What is dropped, in evaluations: every count of every report still waiting.
        let n = 0;
        for (const { body } of waiting) {
          const r = JSON.parse(body);
          n += r.unknownDropped + r.notReady;
          for (const row of [...r.counts, ...r.unknown]) n += row.count;
        }
        o.logger.error(
          `usage: ${n} evaluations not delivered at close, ${CLOSE_ATTEMPTS} attempts failed: ${failure}`,
        );
      }
      stop();
    },
  };
}
