/**
 * Keeps a `FlagStore` in step with the server: load the snapshot, then follow the stream,
 * resuming with `Last-Event-ID`; back off with jitter on failures, poll while the stream
 * cannot be held, reload the snapshot when the stream shows a gap, and stop for good on
 * 401/403 (`docs/protocol.md` §5).
 */
import { Backoff } from '../core/backoff.js';
import type { SdkSnapshot } from '../core/types.js';
import type { FlagwireError } from '../errors.js';
import type { FlagStore } from './flag-store.js';
import { fetchSnapshot } from './http.js';
import type { ResolvedClientOptions } from './options.js';
import { parseFlagUpdate, parseSnapshot } from './parse.js';
import { openStream, type StreamAttempt, type StreamEventName } from './stream.js';
import { cancel, later, type Timer } from './timers.js';
import type { ConnectionState, FlagChange } from './types.js';

export interface SyncCallbacks {
  changes(changes: FlagChange[]): void;
  loaded(): void;
  state(state: ConnectionState): void;
  error(error: FlagwireError, fatal: boolean): void;
}

export class Synchronizer {
  readonly #options: ResolvedClientOptions;
  readonly #store: FlagStore;
  readonly #callbacks: SyncCallbacks;
  readonly #controller = new AbortController();
  readonly #backoff: Backoff;
  #state: ConnectionState = 'idle';
  #etag: string | undefined;
  #stream: StreamAttempt | undefined;
  #streamOpen = false;
  #streamFailures = 0;
  #retryTimer: Timer | undefined;
  #pollTimer: Timer | undefined;
  #polling = false;
  #reloading = false;
  /** Something asked for a reload while one was in flight. */
  #reloadAgain = false;
  /** The stream sent something the client could not place (another epoch, bad data): reload. */
  #resync = false;
  #reloadTimer: Timer | undefined;
  readonly #reloadBackoff: Backoff;
  /** `Retry-After` of the last failed snapshot load, if the server sent one. */
  #retryAfterMs: number | undefined;
  /** Epoch ms of the last time the server confirmed the data current. */
  lastContactAt: number | undefined;

  constructor(options: ResolvedClientOptions, store: FlagStore, callbacks: SyncCallbacks) {
    this.#options = options;
    this.#store = store;
    this.#callbacks = callbacks;
    this.#backoff = new Backoff({
      initialMs: options.initialRetryDelayMs,
      maxMs: options.maxRetryDelayMs,
      resetAfterMs: options.retryResetAfterMs,
    });
    this.#reloadBackoff = new Backoff({
      initialMs: options.initialRetryDelayMs,
      maxMs: options.maxRetryDelayMs,
      resetAfterMs: options.retryResetAfterMs,
    });
  }

  get state(): ConnectionState {
    return this.#state;
  }

  start(): void {
    if (this.#state !== 'idle') return;
    this.#setState('connecting');
    void this.#initialLoad();
  }

  close(): void {
    if (this.#state === 'closed') return;
    this.#controller.abort();
    this.#stream?.close();
    this.#stream = undefined;
    this.#retryTimer = cancel(this.#retryTimer);
    this.#pollTimer = cancel(this.#pollTimer);
    this.#reloadTimer = cancel(this.#reloadTimer);
    this.#setState('closed');
  }

  get #stopped(): boolean {
    return this.#state === 'closed' || this.#state === 'failed';
  }

  #setState(state: ConnectionState): void {
    if (this.#state === state) return;
    this.#state = state;
    this.#callbacks.state(state);
  }

  #contact(): void {
    this.lastContactAt = Date.now();
  }

  #fail(error: FlagwireError): void {
    if (this.#stopped) return;
    this.#stream?.close();
    this.#stream = undefined;
    this.#retryTimer = cancel(this.#retryTimer);
    this.#pollTimer = cancel(this.#pollTimer);
    this.#reloadTimer = cancel(this.#reloadTimer);
    this.#setState('failed');
    this.#callbacks.error(error, true);
  }

  /** Loads the snapshot; true when it was applied (or unchanged). Fatal errors stop the client. */
  async #loadSnapshot(): Promise<boolean> {
    try {
      // Out of step, only a full answer helps: no revalidation.
      const revalidate = this.#store.loaded && !this.#resync && !this.#store.missing;
      const epoch = this.#store.epoch;
      const result = await fetchSnapshot(
        this.#options,
        revalidate ? this.#etag : undefined,
        this.#controller.signal,
      );
      if (this.#stopped) return false;
      this.#contact();
      // An answer of the epoch the client left while it was on its way is old news.
      const left = result.kind === 'ok' && result.snapshot.epoch === epoch && this.#store.epoch !== epoch;
      if (result.kind === 'ok' && !left) {
        this.#etag = result.etag;
        this.#applySnapshot(result.snapshot);
      }
      return true;
    } catch (error) {
      if (this.#stopped) return false;
      const e = error as FlagwireError;
      this.#retryAfterMs = e.retryAfterMs;
      if (e.code === 'UNAUTHORIZED' || e.code === 'FORBIDDEN') this.#fail(e);
      else this.#callbacks.error(e, false);
      return false;
    }
  }

  #applySnapshot(snapshot: SdkSnapshot): void {
    const changes = this.#store.replace(snapshot);
    if (!changes) return;
    this.#resync = false;
    if (changes.length) this.#callbacks.changes(changes);
  }

  async #initialLoad(): Promise<void> {
    if (!(await this.#loadSnapshot())) {
      if (this.#stopped) return;
      // The server's Retry-After (load shedding) wins over a shorter backoff.
      const delay = Math.max(this.#backoff.next(Date.now()), this.#retryAfterMs ?? 0);
      this.#retryTimer = later(delay, () => void this.#initialLoad());
      return;
    }
    this.#backoff.reset();
    this.#callbacks.loaded();
    if (this.#options.stream) this.#connect();
    else {
      this.#setState('polling');
      this.#schedulePoll();
    }
  }

  #connect(): void {
    if (this.#stopped) return;
    this.#retryTimer = cancel(this.#retryTimer);
    this.#streamOpen = false;
    this.#stream = openStream(this.#options, this.#store.lastEventId, {
      open: () => {
        this.#streamOpen = true;
        this.#streamFailures = 0;
        this.#contact();
        this.#backoff.succeeded(Date.now());
        this.#stopPolling();
        this.#setState('connected');
      },
      event: (name, data, id) => this.#onEvent(name, data, id),
      failure: (error, fatal) => {
        this.#stream = undefined;
        this.#streamOpen = false;
        if (fatal) {
          this.#fail(error);
          return;
        }
        this.#streamFailures += 1;
        this.#callbacks.error(error, false);
        if (
          this.#options.pollWhileDisconnected &&
          this.#streamFailures >= this.#options.pollAfterStreamFailures
        ) {
          this.#startPolling();
        } else {
          this.#setState('reconnecting');
        }
        // The server's Retry-After (load shedding) wins over a shorter backoff.
        const delay = Math.max(this.#backoff.next(Date.now()), error.retryAfterMs ?? 0);
        this.#retryTimer = later(delay, () => this.#connect());
      },
    });
  }

  #onEvent(name: StreamEventName, data: string, id: string | undefined): void {
    this.#contact();
    if (name === 'ping') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      this.#refuse(`ignored a ${name} event whose data is not JSON; reloading flags`);
      return;
    }
    if (name === 'flags:sync') {
      const snapshot = parseSnapshot(parsed);
      if (!snapshot) {
        this.#refuse('ignored a flags:sync event that is not a snapshot; reloading flags');
        return;
      }
      this.#applySnapshot(snapshot);
      return;
    }
    const update = parseFlagUpdate(parsed);
    if (!update) {
      this.#refuse('ignored a flags:updated event that is not a flag; reloading flags');
      return;
    }
    const outcome = this.#store.apply(update, id);
    if (outcome.kind === 'applied') {
      if (outcome.change) this.#callbacks.changes([outcome.change]);
      if (outcome.gap) this.#reload();
    } else if (outcome.kind === 'foreign') {
      this.#resync = true;
      this.#reload();
    }
  }

  /** An event the client cannot place: say so, and reload until a snapshot is applied. */
  #refuse(warning: string): void {
    this.#options.logger.warn(warning);
    this.#resync = true;
    this.#reload();
  }

  /**
   * Reloads the snapshot while the client is out of step (the stream skipped revisions, or
   * sent something it could not place); the stream goes on meanwhile. A reload asked for
   * while one is in flight runs right after it, if still needed; a reload that did not bring
   * the client back in step (it failed, or answered a snapshot older than the gap) is retried
   * with backoff.
   */
  #reload(): void {
    if (this.#reloadTimer || this.#stopped) return;
    if (this.#reloading) {
      this.#reloadAgain = true;
      return;
    }
    this.#reloading = true;
    this.#reloadAgain = false;
    void this.#loadSnapshot().finally(() => {
      this.#reloading = false;
      if (this.#stopped) return;
      if (!this.#resync && !this.#store.missing) {
        this.#reloadBackoff.reset();
        return;
      }
      // A new reason arrived meanwhile (the answer may predate it): ask again at once.
      if (this.#reloadAgain) {
        this.#reload();
        return;
      }
      this.#reloadTimer = later(this.#reloadBackoff.next(Date.now()), () => {
        this.#reloadTimer = undefined;
        this.#reload();
      });
    });
  }

  #startPolling(): void {
    this.#setState('polling');
    if (this.#polling) return;
    this.#polling = true;
    this.#schedulePoll();
  }

  #stopPolling(): void {
    this.#polling = false;
    this.#pollTimer = cancel(this.#pollTimer);
  }

  #schedulePoll(): void {
    if (this.#stopped) return;
    this.#pollTimer = cancel(this.#pollTimer);
    this.#pollTimer = later(this.#options.pollIntervalMs, async () => {
      this.#pollTimer = undefined;
      if (this.#stopped || (this.#options.stream && (!this.#polling || this.#streamOpen))) return;
      await this.#loadSnapshot();
      this.#schedulePoll();
    });
  }
}
