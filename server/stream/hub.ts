/**
 * The SDK stream (`docs/protocol.md` §5.3): one `SdkView` per environment and the open streams
 * of each, on the server's SSE channels (`./channel.ts`: head, `retry:`, pings, gone clients,
 * the per-stream and total bounds on unsent bytes). A frame is serialized once per change and
 * written to every stream of its environment; a stream cut for reading too slowly resumes with
 * `Last-Event-ID`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../errors.js';
import type { Environment, FlagCommit } from '../state/model.js';
import { groupOf, type SseChannels, type SseSettings } from './channel.js';
import { SdkView } from './sdk-view.js';

/**
 * `group`: the server's shared SSE group; without it, one of the hub's own from the other
 * fields (`maxStreams` then counts this hub's streams and `otherStreams()`, OFREP's).
 */
export type StreamHubOptions = SseSettings & {
  historySize: number;
  /** Bytes of frames each view keeps for resume (§5.3). @default 16777216 */
  historyBytes?: number;
};

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
  'access-control-allow-origin': '*',
};

const PING_FRAME = 'event: ping\ndata: {}\n\n';

/** The channel key of an environment's streams with the targeting capability. */
const targetingKey = (envId: string): string => `${envId}\u0000targeting`;

/**
 * The SDK's streams, keyed by environment id. Nothing per stream tracks what it was sent: a view
 * only moves when a change is published, so every change published after `subscribe` is newer
 * than what it sent. A stream's data is what opened it (the API key's grant), so revoking the
 * key can close it.
 */
export class StreamHub {
  readonly #historySize: number;
  readonly #historyBytes: number | undefined;
  /** Per environment: the view of SDKs without the targeting capability, and of those with it. */
  readonly #views = new Map<string, [SdkView, SdkView]>();
  readonly #channels: SseChannels<object | undefined>;

  constructor(options: StreamHubOptions) {
    this.#historySize = options.historySize;
    this.#historyBytes = options.historyBytes;
    this.#channels = groupOf(options).channels({ headers: SSE_HEADERS, ping: PING_FRAME });
  }

  /** Creates the view of an environment from its current (durable) state. */
  addEnvironment(env: Environment): void {
    if (this.#views.has(env.id)) return; // its view and open streams stay
    const [size, bytes] = [this.#historySize, this.#historyBytes];
    this.#views.set(env.id, [new SdkView(env, size, false, bytes), new SdkView(env, size, true, bytes)]);
  }

  /** Forgets a deleted environment's view (its streams were closed with its keys). */
  removeEnvironment(env: Environment): void {
    this.#views.delete(env.id);
  }

  /** The environment's view for SDKs with (`targeting`) or without the targeting capability (§12.6). */
  view(env: Environment, targeting = false): SdkView {
    const views = this.#views.get(env.id);
    if (!views) throw new Error(`stream: unknown environment ${env.id}`);
    return views[targeting ? 1 : 0];
  }

  /** Number of open streams. */
  get size(): number {
    return this.#channels.size;
  }

  /** Number of open streams of one environment. */
  countOf(envId: string): number {
    return this.#channels.countOf(envId) + this.#channels.countOf(targetingKey(envId));
  }

  /** Calls `listener` whenever a stream opens or closes. */
  onCountChange(listener: () => void): void {
    this.#channels.onCountChange(listener);
  }

  /** Ends every open stream that `owner` opened (a revoked key's). */
  closeStreamsOf(owner: object): void {
    this.#channels.closeWhere((opener) => opener === owner);
  }

  /** Publishes a committed change to the environment's view and every open stream. */
  publish(change: FlagCommit): void {
    const views = this.#views.get(change.env.id);
    if (!views) return;
    this.#channels.send(views[0].apply(change), change.env.id);
    this.#channels.send(views[1].apply(change), targetingKey(change.env.id));
  }

  /** Takes over `res` as an event stream for `env`, resuming after `lastEventId` when it can. */
  subscribe(
    env: Environment,
    req: IncomingMessage,
    res: ServerResponse,
    lastEventId: string | undefined,
    owner?: object,
    targeting = false,
  ): void {
    const view = this.view(env, targeting);
    const noStream = req.method === 'HEAD' || this.#channels.closed;
    if (!noStream && this.#channels.full) {
      // Shed load: a jittered Retry-After spreads the reconnects of refused clients.
      throw new ApiError(503, 'SERVICE_UNAVAILABLE', 'the server has too many open streams; retry later', {
        'retry-after': String(1 + Math.floor(Math.random() * 5)),
      });
    }
    // After the `retry:` line: the missed frames (nothing when current), or a full sync.
    let first: string | Buffer | undefined;
    if (!noStream) {
      const missed = view.framesSince(lastEventId);
      first = missed ? missed.join('') || '\n' : view.syncFrame();
    }
    const key = targeting ? targetingKey(env.id) : env.id;
    this.#channels.open(req, res, { key, data: owner, ...(first ? { first } : {}) });
  }

  /** Ends every stream; later subscriptions are refused. */
  close(): void {
    this.#channels.close();
  }
}
