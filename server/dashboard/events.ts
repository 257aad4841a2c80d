/**
 * The dashboard's own event stream, `GET /admin/api/events` (`docs/protocol.md` §10.5): every
 * committed flag change (whoever made it), the SDK stream counts (at most every 250 ms while
 * they move), and a nudge when projects, environments or keys change. The connection (head,
 * `retry:`, pings, gone clients, the bound on unsent bytes) is the server's SSE channel's
 * (`../stream/channel.ts`); these streams do not count against `maxStreams`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AdminChangeEvent, StreamCounts } from '../../src/core/admin-wire.js';
import type { FlagCommit } from '../state/flags/ops.js';
import { nameOf } from '../state/kernel/env-names.js';
import type { Environment } from '../state/kernel/model.js';
import { groupOf, type SseChannels, type SseSettings } from '../stream/channel.js';

const COUNTS_EVERY_MS = 250;

/** The stream's settings: the server's shared SSE `group`, or options for one of its own. */
export type AdminEventsOptions = SseSettings;

export class AdminEvents {
  readonly #channels: SseChannels;
  readonly #counts: () => StreamCounts;
  #countsTimer: NodeJS.Timeout | undefined;

  /** `counts` gives the open SDK streams per environment (`PROJECT/ENVIRONMENT`). */
  constructor(counts: () => StreamCounts, options: AdminEventsOptions = {}) {
    this.#counts = counts;
    this.#channels = groupOf(options).channels({
      headers: { 'cache-control': 'no-store' },
      ping: frame('ping', {}),
      counted: false,
    });
  }

  /** Open streams. */
  get size(): number {
    return this.#channels.size;
  }

  /** Takes over `res` (the admin API's headers are already set on it). */
  subscribe(req: IncomingMessage, res: ServerResponse): void {
    const first = req.method === 'HEAD' ? undefined : frame('streams', this.#counts());
    this.#channels.open(req, res, { data: undefined, ...(first ? { first } : {}) });
  }

  change(change: FlagCommit): void {
    const flag = (change.after ?? change.before)?.key;
    const event: AdminChangeEvent = { env: nameOf(change.env), revision: change.revision };
    if (flag !== undefined) event.flag = flag;
    this.#send('change', event);
  }

  structure(): void {
    this.#send('structure', {});
  }

  /** A change request of `env` moved (`docs/protocol.md` §10.7), whichever instance moved it. */
  changeRequest(env: Environment, id: string, state: string): void {
    this.#send('changeRequest', { env: nameOf(env), id, state });
  }

  /** Stream counts moved: sends them at most every 250 ms. */
  countsChanged(): void {
    if (this.#countsTimer || this.#channels.size === 0) return;
    this.#countsTimer = setTimeout(() => {
      this.#countsTimer = undefined;
      this.#send('streams', this.#counts());
    }, COUNTS_EVERY_MS).unref();
  }

  close(): void {
    this.#channels.close();
    if (this.#countsTimer) clearTimeout(this.#countsTimer);
    this.#countsTimer = undefined;
  }

  #send(event: string, data: unknown): void {
    if (this.#channels.size > 0) this.#channels.send(frame(event, data));
  }
}

const frame = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
