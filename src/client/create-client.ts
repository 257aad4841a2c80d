/**
 * `createClient()`: the Flagwire client. It does no I/O until `ready()` or `start()`;
 * evaluation is synchronous, local and never throws.
 *
 * It keeps its `FlagStore` in step with the server: load the snapshot, then follow the
 * stream, resuming with `Last-Event-ID`; back off with jitter on failures, poll while the
 * stream cannot be held, reload the snapshot when the stream shows a gap, and stop for good
 * on 401/403 (`docs/protocol.md` §5). Listeners run in order; a throwing one is logged and
 * never stops the others.
 */
import { EventSource } from 'eventsource';
import { Backoff } from '../core/backoff.js';
import { startExchange } from '../core/deadline-exchange.js';
import { evaluateDetail, evaluateFlag } from '../core/evaluate.js';
import { answerError } from '../core/http.js';
import { sdkFlag } from '../core/sdk-flag.js';
import { later, type Timer } from '../core/timers.js';
import type { SdkFlag, SdkFlagUpdate, SdkSnapshot } from '../core/types.js';
import { FlagwireError, requestError } from '../errors.js';
import { FlagStore } from './flag-store.js';
import { type ClientOptions, resolveClientOptions } from './options.js';
import { parseFlagUpdate, parseSnapshot } from './parse.js';
import type { ClientStatus, ConnectionState, FlagChange, FlagwireClient } from './types.js';

/**
 * Creates a client. Programmer errors (no `apiKey`, a bad `baseUrl`) throw here, at once.
 *
 * ```ts
 * const client = createClient({ baseUrl: 'http://127.0.0.1:8787/api/v1', apiKey });
 * await client.ready({ timeoutMs: 5000 });
 * client.isEnabled('new-checkout', { key: 'user-42' });
 * ```
 */
export function createClient(options: ClientOptions): FlagwireClient {
  return clientParts(options)[0];
}

/**
 * The client, its flags and the function that emits changes: the in-memory test client
 * (`flagwire/testing`) sets flags directly. Not exported from the barrel.
 */
export function clientParts(
  options: ClientOptions,
): [FlagwireClient, FlagStore, (changes: FlagChange[]) => void] {
  const o = resolveClientOptions(options);
  const { logger, bootstrap } = o;
  const store = new FlagStore();
  const { flags, prefixes } = store;
  /** The listeners of `on`: they run in order, each wrapped so that a throwing one is logged. */
  const events = new EventTarget();
  const controller = new AbortController();
  const backoff = new Backoff(o);
  const reloadBackoff = new Backoff(o);
  let state: ConnectionState = 'idle';
  /** `closed` or `failed`: nothing runs any more. */
  let halted = false;
  let loaded = !!o.offline;
  /** Settles once: loaded, or the client failed or was closed first (`ready()` waits for it). */
  let loadingDone!: (error?: FlagwireError) => void;
  const loading = new Promise<void>((resolve, reject) => {
    loadingDone = (error) => (error ? reject(error) : resolve());
  });
  loading.catch(() => {});
  if (loaded) loadingDone();
  let lastError: FlagwireError | undefined;
  /** Epoch ms of the last time the server confirmed the data current. */
  let lastContactAt: number | undefined;
  let etag: string | undefined;
  let closeStream: (() => void) | undefined;
  let streamFailures = 0;
  let retryTimer: Timer | undefined;
  let pollTimer: Timer | undefined;
  let reloadTimer: Timer | undefined;
  /**
   * Whether the client's timers keep the process alive (`holdProcess`). A started client always
   * has one pending until it halts (the load's deadline, the stream's watchdog, the next retry,
   * reload or poll), so it holds the process in every state alike, whatever the network does.
   */
  const hold = o.holdProcess !== false;
  /** Polling (`stream: false`, or the stream cannot be held); the stream's `open` stops it. */
  let polling = false;
  let reloading = false;
  /** Something asked for a reload while one was in flight. */
  let reloadAgain = false;
  /** The stream sent something the client could not place (another epoch, bad data): reload. */
  let resync = false;

  if (Array.isArray(bootstrap)) {
    // Flags in the management representation: no revision, no epoch.
    for (const flag of bootstrap) store.put(sdkFlag(flag, 0));
    store.loaded = true;
  } else if (bootstrap) {
    store.replace(bootstrap as SdkSnapshot);
  }

  const emit = (event: string, ...args: unknown[]) => {
    events.dispatchEvent(Object.assign(new Event(event), { args }));
  };
  /** Emits `change` and `change:<key>` for each change. */
  const emitChanges = (changes: FlagChange[]) => {
    for (const change of changes) {
      emit('change', change);
      emit(`change:${change.key}`, change);
    }
  };
  const status = (): ClientStatus => {
    // Never in contact: `Date.now() + Infinity`.
    const dataAgeMs = Math.max(0, Date.now() - (lastContactAt ?? -Infinity));
    return {
      state:
        ['connected', 'polling', 'reconnecting'].includes(state) && dataAgeMs > o.staleAfterMs
          ? 'stale'
          : state,
      ready: loaded,
      lastContactAt,
      dataAgeMs,
      revision: store.revision,
      lastError,
    };
  };
  const setState = (next: ConnectionState) => {
    if (state === next) return;
    state = next;
    emit('status', status());
  };
  /** Stops the stream and every timer, and enters `closed` or `failed`. */
  const halt = (next: ConnectionState) => {
    halted = true;
    closeStream?.();
    clearTimeout(retryTimer);
    clearTimeout(pollTimer);
    clearTimeout(reloadTimer);
    setState(next);
  };
  /** A connection problem; a fatal one (401/403: the key was refused) stops the client for good. */
  const report = (error: FlagwireError) => {
    const isFatal = error.status === 401 || error.status === 403;
    if (isFatal) {
      halt('failed');
      loadingDone(error);
    }
    lastError = error;
    if (isFatal) logger.error(`${error.message}; stopped (check the API key)`);
    else logger.warn(error.message);
    emit('error', error);
  };
  /** After a failure: again after the backoff delay, or the server's Retry-After if longer (load shedding). */
  const retry = (again: () => void, retryAfterMs = 0) => {
    retryTimer = later(Math.max(backoff.next(Date.now()), retryAfterMs), again, hold);
  };
  const startPolling = () => {
    setState('polling');
    if (!polling) {
      polling = true;
      schedulePoll();
    }
  };
  const applySnapshot = (snapshot: SdkSnapshot) => {
    const changes = store.replace(snapshot);
    if (!changes) return;
    resync = false;
    emitChanges(changes);
  };
  /** An event the client cannot place: reload until a snapshot is applied. */
  const outOfStep = () => {
    resync = true;
    reload();
  };

  /**
   * Loads the snapshot (`GET /sdk/flags`, `docs/protocol.md` §5.2) under a deadline that covers
   * the whole exchange, revalidating with its `ETag`; the error when it failed (a fatal one
   * stops the client).
   */
  const load = async (): Promise<FlagwireError | undefined> => {
    const url = `${o.base}/sdk/flags`;
    const exchange = startExchange(o.timeoutMs, controller.signal, hold);
    const epoch = store.epoch;
    const headers: Record<string, string> = { authorization: o.authorization, accept: 'application/json' };
    // Out of step, only a full answer helps: no revalidation. (An ETag comes with a snapshot applied.)
    if (etag && !resync && !store.missing) headers['if-none-match'] = etag;
    try {
      const response = await exchange.race(
        o.fetch(url, { headers, signal: exchange.signal, cache: 'no-store' }),
      );
      const { status } = response;
      let snapshot: SdkSnapshot | undefined;
      // A 304 has no body (the Fetch standard's null-body status): nothing to read or release.
      if (status !== 304) {
        let body: unknown;
        let cause: unknown;
        try {
          body = await exchange.race(response.json());
        } catch (error) {
          // Not JSON, or the deadline passed while reading (then `failure` says TIMEOUT).
          cause = error;
          void response.body?.cancel().catch(() => {});
        }
        if (!response.ok) throw answerError(response, 'GET', url, body);
        snapshot = parseSnapshot(body);
        if (!snapshot) {
          throw requestError('INVALID_RESPONSE', 'GET', url, ' answered no valid snapshot', {
            status,
            cause,
          });
        }
      }
      if (halted) return;
      lastContactAt = Date.now();
      // An answer of the epoch the client left while it was on its way is old news.
      if (snapshot && !(snapshot.epoch === epoch && store.epoch !== epoch)) {
        etag = response.headers.get('etag') ?? undefined;
        applySnapshot(snapshot);
      }
    } catch (error) {
      const failure = exchange.failure(error, 'GET', url);
      if (!halted) report(failure);
      return failure;
    } finally {
      exchange.end();
    }
  };

  const initialLoad = async (): Promise<void> => {
    const error = await load();
    if (halted) return;
    if (error) return retry(initialLoad, error.retryAfterMs);
    backoff.reset();
    if (!loaded) {
      loaded = true;
      loadingDone();
      emit('ready');
    }
    if (o.stream === false) startPolling();
    else connect();
  };

  /**
   * One attempt at the event stream (`docs/protocol.md` §5.3) through the `eventsource`
   * package, whose `fetch` option carries the `Authorization` header (so it works in browsers
   * too). The package retries at a fixed interval and gives up on a non-200, so the client
   * never lets it retry: any failure closes the attempt and is handled once, here (backoff,
   * 401/403 stop, resume with `Last-Event-ID`). A watchdog fails the attempt when nothing,
   * not even a `ping`, arrives for `streamReadTimeoutMs`.
   */
  const connect = (): void => {
    // Called by `initialLoad` and by the retry timer: no other retry is pending then.
    if (halted) return;
    const url = `${o.base}/sdk/events`;
    const lastEventId = store.lastEventId;
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
    const failure = (error: FlagwireError) => {
      if (done) return;
      close();
      streamFailures++;
      report(error);
      if (halted) return;
      if (o.pollWhileDisconnected !== false && streamFailures >= o.pollAfterStreamFailures) startPolling();
      else setState('reconnecting');
      retry(connect, error.retryAfterMs);
    };
    /** Fails the attempt unless something (the response, then any frame) arrives within `ms`. */
    const watch = (ms: number, code: string) => {
      clearTimeout(watchdog);
      watchdog = later(ms, () => failure(requestError(code, 'GET', url, `: no data within ${ms} ms`)), hold);
    };
    /** Something arrived (the server is there): re-arms the watchdog. False once the attempt is over. */
    const alive = () => {
      if (!done) {
        lastContactAt = Date.now();
        watch(o.streamReadTimeoutMs, 'TIMEOUT');
      }
      return !done;
    };

    const source = new EventSource(url, {
      // `async`: a `fetch` that throws fails the attempt like one that rejects.
      fetch: async (input, init) => {
        const headers: Record<string, string> = { ...init.headers, authorization: o.authorization };
        if (lastEventId) headers['Last-Event-ID'] = lastEventId;
        answer = await o.fetch(input, { ...init, headers });
        return answer;
      },
    });
    // A connect that hangs before the response fails like a network error; closing the
    // attempt aborts the request.
    watch(o.timeoutMs, 'NETWORK_ERROR');
    closeStream = close;

    source.addEventListener('open', () => {
      if (!alive()) return;
      streamFailures = 0;
      backoff.succeeded(Date.now());
      polling = false;
      clearTimeout(pollTimer);
      setState('connected');
    });
    for (const name of ['flags:updated', 'flags:sync', 'ping']) {
      source.addEventListener(name, (event: MessageEvent) => {
        if (!alive() || name === 'ping') return;
        const sync = name === 'flags:sync';
        let value: SdkSnapshot | SdkFlagUpdate | undefined;
        try {
          value = (sync ? parseSnapshot : parseFlagUpdate)(JSON.parse(event.data));
        } catch {}
        if (!value) {
          logger.warn(`bad ${name} event; reloading flags`);
          outOfStep();
        } else if (sync) {
          applySnapshot(value as SdkSnapshot);
        } else {
          const outcome = store.apply(value as SdkFlagUpdate, event.lastEventId);
          if (outcome === 'foreign') outOfStep();
          else if (outcome !== 'stale') {
            if (outcome.change) emitChanges([outcome.change]);
            if (outcome.gap) reload();
          }
        }
      });
    }
    source.addEventListener('error', (event) => {
      // A frame the server named `event: error` is a message, not a transport failure.
      if ('data' in event) {
        alive();
        return;
      }
      const { code: status, message = 'connection failed' } = event as { code?: number; message?: string };
      failure(
        status === undefined
          ? requestError('NETWORK_ERROR', 'GET', url, `: ${message}`)
          : answerError(answer, 'GET', url, { message }),
      );
    });
  };

  /**
   * Reloads the snapshot while the client is out of step (the stream skipped revisions, or
   * sent something it could not place); the stream goes on meanwhile. A reload asked for
   * while one is in flight runs right after it, if still needed; a reload that did not bring
   * the client back in step (it failed, or answered a snapshot older than the gap) is retried
   * with backoff.
   */
  const reload = (): void => {
    if (reloadTimer || halted) return;
    if (reloading) {
      reloadAgain = true;
      return;
    }
    reloading = true;
    reloadAgain = false;
    void load().finally(() => {
      reloading = false;
      if (halted) return;
      if (!resync && !store.missing) reloadBackoff.reset();
      // A new reason arrived meanwhile (the answer may predate it): ask again at once.
      else if (reloadAgain) reload();
      else {
        reloadTimer = later(
          reloadBackoff.next(Date.now()),
          () => {
            reloadTimer = undefined;
            reload();
          },
          hold,
        );
      }
    });
  };

  const schedulePoll = (): void => {
    if (halted) return;
    // A poll that was in flight when polling stopped and started again: one schedule only.
    clearTimeout(pollTimer);
    pollTimer = later(
      o.pollIntervalMs,
      async () => {
        // The stream's `open` stopped polling meanwhile.
        if (halted || !polling) return;
        await load();
        schedulePoll();
      },
      hold,
    );
  };

  const start = () => {
    if (o.offline || state !== 'idle') return;
    setState('connecting');
    void initialLoad();
  };

  const client: FlagwireClient = {
    start,

    ready({ signal, timeoutMs = 2 ** 31 - 1 } = {}) {
      if (loaded || halted) return loading;
      start();
      // The exchange's deadline and abort reject with nothing; the load's own failure with an
      // error. A pending `ready()` holds the process (even with `holdProcess: false`): its caller waits.
      const wait = startExchange(timeoutMs, signal, true);
      return wait
        .race(loading)
        .catch((error?: FlagwireError) => {
          throw (
            error ??
            (signal?.aborted
              ? new FlagwireError('ABORTED', 'ready() was aborted')
              : new FlagwireError(
                  'TIMEOUT',
                  `flags not loaded within ${timeoutMs} ms${lastError ? `: ${lastError.message}` : ''}`,
                  { cause: lastError },
                ))
          );
        })
        .finally(wait.end);
    },

    isEnabled(flagKey, user, defaultValue = false) {
      try {
        return evaluateFlag(flags.get(flagKey), user, defaultValue, prefixes.get(flagKey));
      } catch {
        return defaultValue === true;
      }
    },

    isEnabledDetail(flagKey, user, defaultValue = false) {
      try {
        return evaluateDetail(flags.get(flagKey), user, defaultValue, store.loaded, prefixes.get(flagKey));
      } catch {
        return { value: defaultValue === true, reason: 'ERROR' };
      }
    },

    // `fromEntries` defines each key as an own property: a key "__proto__" stays a flag.
    allFlags: () =>
      Object.fromEntries([...flags].map(([key, flag]): [string, SdkFlag] => [key, { ...flag }])),

    on(event, listener, options) {
      // A new function each time: the same listener subscribed twice is two subscriptions.
      const entry = (e: Event) => {
        try {
          (listener as (...a: unknown[]) => void)(...(e as Event & { args: unknown[] }).args);
        } catch (error) {
          logger.error(`a "${event}" listener threw: ${(error as Error)?.stack ?? String(error)}`);
        }
      };
      events.addEventListener(event, entry, { signal: options?.signal } as AddEventListenerOptions);
      return () => events.removeEventListener(event, entry);
    },

    status,

    async close() {
      if (state === 'closed') return;
      controller.abort();
      halt('closed');
      loadingDone(new FlagwireError('CLIENT_CLOSED', 'the client is closed'));
    },
  };
  return [client, store, emitChanges];
}
