/**
 * The SDK stream (`docs/protocol.md` §5.3): one `SdkView` per environment and the open streams
 * of each, on the server's SSE channels (`./channel.ts`: head, `retry:`, pings, gone clients,
 * the per-stream and total bounds on unsent bytes). A change's frame is serialized once per
 * capability (§12.6; once when both send it alike) and written to every stream of its
 * environment with that capability; a stream cut for reading too slowly resumes with
 * `Last-Event-ID`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../errors.js';
import type { FlagCommit } from '../state/flags/ops.js';
import type { Environment } from '../state/kernel/model.js';
import { groupOf, type SseChannels, type SseSettings } from './channel.js';
import { SdkView } from './sdk-view.js';

/**
 * `group`: the server's shared SSE group; without it, one of the hub's own from the other
 * fields (`maxStreams` then counts this hub's streams and `otherStreams()`, OFREP's).
 */
export type StreamHubOptions = SseSettings & {
  historySize: number;
  /** Bytes of frames each view keeps for resume, per capability (§5.3). @default 16777216 */
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
  /** Per environment: its one view, written for SDKs with and without the targeting capability. */
  readonly #views = new Map<string, SdkView>();
  readonly #channels: SseChannels<object | undefined>;

  constructor(options: StreamHubOptions) {
    this.#historySize = options.historySize;
    this.#historyBytes = options.historyBytes;
    this.#channels = groupOf(options).channels({ headers: SSE_HEADERS, ping: PING_FRAME });
  }

  /** Creates the view of an environment from its current (durable) state. */
  addEnvironment(env: Environment): void {
    if (this.#views.has(env.id)) return; // its view and open streams stay
    this.#views.set(env.id, new SdkView(env, this.#historySize, this.#historyBytes));
  }

  /** Forgets a deleted environment's view (its streams were closed with its keys). */
  removeEnvironment(env: Environment): void {
    this.#views.delete(env.id);
  }

  /** The environment's view; its answers take the capability of the SDK that asks (§12.6). */
  view(env: Environment): SdkView {
    const view = this.#views.get(env.id);
    if (!view) throw new Error(`stream: unknown environment ${env.id}`);
    return view;
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
    const view = this.#views.get(change.env.id);
    if (!view) return;
    const frames = view.apply(change);
    this.#channels.send(frames.plain, change.env.id);
    this.#channels.send(frames.targeting, targetingKey(change.env.id));
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
    const view = this.view(env);
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
      const missed = view.framesSince(lastEventId, targeting);
      first = missed ? missed.join('') || '\n' : view.syncFrame(targeting);
    }
    const key = targeting ? targetingKey(env.id) : env.id;
    this.#channels.open(req, res, { key, data: owner, ...(first ? { first } : {}) });
  }

  /** Ends every stream; later subscriptions are refused. */
  close(): void {
    this.#channels.close();
  }
}
