/**
 * The one dedicated connection that `LISTEN`s for commits (`docs/scaling.md`). A notification
 * carries only `SEQ SCOPE`: the entries themselves are read from the table, because Postgres
 * drops notifications while a listener is disconnected. So whenever this connection is
 * (re)established, `onConnected` runs, and the storage catches up from the table.
 */
import type pg from 'pg';
import type { PgDriver } from './driver.js';

export const CHANNEL = 'flagwire_commits';

export interface ListenerOptions {
  /** The driver (`driver.ts`), loaded by the storage. */
  driver: PgDriver;
  url: string;
  onNotify: (scope: string, seq: number) => void;
  /** After every (re)connection, once listening: catch up on what may have been missed. */
  onConnected: () => void;
  warn: (message: string) => void;
}

export class CommitListener {
  readonly #options: ListenerOptions;
  #client: pg.Client | undefined;
  #closed = false;
  #retryMs = 100;
  #timer: NodeJS.Timeout | undefined;
  #connected = false;

  constructor(options: ListenerOptions) {
    this.#options = options;
  }

  /** Whether the `LISTEN` connection is up now. */
  get connected(): boolean {
    return this.#connected;
  }

  /** Connects and listens; rejects when the first attempt fails (start-up reports it). */
  async start(): Promise<void> {
    await this.#connect();
  }

  async #connect(): Promise<void> {
    const client = new this.#options.driver.Client({
      connectionString: this.#options.url,
      connectionTimeoutMillis: 5000,
      // Named, so an operator (or a fault test) can find it in pg_stat_activity.
      application_name: 'flagwire-listen',
      // A half-open connection (a peer gone without a FIN) is found by TCP keepalive.
      keepAlive: true,
    });
    client.on('error', () => this.#lost(client));
    client.on('end', () => this.#lost(client));
    client.on('notification', (message) => {
      if (message.channel !== CHANNEL || !message.payload) return;
      const space = message.payload.indexOf(' ');
      const seq = Number(message.payload.slice(0, space));
      if (space > 0 && Number.isSafeInteger(seq))
        this.#options.onNotify(message.payload.slice(space + 1), seq);
    });
    this.#client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      this.#client = undefined;
      client.end().catch(() => {});
      throw error;
    }
    if (this.#closed) {
      await client.end().catch(() => {});
      return;
    }
    this.#connected = true;
    this.#retryMs = 100;
    this.#options.onConnected();
  }

  #lost(client: pg.Client): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    this.#connected = false;
    client.end().catch(() => {});
    if (!this.#closed) this.#reconnectSoon();
  }

  #reconnectSoon(): void {
    if (this.#timer || this.#closed) return;
    // Exponential backoff with jitter, up to 5 s, so a fleet does not reconnect in step.
    const delay = this.#retryMs * (0.5 + Math.random());
    this.#retryMs = Math.min(this.#retryMs * 2, 5000);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#connect().catch((error: Error) => {
        this.#options.warn(`the LISTEN connection is still down (${error.message}); retrying`);
        this.#reconnectSoon();
      });
    }, delay);
    this.#timer.unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    const client = this.#client;
    this.#client = undefined;
    this.#connected = false;
    await client?.end().catch(() => {});
  }
}
