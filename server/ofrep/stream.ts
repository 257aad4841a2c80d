/**
 * OFREP's change notifications (`docs/protocol.md` §11.4, which cites the OFREP design it follows): the
 * bulk answer names an SSE stream whose unnamed `message` events say
 * `{"type":"refetchEvaluation","etag":...}` after every change of the environment.
 *
 * A browser's EventSource sends no header, so the stream's credential travels in its URL. It is
 * never the API key (URLs end up in logs and histories): it is a token bound to the
 * environment and the key's id, valid until the end of the next 12-hour window, signed with
 * HMAC-SHA256 by a secret the server keeps in its store. Revoking the key closes its streams and
 * refuses its tokens. Tokens are the same for a whole window, so the bulk ETag only changes with
 * the window, and a client whose token expired gets a new URL with the next 200.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Grant, KeyRing } from '../state/admin/key-ring.js';
import type { FlagCommit } from '../state/flags/ops.js';
import { groupOf, type SseChannels, type SseSettings } from '../stream/channel.js';

const WINDOW_MS = 12 * 3600 * 1000;

/**
 * The streams' settings (`../stream/channel.ts`): the server's shared SSE `group`, or options
 * for one of their own (`maxStreams` then counts these streams and `otherStreams()`, the SDK's;
 * unsent bytes past `maxBufferedBytes` cut a stream, as the SDK's are cut, §5.3).
 */
export type OfrepStreamLimits = SseSettings;

/** The current 12-hour window; a token issued in it is valid until the end of the next one. */
export const tokenWindow = (nowMs = Date.now()): number => Math.floor(nowMs / WINDOW_MS);

export class OfrepStreams {
  readonly #secret: Buffer;
  readonly #keys: KeyRing;
  /** Keyed by environment id; each stream's data is the grant its token stands for. */
  readonly #channels: SseChannels<Grant>;

  constructor(secret: string, keys: KeyRing, limits: OfrepStreamLimits = {}) {
    this.#secret = Buffer.from(secret, 'utf8');
    this.#keys = keys;
    this.#channels = groupOf(limits).channels({ headers: { 'cache-control': 'no-store' } });
  }

  /** Open streams. */
  get size(): number {
    return this.#channels.size;
  }

  /** Whether another stream may open now: the SDK streams count against the same `maxStreams`. */
  get full(): boolean {
    return this.#channels.closed || this.#channels.full;
  }

  /** The stream token of a grant for the current window. */
  token(grant: Grant, nowMs = Date.now()): string {
    const until = tokenWindow(nowMs) + 2;
    const claims = `${Buffer.from(grant.env.id).toString('base64url')}.${grant.id}.${until}`;
    return `${claims}.${this.#mac(claims)}`;
  }

  /** The grant a token stands for, if it is genuine, unexpired and its key not revoked. */
  verify(token: string | null, nowMs = Date.now()): Grant | undefined {
    if (!token) return undefined;
    const parts = token.split('.');
    if (parts.length !== 4) return undefined;
    const [env, keyId, until, mac] = parts as [string, string, string, string];
    const expected = Buffer.from(this.#mac(`${env}.${keyId}.${until}`));
    const presented = Buffer.from(mac);
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return undefined;
    if (!/^\d{1,9}$/.test(until) || Number(until) * WINDOW_MS <= nowMs) return undefined;
    const envId = Buffer.from(env, 'base64url').toString();
    return this.#keys.grants.find((g) => g.id === keyId && g.env.id === envId && !g.revoked);
  }

  /** Takes over `res` (`headers`: the handler's CORS headers) as a stream of the grant's environment. */
  subscribe(grant: Grant, req: IncomingMessage, res: ServerResponse, headers: Record<string, string>): void {
    this.#channels.open(req, res, { key: grant.env.id, data: grant, headers });
  }

  /** Tells the environment's streams to refetch. */
  changed(change: FlagCommit): void {
    if (this.#channels.countOf(change.env.id) === 0) return;
    const etag = `${change.env.epoch}-${change.revision}`;
    this.#channels.send(`data: ${JSON.stringify({ type: 'refetchEvaluation', etag })}\n\n`, change.env.id);
  }

  /** Closes the streams a revoked key opened. */
  revoked(grant: Grant): void {
    this.#channels.closeWhere((opener) => opener === grant);
  }

  close(): void {
    this.#channels.close();
  }

  #mac(claims: string): string {
    return createHmac('sha256', this.#secret).update(claims).digest('base64url');
  }
}
