/**
 * OFREP's change notifications (`docs/protocol.md` §11.4, open-feature/protocol ADR 0008): the
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
import type { Grant, KeyRing } from '../state/key-ring.js';
import type { FlagChange } from '../state/model.js';
import { onGone } from '../stream/hub.js';

const WINDOW_MS = 12 * 3600 * 1000;

export interface OfrepStreamLimits {
  /** Open streams of every kind the server accepts (its `maxStreams`). */
  maxStreams: number;
  /** Unsent bytes after which a stream that does not read is cut (its `streamMaxBufferedBytes`). */
  maxBufferedBytes: number;
  /** The server's other open streams (the SDK's), which count against `maxStreams` too. */
  otherStreams: () => number;
}
const PING_EVERY_MS = 15_000;

/** The current 12-hour window; a token issued in it is valid until the end of the next one. */
export const tokenWindow = (nowMs = Date.now()): number => Math.floor(nowMs / WINDOW_MS);

export class OfrepStreams {
  readonly #secret: Buffer;
  readonly #keys: KeyRing;
  readonly #streams = new Map<string, Set<{ res: ServerResponse; grant: Grant }>>();
  readonly #limits: OfrepStreamLimits;
  #count = 0;
  #closed = false;
  #ping: NodeJS.Timeout | undefined;

  constructor(secret: string, keys: KeyRing, limits: OfrepStreamLimits) {
    this.#secret = Buffer.from(secret, 'utf8');
    this.#keys = keys;
    this.#limits = limits;
  }

  /** Open streams. */
  get size(): number {
    return this.#count;
  }

  /** Whether another stream may open now: the SDK streams count against the same `maxStreams`. */
  get full(): boolean {
    return this.#closed || this.#count + this.#limits.otherStreams() >= this.#limits.maxStreams;
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

  subscribe(grant: Grant, req: IncomingMessage, res: ServerResponse, headers: Record<string, string>): void {
    req.resume();
    res.writeHead(200, { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    res.write('retry: 1000\n\n');
    let set = this.#streams.get(grant.env.id);
    if (!set) {
      set = new Set();
      this.#streams.set(grant.env.id, set);
    }
    const entry = { res, grant };
    set.add(entry);
    this.#count += 1;
    onGone(req, res, () => {
      if (set.delete(entry) && this.#count > 0) this.#count -= 1;
      if (set.size === 0) this.#streams.delete(grant.env.id);
      if (this.#streams.size === 0) this.#stopPing();
    });
    this.#ping ??= setInterval(() => this.#each(() => true, ': ping\n\n'), PING_EVERY_MS).unref();
  }

  /** Tells the environment's streams to refetch. */
  changed(change: FlagChange): void {
    const set = this.#streams.get(change.env.id);
    if (!set) return;
    const frame = `data: ${JSON.stringify({ type: 'refetchEvaluation', etag: `${change.env.epoch}-${change.revision}` })}\n\n`;
    for (const { res } of set) this.#write(res, frame);
  }

  /** Writes a frame; a stream whose unsent bytes pass the bound is cut, as the SDK's are (§5.3). */
  #write(res: ServerResponse, frame: string): void {
    if (res.destroyed) return;
    res.write(frame);
    if (res.writableLength > this.#limits.maxBufferedBytes) res.destroy();
  }

  /** Closes the streams a revoked key opened. */
  revoked(grant: Grant): void {
    this.#each((entry) => entry.grant === grant, undefined);
  }

  close(): void {
    this.#closed = true;
    this.#each(() => true, undefined);
    this.#streams.clear();
    this.#count = 0;
    this.#stopPing();
  }

  /** Writes `frame` to (or, without one, ends) every stream `which` picks. */
  #each(which: (entry: { res: ServerResponse; grant: Grant }) => boolean, frame: string | undefined): void {
    for (const set of this.#streams.values()) {
      for (const entry of set) {
        if (!which(entry) || entry.res.destroyed) continue;
        if (frame === undefined) entry.res.destroy();
        else this.#write(entry.res, frame);
      }
    }
  }

  #stopPing(): void {
    if (this.#ping) clearInterval(this.#ping);
    this.#ping = undefined;
  }

  #mac(claims: string): string {
    return createHmac('sha256', this.#secret).update(claims).digest('base64url');
  }
}
