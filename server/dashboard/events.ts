/**
 * The dashboard's own event stream, `GET /admin/api/events` (`docs/protocol.md` §10.5): every
 * committed flag change (whoever made it), the SDK stream counts (at most every 250 ms while
 * they move), and a nudge when projects, environments or keys change.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FlagChange } from '../state/model.js';
import { onGone } from '../stream/hub.js';

const COUNTS_EVERY_MS = 250;
const PING_EVERY_MS = 15_000;

export class AdminEvents {
  readonly #clients = new Set<ServerResponse>();
  readonly #counts: () => Record<string, number>;
  #countsTimer: NodeJS.Timeout | undefined;
  #ping: NodeJS.Timeout | undefined;

  /** `counts` gives the open SDK streams per environment id. */
  constructor(counts: () => Record<string, number>) {
    this.#counts = counts;
  }

  /** Takes over `res` (the admin API's headers are already set on it). */
  subscribe(req: IncomingMessage, res: ServerResponse): void {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    res.write(`retry: 1000\n${frame('streams', this.#counts())}`);
    this.#clients.add(res);
    onGone(req, res, () => {
      this.#clients.delete(res);
      if (this.#clients.size === 0) this.#stopPing();
    });
    this.#ping ??= setInterval(() => this.#send('ping', {}), PING_EVERY_MS).unref();
  }

  change(change: FlagChange): void {
    const flag = (change.after ?? change.before)?.key;
    this.#send('change', { env: change.env.id, revision: change.revision, flag });
  }

  structure(): void {
    this.#send('structure', {});
  }

  /** Stream counts moved: sends them at most every 250 ms. */
  countsChanged(): void {
    if (this.#countsTimer || this.#clients.size === 0) return;
    this.#countsTimer = setTimeout(() => {
      this.#countsTimer = undefined;
      this.#send('streams', this.#counts());
    }, COUNTS_EVERY_MS).unref();
  }

  close(): void {
    for (const res of this.#clients) res.end();
    this.#clients.clear();
    this.#stopPing();
    if (this.#countsTimer) clearTimeout(this.#countsTimer);
    this.#countsTimer = undefined;
  }

  #send(event: string, data: unknown): void {
    if (this.#clients.size === 0) return;
    const text = frame(event, data);
    for (const res of this.#clients) if (!res.destroyed) res.write(text);
  }

  #stopPing(): void {
    if (this.#ping) clearInterval(this.#ping);
    this.#ping = undefined;
  }
}

const frame = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
