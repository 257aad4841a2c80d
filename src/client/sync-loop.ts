/**
 * The loop that keeps a client's flags in step with the server (`docs/protocol.md` §9): a small
 * state machine over the states of `status().state` (`stale` aside: `status()` derives it).
 *
 * ```text
 * idle ──start──▶ connecting ──loaded──▶ polling (stream: false), or opens the stream
 *                 └──▶ connecting: the load failed, again after the backoff delay
 * connecting, reconnecting, polling ──opened──▶ connected
 * connecting, connected, reconnecting, polling ──dropped──▶ reconnecting, or polling once the
 *     stream failed `pollAfterStreamFailures` times in a row (with `pollWhileDisconnected`);
 *     both open the stream again after the backoff delay (at least the server's Retry-After)
 * any state but closed ──401/403──▶ failed;  any state ──close──▶ closed
 * ```
 *
 * `enter()` is the one place the state changes: leaving `polling` stops its timer; entering
 * `failed` or `closed` stops everything (`closed` aborts requests too), and nothing leaves them
 * but `failed` for `closed`. Each transition is a function named as in the diagram.
 */
import { Backoff } from '../core/backoff.js';
import { startExchange } from '../core/deadline-exchange.js';
import { later, type Timer } from '../core/timers.js';
import type { SdkFlagUpdate, SdkSegmentUpdate, SdkSnapshot } from '../core/types.js';
import { FlagwireError } from '../errors.js';
import type { FlagStore } from './flag-store.js';
import type { ResolvedClientOptions } from './options.js';
import { parseFlagUpdate, parseSegmentUpdate, parseSnapshot } from './parse.js';
import { readyError } from './ready-error.js';
import { requestSnapshot } from './snapshot-request.js';
import { openStream } from './stream-attempt.js';
import type { ClientStatus, ConnectionState, FlagChange, FlagwireClient } from './types.js';

/** The stream frames the client applies, and how each one's data is checked (`docs/protocol.md` §5.3, §12.6). */
const FRAMES: Record<string, (value: unknown) => SdkSnapshot | SdkFlagUpdate | SdkSegmentUpdate | undefined> =
  {
    'flags:sync': parseSnapshot,
    'flags:updated': parseFlagUpdate,
    'segments:updated': parseSegmentUpdate,
  };

/** The loop of a client with these flags and listeners: its `start`, `ready`, `status` and `close`. */
export function syncLoop(
  o: ResolvedClientOptions,
  store: FlagStore,
  emit: (event: string, ...args: unknown[]) => void,
  emitChanges: (changes: FlagChange[]) => void,
): Pick<FlagwireClient, 'start' | 'ready' | 'status' | 'close'> {
  // Timers hold the process (`holdProcess`): a started client has one pending until it halts (the
  // load's deadline, the watchdog, a retry, reload or poll), in every state, whatever the network.
  const hold = o.holdProcess !== false;
  const controller = new AbortController();
  const backoff = new Backoff(o);
  const reloadBackoff = new Backoff(o);
  // Settles once: loaded, or the client failed or was closed first (`ready()` waits for it).
  let settle!: (error?: FlagwireError) => void;
  const loading = new Promise<void>((resolve, reject) => {
    settle = (error) => (error ? reject(error) : resolve());
  });
  loading.catch(() => {});
  if (o.offline) settle();

  // The connection: its state, the stream attempt, failed attempts in a row, the retry, the poll.
  let state: Exclude<ConnectionState, 'stale'> = 'idle';
  let closeStream: (() => void) | undefined;
  let streamFailures = 0;
  let retryTimer: Timer | undefined;
  let pollTimer: Timer | undefined;

  // Apart from the state, what the client knows: loaded (or offline), the last word from the server,
  // the last error, the last snapshot's ETag, `resync` (the stream sent what it could not place).
  let ready = !!o.offline;
  let lastContactAt: number | undefined;
  let lastError: FlagwireError | undefined;
  let etag: string | null | undefined;
  let resync = false;

  // The reload while out of step (the stream goes on): in flight (`again`: asked again), or backing off.
  let reloading: 'loading' | 'again' | undefined;
  let reloadTimer: Timer | undefined;

  const halted = () => state === 'failed' || state === 'closed';

  const status = (): ClientStatus => {
    // Never in contact: `Date.now() + Infinity`.
    const dataAgeMs = Math.max(0, Date.now() - (lastContactAt ?? -Infinity));
    const stale = ['connected', 'polling', 'reconnecting'].includes(state) && dataAgeMs > o.staleAfterMs;
    return {
      state: stale ? 'stale' : state,
      ready,
      lastContactAt,
      dataAgeMs,
      revision: store.revision,
      lastError,
    };
  };

  /** The one place the state changes: leaves `state`, enters `next`, then tells the listeners. */
  const enter = (next: typeof state) => {
    if (state === next || (halted() && next !== 'closed')) return;
    // Leaving `polling` stops its timer (no other state has one pending).
    clearTimeout(pollTimer);
    state = next;
    if (next === 'polling') schedulePoll();
    if (halted()) {
      if (next === 'closed') controller.abort();
      closeStream?.();
      clearTimeout(retryTimer);
      clearTimeout(reloadTimer);
    }
    emit('status', status());
  };

  // The transitions.

  /** idle → connecting: loads the snapshot. */
  const start = () => {
    if (!o.offline && state === 'idle') {
      enter('connecting');
      void firstLoad();
    }
  };

  /** The first snapshot loaded (the client is ready): → polling, or opens the stream. */
  const loaded = () => {
    backoff.reset();
    ready = true;
    settle();
    emit('ready');
    if (o.stream === false) enter('polling');
    else connect();
  };

  /** The stream is open: → connected (polling stops); the backoff counts it healthy. */
  const opened = () => {
    streamFailures = 0;
    backoff.succeeded(Date.now());
    enter('connected');
  };

  /** The stream failed: → reconnecting or polling, and a new attempt after the backoff delay. */
  const dropped = (error: FlagwireError) => {
    streamFailures++;
    report(error);
    if (halted()) return;
    // Before `enter`: a status listener that closes the client clears it.
    retry(connect, error.retryAfterMs);
    enter(
      o.pollWhileDisconnected !== false && streamFailures >= o.pollAfterStreamFailures
        ? 'polling'
        : 'reconnecting',
    );
  };

  /** A connection problem; a fatal one (401/403: the key was refused) → failed, for good. */
  const report = (error: FlagwireError) => {
    const isFatal = error.status === 401 || error.status === 403;
    if (isFatal) {
      enter('failed');
      settle(error);
    }
    lastError = error;
    if (isFatal) o.logger.error(`${error.message}; stopped (check the API key)`);
    else o.logger.warn(error.message);
    emit('error', error);
  };

  /** → closed: aborts requests, stops the stream and every timer; a pending `ready()` rejects. */
  const close = async () => {
    enter('closed');
    settle(new FlagwireError('CLIENT_CLOSED', 'the client is closed'));
  };

  // What the states do.

  /** After a failure: again after the backoff delay, or the server's Retry-After if longer (load shedding). */
  const retry = (again: () => void, retryAfterMs = 0) => {
    retryTimer = later(Math.max(backoff.next(Date.now()), retryAfterMs), again, hold);
  };

  /** connecting: the first snapshot, again after each failure until one loads. */
  const firstLoad = async () => {
    const error = await load();
    if (halted()) return;
    if (error) retry(firstLoad, error.retryAfterMs);
    else loaded();
  };

  /** Loads the snapshot (revalidating unless out of step); the error when it failed, reported. */
  const load = async (): Promise<FlagwireError | undefined> => {
    const epoch = store.epoch;
    const revalidate = resync || store.missing ? undefined : etag;
    const error = await requestSnapshot(o, controller.signal, hold, revalidate, (snapshot, tag) => {
      if (halted()) return;
      lastContactAt = Date.now();
      // An answer of the epoch the client left while it was on its way is old news.
      if (snapshot && !(snapshot.epoch === epoch && store.epoch !== epoch)) {
        etag = tag;
        applySnapshot(snapshot);
      }
    });
    if (error && !halted()) report(error);
    return error;
  };

  /** connecting, reconnecting, polling: one attempt at the stream, from the last event applied. */
  const connect = () => {
    // After the first load (a `ready` listener may have closed the client), or the retry timer.
    if (!halted()) closeStream = openStream(o, store.lastEventId, hold, received, dropped);
  };

  /** Any stream event says the server is there; `open` opened it; frames are applied in order. */
  const received = (name: string, event: { data: string; lastEventId: string }) => {
    lastContactAt = Date.now();
    if (name === 'open') return opened();
    const parse = Object.hasOwn(FRAMES, name) ? FRAMES[name] : undefined;
    if (!parse) return;
    let value: SdkSnapshot | SdkFlagUpdate | SdkSegmentUpdate | undefined;
    try {
      value = parse(JSON.parse(event.data));
    } catch {}
    if (!value) {
      o.logger.warn(`bad ${name} event; reloading flags`);
      outOfStep();
    } else if (name === 'flags:sync') {
      applySnapshot(value as SdkSnapshot);
    } else {
      const outcome =
        name === 'flags:updated'
          ? store.apply(value as SdkFlagUpdate, event.lastEventId)
          : store.applySegment(value as SdkSegmentUpdate, event.lastEventId);
      if (outcome === 'foreign') outOfStep();
      else if (outcome !== 'stale') {
        emitChanges(outcome.changes);
        if (outcome.gap) reload();
      }
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

  /** polling: the next poll, one at a time. */
  const schedulePoll = () => {
    // A poll that was in flight when polling stopped and started again: one schedule only.
    clearTimeout(pollTimer);
    pollTimer = later(
      o.pollIntervalMs,
      async () => {
        await load();
        if (state === 'polling') schedulePoll();
      },
      hold,
    );
  };

  /** Reloads while out of step: asked during a reload, right after it; still out of step, with backoff. */
  const reload = () => {
    if (reloadTimer || halted()) return;
    if (reloading) {
      reloading = 'again';
      return;
    }
    reloading = 'loading';
    void load().finally(() => {
      // A new reason arrived meanwhile (the answer may predate it): ask again at once.
      const again = reloading === 'again';
      reloading = undefined;
      if (halted()) return;
      if (!(resync || store.missing)) reloadBackoff.reset();
      else if (again) reload();
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

  return {
    start,
    ready({ signal, timeoutMs = 2 ** 31 - 1 } = {}) {
      if (ready || halted()) return loading;
      start();
      // The deadline and abort reject with nothing. Pending, it holds the process: its caller waits.
      const wait = startExchange(timeoutMs, signal, true);
      return wait
        .race(loading)
        .catch((error?: FlagwireError) => {
          throw error ?? readyError(signal, timeoutMs, lastError);
        })
        .finally(wait.end);
    },
    status,
    close,
  };
}
