/**
 * The SDK's usage reporter (`docs/protocol.md` §13.6): every `flushIntervalMs` (each wait 75 to
 * 125 % of it) the counts become a report with a random id, sent to `POST /sdk/usage` until a
 * `202`, with that id on every retry (network errors, `5xx`, `408`, `429` no sooner than its
 * `Retry-After`), backing off from 1 s to 60 s; at most 10 wait, none older than an hour. `401`,
 * `403`, `404` stop it for good; another `4xx` drops the report. In browsers a report also goes
 * when the page is hidden or left, with `keepalive`. A report carries counts, the client's
 * random instance id, what it holds and its state: never a user key, attribute, IP or host name.
 */
import { startExchange } from '../core/deadline-exchange.js';
import { later, type Timer } from '../core/timers.js';
import { FLAGWIRE_VERSION } from '../core/version.js';
import type { FlagStore } from './flag-store.js';
import type { ResolvedClientOptions } from './options.js';
import { type CountRow, harvest, type Misses } from './usage-counts.js';

/** A report made and not yet accepted: its id, its body, when it was made, attempts so far. */
interface Report {
  id: string;
  body: string;
  at: number;
  tries: number;
}

export interface UsageReporter {
  /** Starts the interval (the client started). Idempotent. */
  start(): void;
  /** A report of the counts now, then every waiting report sent; `true` when none is left waiting. */
  flush(): Promise<boolean>;
  /** Flushes within `timeoutMs`, then stops for good. */
  close(timeoutMs: number): Promise<void>;
}

/** `prefix` and 22 random characters of `[A-Za-z0-9_-]` (132 bits). */
const randomId = (prefix: string): string =>
  prefix +
  Array.from(
    crypto.getRandomValues(new Uint8Array(22)),
    (b) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-'[b & 63],
  ).join('');

/** The runtime, by name and version: nothing that tells one machine from another. */
function runtime(): string {
  // biome-ignore lint/suspicious/noExplicitAny: feature detection of runtimes' globals
  const g = globalThis as Record<string, any>;
  return g.Deno
    ? `deno/${g.Deno.version?.deno}`
    : g.Bun
      ? `bun/${g.Bun.version}`
      : g.process?.versions?.node
        ? `node/${g.process.versions.node}`
        : typeof document === 'object'
          ? 'browser'
          : g.navigator?.userAgent === 'Cloudflare-Workers'
            ? 'workerd'
            : 'unknown';
}

/** A reporter of `store`'s counts (and `misses`), the client's state read by `state`. */
export function usageReporter(
  o: ResolvedClientOptions,
  store: FlagStore,
  misses: Misses,
  state: () => string,
): UsageReporter {
  const { flushIntervalMs, app } = o.usage!;
  const instance = randomId('i_');
  const waiting: Report[] = [];
  const browser = typeof document === 'object';
  let from = Date.now();
  let quiet = 0;
  let started = false;
  let stopped = false;
  /** The attempt under way at the waiting reports, one at a time. */
  let sending: Promise<void> | undefined;
  /** No attempt before this (a backoff, or the server's `Retry-After`). */
  let notBefore = 0;
  let timer: Timer | undefined;
  /** The page is being left: requests from now on are `keepalive`, so they outlive it. */
  let leaving = false;

  /** The counts since the last report as a report (none without counts, but every 5th quiet interval). */
  const make = (heartbeat?: boolean) => {
    const counts: CountRow[] = [];
    if (harvest([...store.entries.values(), ...store.retired], counts)) store.retired = [];
    const { unknown, dropped, notReady } = misses;
    if (stopped || (counts.length + unknown.size + notReady === 0 && !(heartbeat && ++quiet > 4))) return;
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
      unknown: [...unknown].map(([key, count]) => ({ key, count })),
      unknownDropped: dropped,
      notReady,
    });
    unknown.clear();
    misses.dropped = misses.notReady = 0;
    from = at;
    if (waiting.push({ id, body, at, tries: 0 }) > 10) drop('10 newer ones wait');
  };

  const drop = (why: string) => o.logger.warn(`usage report ${waiting.shift()!.id} dropped: ${why}`);

  /**
   * Sends the waiting reports, oldest first, each until answered; stops at the first that must
   * wait (it is retried after the backoff, and the others after it).
   */
  const send = (): Promise<void> =>
    (sending ??= (async () => {
      while (!stopped && waiting[0] && Date.now() >= notBefore) {
        const report = waiting[0];
        if (report.at < Date.now() - 3_600_000) {
          drop('an hour old');
          continue;
        }
        const exchange = startExchange(o.timeoutMs, undefined, false);
        let status = 0;
        let retryAfter = 0;
        try {
          const response = await exchange.race(
            o.fetch(`${o.base}/sdk/usage`, {
              method: 'POST',
              headers: { authorization: o.authorization, 'content-type': 'application/json' },
              body: report.body,
              // A browser's keepalive request carries at most 64 KiB.
              keepalive: leaving && report.body.length < 60_000,
              signal: exchange.signal,
            }),
          );
          status = response.status;
          retryAfter = Number(response.headers.get('retry-after')) * 1000 || 0;
          await exchange.race(response.text());
        } catch {
          // A network error, or no answer in time: retried with the same id.
        }
        exchange.end();
        if (status === 401 || status === 403 || status === 404) {
          o.logger.warn(`usage reports refused (${status}): no more are sent`);
          stop();
        } else if (status < 400 ? status >= 200 : status < 500 && status !== 408 && status !== 429) {
          if (status > 299) o.logger.warn(`usage report ${report.id} refused (${status})`);
          if (waiting[0] === report) waiting.shift();
        } else {
          notBefore =
            Date.now() +
            Math.max(retryAfter, Math.min(60_000, 1000 * 2 ** report.tries++) * (0.5 + Math.random() / 2));
          clearTimeout(timer);
          timer = later(notBefore - Date.now(), tick);
        }
      }
    })().finally(() => (sending = undefined)));

  /** The interval: a report (or a heartbeat), sent, and the next interval. */
  const tick = () => {
    make(true);
    void send();
    clearTimeout(timer);
    timer = later(Math.max(notBefore - Date.now(), flushIntervalMs * (0.75 + Math.random() / 2)), tick);
  };

  /** The page is left (or hidden, which may be the last chance): a report now, with `keepalive`. */
  const leave = () => {
    leaving = true;
    make();
    void send();
  };
  const hidden = () => {
    if (document.visibilityState === 'hidden') leave();
    else leaving = false;
  };

  const stop = () => {
    stopped = true;
    store.counting = false;
    store.retired = [];
    waiting.length = 0;
    clearTimeout(timer);
    if (started && browser) {
      document.removeEventListener('visibilitychange', hidden);
      removeEventListener('pagehide', leave);
    }
  };

  const flush = async () => {
    make();
    notBefore = 0;
    await send();
    // One that was under way when `flush` came: the rest now.
    await send();
    return !stopped && waiting.length === 0;
  };

  return {
    start() {
      if (started || stopped) return;
      started = true;
      timer = later(flushIntervalMs * (0.75 + Math.random() / 2), tick);
      if (browser) {
        document.addEventListener('visibilitychange', hidden);
        addEventListener('pagehide', leave);
      }
    },
    flush,
    async close(timeoutMs) {
      const deadline = startExchange(timeoutMs, undefined, false);
      await deadline.race(flush()).catch(() => {});
      deadline.end();
      stop();
    },
  };
}
