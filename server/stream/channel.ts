/**
 * The one SSE primitive under the server's three streams: the SDK's (`docs/protocol.md` §5.3),
 * the dashboard's (§10.5) and OFREP's (§11.4). A stream file keeps what its events are, who may
 * subscribe and what each subscriber gets; the connection is here. `SseGroup`: the options every
 * stream honours and what the streams share (the count against `maxStreams`, the total budget of
 * unsent bytes past which the streams furthest behind are cut, whatever their kind).
 * `SseChannels`: the open streams of one kind: the head, the `retry:` line, pings, the client's
 * leaving, the per-stream bound (a stream past it is cut; its client reconnects), and `close()`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface SseGroupOptions {
  /** Interval of the pings of every stream (`pingIntervalMs`). */
  pingIntervalMs: number;
  /** Reconnection delay of the `retry:` line every stream opens with (`streamRetryMs`). */
  retryMs: number;
  /** Unsent bytes after which a stream that does not read is cut (`streamMaxBufferedBytes`). */
  maxBufferedBytes: number;
  /** Unsent bytes of all the group's streams after which the furthest behind are cut. */
  maxTotalBufferedBytes: number;
  /** Open streams of the kinds that count, after which `full` says so (`maxStreams`). */
  maxStreams: number;
  /** Open streams outside the group that count against `maxStreams` too. */
  otherStreams?: () => number;
}

/** The server's defaults (`server/options.ts`). */
export const SSE_DEFAULTS: Readonly<SseGroupOptions> = {
  pingIntervalMs: 15_000,
  retryMs: 1000,
  maxBufferedBytes: 1024 * 1024,
  maxTotalBufferedBytes: 64 * 1024 * 1024,
  maxStreams: 20_000,
};

/** How a stream is configured: the server's shared `group`, or options for a group of its own. */
export type SseSettings = Partial<SseGroupOptions> & { group?: SseGroup };

/** The group `settings` name, or a new one of their options (defaults: `SSE_DEFAULTS`). */
export const groupOf = (settings: SseSettings = {}): SseGroup => settings.group ?? new SseGroup(settings);

/** What makes one kind of stream: its headers, its ping, whether it counts against `maxStreams`. */
export interface SseKind {
  /** Headers of the 200 besides `content-type`, after those `open` is given. */
  headers?: Readonly<Record<string, string>>;
  /** The ping frame; by default an SSE comment. */
  ping?: string;
  /** Whether its streams count against `maxStreams`. @default true */
  counted?: boolean;
}

/** One open stream; `key` groups a kind's streams (an environment's), `data` is the kind's own. */
export interface SseChannel<T> {
  readonly res: ServerResponse;
  readonly key: string;
  readonly data: T;
}

/**
 * Calls `gone` once when the stream's client is gone. A response pipelined behind another one
 * (a second stream request on a connection whose first answer never ends) has no socket of its
 * own yet and never emits `close` when the connection drops: watch the connection too.
 */
export function onGone(req: IncomingMessage, res: ServerResponse, gone: () => void): void {
  let called = false;
  const once = () => {
    if (called) return;
    called = true;
    req.socket.off('close', once);
    gone();
  };
  res.once('close', once);
  // A write after the end emits `error` on the response; it is a leaving, never a crash.
  res.on('error', once);
  if (!res.socket) req.socket.once('close', once);
}

export class SseGroup {
  readonly options: Readonly<SseGroupOptions>;
  readonly #kinds = new Set<SseChannels<unknown>>();
  /** The pending check of the total budget (one per turn of the event loop). */
  #budgetCheck: NodeJS.Immediate | undefined;

  constructor(options: Partial<SseGroupOptions> = {}) {
    const { otherStreams } = options;
    this.options = {
      pingIntervalMs: options.pingIntervalMs ?? SSE_DEFAULTS.pingIntervalMs,
      retryMs: options.retryMs ?? SSE_DEFAULTS.retryMs,
      maxBufferedBytes: options.maxBufferedBytes ?? SSE_DEFAULTS.maxBufferedBytes,
      maxTotalBufferedBytes: options.maxTotalBufferedBytes ?? SSE_DEFAULTS.maxTotalBufferedBytes,
      maxStreams: options.maxStreams ?? SSE_DEFAULTS.maxStreams,
      ...(otherStreams ? { otherStreams } : {}),
    };
  }

  /** A new kind of stream in this group. */
  channels<T = undefined>(kind: SseKind = {}): SseChannels<T> {
    const channels = new SseChannels<T>(this, kind);
    this.#kinds.add(channels as SseChannels<unknown>);
    return channels;
  }

  /** Open streams that count against `maxStreams`: the group's and `otherStreams`'. */
  get counted(): number {
    let count = this.options.otherStreams?.() ?? 0;
    for (const kind of this.#kinds) if (kind.counted) count += kind.size;
    return count;
  }

  /** Whether `maxStreams` is reached: a new stream of a kind that counts should be refused. */
  get full(): boolean {
    return this.counted >= this.options.maxStreams;
  }

  /** Ends every stream of every kind; later ones are refused. */
  close(): void {
    for (const kind of this.#kinds) kind.close();
    if (this.#budgetCheck) clearImmediate(this.#budgetCheck);
    this.#budgetCheck = undefined;
  }

  /**
   * Checks the total budget once the writes of this turn have left for the sockets (a write
   * stays corked until the next tick, so right after it every stream looks behind), once per
   * turn however many frames went out.
   */
  checkBudgetSoon(): void {
    if (this.#budgetCheck) return;
    this.#budgetCheck = setImmediate(() => {
      this.#budgetCheck = undefined;
      this.#enforceBudget();
    });
  }

  /** Past the total budget of unsent bytes, cuts the streams furthest behind first. */
  #enforceBudget(): void {
    let total = 0;
    const behind: ServerResponse[] = [];
    for (const kind of this.#kinds) {
      for (const { res } of kind.all()) {
        const unsent = res.destroyed ? 0 : res.writableLength;
        if (unsent === 0) continue;
        total += unsent;
        behind.push(res);
      }
    }
    const budget = this.options.maxTotalBufferedBytes;
    if (total <= budget) return;
    behind.sort((a, b) => b.writableLength - a.writableLength);
    for (const res of behind) {
      if (total <= budget) break;
      total -= res.writableLength;
      res.destroy();
    }
  }
}

export class SseChannels<T = undefined> {
  readonly #group: SseGroup;
  readonly #headers: Readonly<Record<string, string>>;
  readonly #ping: string;
  readonly #retry: string;
  readonly counted: boolean;
  readonly #byKey = new Map<string, Set<SseChannel<T>>>();
  #size = 0;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  readonly #countListeners: Array<() => void> = [];

  /** Made by `SseGroup.channels()`. */
  constructor(group: SseGroup, kind: SseKind) {
    this.#group = group;
    this.#headers = { 'content-type': 'text/event-stream', ...kind.headers };
    this.#ping = kind.ping ?? ': ping\n\n';
    this.#retry = `retry: ${group.options.retryMs}\n`;
    this.counted = kind.counted ?? true;
  }

  /** Open streams of this kind. */
  get size(): number {
    return this.#size;
  }

  /** Open streams of one key. */
  countOf(key: string): number {
    return this.#byKey.get(key)?.size ?? 0;
  }

  /** Whether the group's `maxStreams` is reached (this kind's streams and the others'). */
  get full(): boolean {
    return this.#group.full;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Calls `listener` whenever a stream of this kind opens or closes. */
  onCountChange(listener: () => void): void {
    this.#countListeners.push(listener);
  }

  /** Every open stream of this kind. */
  *all(): IterableIterator<SseChannel<T>> {
    for (const set of this.#byKey.values()) yield* set;
  }

  /**
   * Answers `req` with the stream's head and takes `res` over: `retry:` and then `first` (the
   * stream's first frame; by default nothing, the `retry:` line ends its block), pings, and the
   * bounds. A `HEAD` gets the head alone and no stream; after `close()` the request is dropped.
   * `headers` go before the kind's own. Answers the stream, or `undefined` when none opened.
   */
  open(
    req: IncomingMessage,
    res: ServerResponse,
    how: { data: T; key?: string; headers?: Readonly<Record<string, string>>; first?: string | Buffer },
  ): SseChannel<T> | undefined {
    if (this.#closed) {
      res.destroy();
      return undefined;
    }
    const head = how.headers ? { ...how.headers, ...this.#headers } : this.#headers;
    if (req.method === 'HEAD') {
      res.writeHead(200, head);
      res.end();
      return undefined;
    }
    // A body nobody reads would pause the socket and hide the client's leaving.
    req.resume();
    req.socket.setKeepAlive(true, 30_000);
    req.socket.setNoDelay(true);
    res.writeHead(200, head);
    const key = how.key ?? '';
    const channel: SseChannel<T> = { res, key, data: how.data };
    let set = this.#byKey.get(key);
    if (!set) {
      set = new Set();
      this.#byKey.set(key, set);
    }
    set.add(channel);
    this.#size += 1;
    onGone(req, res, () => this.#remove(channel));
    for (const listener of this.#countListeners) listener();
    this.#startPing();
    this.write(channel, this.#retry);
    this.write(channel, how.first ?? '\n');
    return channel;
  }

  /** Writes `frame` to the streams of `key`, or to every stream of this kind. */
  send(frame: string | Buffer, key?: string): void {
    const channels = key === undefined ? this.all() : (this.#byKey.get(key) ?? []);
    for (const channel of channels) this.write(channel, frame);
  }

  /**
   * Writes a frame; a stream whose unsent bytes, before this frame, pass `maxBufferedBytes` is
   * cut: a reader that keeps up is never cut for one large frame (a `flags:sync` of an
   * environment with big segments), one that has fallen behind is.
   */
  write(channel: SseChannel<T>, frame: string | Buffer): void {
    const { res } = channel;
    if (res.destroyed || res.writableEnded) return;
    const before = res.writableLength;
    res.write(frame);
    if (before > this.#group.options.maxBufferedBytes) res.destroy();
    else if (res.writableLength > 0) this.#group.checkBudgetSoon();
  }

  /** Cuts every stream whose `data` `which` picks (a revoked key's). */
  closeWhere(which: (data: T) => boolean): void {
    for (const channel of this.all()) if (which(channel.data)) channel.res.destroy();
  }

  /** Ends every stream of this kind; later ones are refused. */
  close(): void {
    this.#closed = true;
    this.#stopPing();
    for (const set of this.#byKey.values()) for (const { res } of set) res.end();
    this.#byKey.clear();
    this.#size = 0;
  }

  #remove(channel: SseChannel<T>): void {
    const set = this.#byKey.get(channel.key);
    if (!set?.delete(channel)) return;
    if (set.size === 0) this.#byKey.delete(channel.key);
    this.#size -= 1;
    if (this.#size === 0) this.#stopPing();
    for (const listener of this.#countListeners) listener();
  }

  #startPing(): void {
    if (this.#timer || this.#closed) return;
    this.#timer = setInterval(() => this.send(this.#ping), this.#group.options.pingIntervalMs);
    this.#timer.unref();
  }

  #stopPing(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
