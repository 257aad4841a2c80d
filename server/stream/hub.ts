/**
 * The SSE fan-out (`docs/protocol.md` §5): one `SdkView` per environment, the open
 * streams of each, one shared ping timer. A frame is serialized once per change and
 * written to every stream; a stream whose unsent bytes pass `maxBufferedBytes` is cut
 * (the client resumes with `Last-Event-ID`), and past `maxTotalBufferedBytes` for all streams
 * together the streams furthest behind are cut, so slow readers can neither slow the
 * others nor grow memory without bound.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../errors.js';
import type { Environment, FlagChange } from '../state/model.js';
import { SdkView } from './sdk-view.js';

export interface StreamHubOptions {
  pingIntervalMs: number;
  historySize: number;
  maxBufferedBytes: number;
  maxTotalBufferedBytes: number;
  retryMs: number;
  /** Open streams, this hub's and `otherStreams()` (OFREP's) together. */
  maxStreams: number;
  /** Streams of the server's other kinds, which count against `maxStreams` too. */
  otherStreams?: () => number;
}

/**
 * An open stream. Nothing per stream tracks what it was sent: a view only moves when a change
 * is published, so every change published after `subscribe` is newer than what it sent.
 */
interface Subscriber {
  res: ServerResponse;
  /** What opened it (the API key's grant), so revoking the key can close it. */
  owner: object | undefined;
}

const PING_FRAME = 'event: ping\ndata: {}\n\n';

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
  if (!res.socket) req.socket.once('close', once);
}

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
  'access-control-allow-origin': '*',
};

export class StreamHub {
  readonly #options: StreamHubOptions;
  readonly #views = new Map<string, SdkView>();
  readonly #streams = new Map<string, Set<Subscriber>>();
  #count = 0;
  #timer: NodeJS.Timeout | undefined;
  /** The pending check of the total budget (one per turn of the event loop). */
  #budgetCheck: NodeJS.Immediate | undefined;
  #closed = false;
  readonly #countListeners: Array<() => void> = [];

  constructor(options: StreamHubOptions) {
    this.#options = options;
  }

  /** Creates the view of an environment from its current (durable) state. */
  addEnvironment(env: Environment): void {
    if (this.#views.has(env.id)) return; // its view and open streams stay
    this.#views.set(env.id, new SdkView(env, this.#options.historySize, this.#options.retryMs));
    this.#streams.set(env.id, new Set());
  }

  view(env: Environment): SdkView {
    const view = this.#views.get(env.id);
    if (!view) throw new Error(`stream: unknown environment ${env.id}`);
    return view;
  }

  /** Number of open streams. */
  get size(): number {
    return this.#count;
  }

  /** Number of open streams of one environment. */
  countOf(envId: string): number {
    return this.#streams.get(envId)?.size ?? 0;
  }

  /** Calls `listener` whenever a stream opens or closes. */
  onCountChange(listener: () => void): void {
    this.#countListeners.push(listener);
  }

  /** Ends every open stream that `owner` opened (a revoked key's). */
  closeStreamsOf(owner: object): void {
    for (const set of this.#streams.values())
      for (const subscriber of set) if (subscriber.owner === owner) subscriber.res.destroy();
  }

  #countChanged(): void {
    for (const listener of this.#countListeners) listener();
  }

  /** Publishes a committed change to the environment's view and every open stream. */
  publish(change: FlagChange): void {
    const view = this.#views.get(change.env.id);
    if (!view) return;
    const frame = view.apply(change);
    for (const subscriber of this.#streams.get(change.env.id)!) {
      this.#write(subscriber, frame);
    }
    this.#checkBudgetSoon();
  }

  /** Takes over `res` as an event stream for `env`, resuming after `lastEventId` when it can. */
  subscribe(
    env: Environment,
    req: IncomingMessage,
    res: ServerResponse,
    lastEventId: string | undefined,
    owner?: object,
  ): void {
    const view = this.view(env);
    if (this.#closed) {
      res.destroy();
      return;
    }
    if (req.method === 'HEAD') {
      res.writeHead(200, SSE_HEADERS);
      res.end();
      return;
    }
    if (this.#count + (this.#options.otherStreams?.() ?? 0) >= this.#options.maxStreams) {
      // Shed load: a jittered Retry-After spreads the reconnects of refused clients.
      throw new ApiError(503, 'SERVICE_UNAVAILABLE', 'the server has too many open streams; retry later', {
        'retry-after': String(1 + Math.floor(Math.random() * 5)),
      });
    }
    const missed = view.framesSince(lastEventId);
    // The retry hint rides on the first frame; alone when there is nothing to send.
    const first = missed ? `retry: ${this.#options.retryMs}\n${missed.join('') || '\n'}` : view.syncOpening();
    // A body nobody reads would pause the socket and hide the client's leaving.
    req.resume();
    req.socket.setKeepAlive(true, 30_000);
    req.socket.setNoDelay(true);
    res.writeHead(200, SSE_HEADERS);
    const subscriber: Subscriber = { res, owner };
    const set = this.#streams.get(env.id)!;
    set.add(subscriber);
    this.#count += 1;
    onGone(req, res, () => {
      if (set.delete(subscriber)) {
        this.#count -= 1;
        this.#countChanged();
      }
      if (this.#count === 0) this.#stopPing();
    });
    this.#countChanged();
    this.#write(subscriber, first);
    this.#checkBudgetSoon();
    this.#startPing();
  }

  /** Ends every stream; later subscriptions are refused. */
  close(): void {
    this.#closed = true;
    this.#stopPing();
    for (const set of this.#streams.values()) {
      for (const subscriber of set) subscriber.res.end();
      set.clear();
    }
    this.#count = 0;
    if (this.#budgetCheck) clearImmediate(this.#budgetCheck);
    this.#budgetCheck = undefined;
  }

  #write(subscriber: Subscriber, frame: string | Buffer): void {
    const { res } = subscriber;
    if (res.destroyed) return;
    res.write(frame);
    if (res.writableLength > this.#options.maxBufferedBytes) res.destroy();
  }

  /**
   * Checks the total budget once the writes of this turn have left for the sockets (a write
   * stays corked until the next tick, so right after it every stream looks behind), once per
   * turn however many frames went out.
   */
  #checkBudgetSoon(): void {
    if (this.#budgetCheck || this.#closed) return;
    this.#budgetCheck = setImmediate(() => {
      this.#budgetCheck = undefined;
      this.#enforceBudget();
    });
  }

  /** Past the total budget of unsent bytes, cuts the streams furthest behind first. */
  #enforceBudget(): void {
    let total = 0;
    const behind: Subscriber[] = [];
    for (const set of this.#streams.values()) {
      for (const subscriber of set) {
        const unsent = subscriber.res.destroyed ? 0 : subscriber.res.writableLength;
        if (unsent === 0) continue;
        total += unsent;
        behind.push(subscriber);
      }
    }
    const budget = this.#options.maxTotalBufferedBytes;
    if (total <= budget) return;
    behind.sort((a, b) => b.res.writableLength - a.res.writableLength);
    for (const subscriber of behind) {
      if (total <= budget) break;
      total -= subscriber.res.writableLength;
      subscriber.res.destroy();
    }
  }

  #startPing(): void {
    if (this.#timer || this.#closed) return;
    this.#timer = setInterval(() => {
      for (const set of this.#streams.values())
        for (const subscriber of set) this.#write(subscriber, PING_FRAME);
      this.#checkBudgetSoon();
    }, this.#options.pingIntervalMs);
    this.#timer.unref();
  }

  #stopPing(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
