/**
 * `createClient()`: the Flagwire client. It does no I/O until `ready()` or `start()`;
 * evaluation is synchronous, local and never throws.
 */
import type { SdkFlag } from '../core/types.js';
import { FlagwireError } from '../errors.js';
import { Emitter } from './emitter.js';
import { evaluateDetail, evaluateFlag } from './evaluate.js';
import { FlagStore } from './flag-store.js';
import { type ClientOptions, resolveClientOptions } from './options.js';
import { Synchronizer } from './synchronizer.js';
import { cancel, later } from './timers.js';
import type {
  ClientEventName,
  ClientListener,
  ClientStatus,
  EvaluationDetail,
  FlagChange,
  FlagwireClient,
  ReadyOptions,
  User,
} from './types.js';

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
  return new Client(options);
}

/** The client; exported for the in-memory test client (`flagwire/testing`), not from the barrel. */
export class Client implements FlagwireClient {
  readonly #options;
  /** The flags; `protected` for the test client, which sets them directly. */
  protected readonly store = new FlagStore();
  readonly #flags: Map<string, SdkFlag>;
  readonly #events: Emitter;
  readonly #sync: Synchronizer;
  #loaded = false;
  #lastError: FlagwireError | undefined;
  #fatal: FlagwireError | undefined;
  #closed = false;
  #readyWaiters = new Set<{ resolve: () => void; reject: (error: FlagwireError) => void }>();

  constructor(options: ClientOptions) {
    this.#options = resolveClientOptions(options);
    this.#flags = this.store.flags;
    const { logger } = this.#options;
    this.#events = new Emitter((event, error) =>
      logger.error(`a "${event}" listener threw: ${(error as Error)?.stack ?? String(error)}`),
    );
    const { bootstrap } = this.#options;
    if (bootstrap) {
      if (Array.isArray(bootstrap)) this.store.replaceWithFlags(bootstrap);
      else this.store.replace(bootstrap as Exclude<typeof bootstrap, readonly unknown[]>);
    }
    this.#sync = new Synchronizer(this.#options, this.store, {
      changes: (changes) => this.emitChanges(changes),
      loaded: () => this.#markLoaded(),
      state: () => this.#events.emit('status', this.status()),
      error: (error, fatal) => {
        this.#lastError = error;
        if (fatal) {
          this.#fatal = error;
          logger.error(`${error.message}; the client stopped (check the API key)`);
          this.#settleReady(error);
        } else {
          logger.warn(error.message);
        }
        this.#events.emit('error', error);
      },
    });
    if (this.#options.offline) this.#loaded = true;
  }

  start(): void {
    if (this.#closed || this.#options.offline) return;
    this.#sync.start();
  }

  ready(options: ReadyOptions = {}): Promise<void> {
    if (this.#loaded) return Promise.resolve();
    if (this.#fatal) return Promise.reject(this.#fatal);
    if (this.#closed) return Promise.reject(new FlagwireError('CLIENT_CLOSED', 'the client is closed'));
    this.start();
    return new Promise<void>((resolve, reject) => {
      const { signal, timeoutMs } = options;
      if (signal?.aborted) {
        reject(new FlagwireError('ABORTED', 'ready() was aborted'));
        return;
      }
      let timer: ReturnType<typeof later> | undefined;
      const onAbort = () => settle(new FlagwireError('ABORTED', 'ready() was aborted'));
      const waiter = {
        resolve: () => settle(undefined),
        reject: (error: FlagwireError) => settle(error),
      };
      const settle = (error: FlagwireError | undefined) => {
        timer = cancel(timer);
        signal?.removeEventListener('abort', onAbort);
        this.#readyWaiters.delete(waiter);
        if (error) reject(error);
        else resolve();
      };
      this.#readyWaiters.add(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (timeoutMs !== undefined) {
        timer = later(timeoutMs, () =>
          settle(
            new FlagwireError(
              'TIMEOUT',
              `flags were not loaded within ${timeoutMs} ms${this.#lastError ? ` (last error: ${this.#lastError.message})` : ''}; the client keeps trying`,
              { cause: this.#lastError },
            ),
          ),
        );
      }
    });
  }

  isEnabled(flagKey: string, user?: User, defaultValue = false): boolean {
    try {
      return evaluateFlag(this.#flags.get(flagKey), flagKey, user, defaultValue, this.store.prefixes);
    } catch {
      return defaultValue === true;
    }
  }

  isEnabledDetail(flagKey: string, user?: User, defaultValue = false): EvaluationDetail {
    try {
      return evaluateDetail(this.#flags.get(flagKey), flagKey, user, defaultValue, this.store.loaded);
    } catch {
      return { value: defaultValue === true, reason: 'ERROR' };
    }
  }

  allFlags(): Record<string, SdkFlag> {
    const out: Record<string, SdkFlag> = {};
    for (const [key, flag] of this.#flags) {
      // A plain assignment to "__proto__" would set the prototype instead of the flag.
      Object.defineProperty(out, key, {
        value: { ...flag },
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }

  on<E extends ClientEventName>(
    event: E,
    listener: ClientListener<E>,
    options?: { signal?: AbortSignal },
  ): () => void {
    return this.#events.on(event, listener as (...args: never[]) => void, options?.signal);
  }

  status(): ClientStatus {
    const now = Date.now();
    const lastContactAt = this.#sync.lastContactAt;
    const dataAgeMs =
      lastContactAt === undefined ? Number.POSITIVE_INFINITY : Math.max(0, now - lastContactAt);
    let state = this.#sync.state;
    if (
      (state === 'connected' || state === 'polling' || state === 'reconnecting') &&
      dataAgeMs > this.#options.staleAfterMs
    ) {
      state = 'stale';
    }
    return {
      state,
      ready: this.#loaded,
      lastContactAt,
      dataAgeMs,
      revision: this.store.revision,
      lastError: this.#lastError,
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#sync.close();
    this.#settleReady(new FlagwireError('CLIENT_CLOSED', 'the client was closed before flags were loaded'));
  }

  #markLoaded(): void {
    if (this.#loaded) return;
    this.#loaded = true;
    this.#settleReady(undefined);
    this.#events.emit('ready');
  }

  #settleReady(error: FlagwireError | undefined): void {
    for (const waiter of [...this.#readyWaiters]) {
      if (error) waiter.reject(error);
      else waiter.resolve();
    }
  }

  /** Emits `change` and `change:<key>` for each change. */
  protected emitChanges(changes: FlagChange[]): void {
    for (const change of changes) {
      this.#events.emit('change', change);
      const perFlag = `change:${change.key}`;
      if (this.#events.has(perFlag)) this.#events.emit(perFlag, change);
    }
  }
}
