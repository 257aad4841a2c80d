/**
 * How memory follows the log on Postgres (`docs/scaling.md`, "Finding out about other
 * instances' writes"): per scope, the newest entry memory holds, and catching up from the table
 * after a notification, a reconnect or the safety-net timer. Entries reach memory through
 * `Memory.apply`, once, in order.
 */
import type pg from 'pg';
import type { Memory } from '../storage.js';

interface EntryRow<Op> {
  seq: string;
  ops: Op[];
}

export interface FollowerOptions {
  pool: pg.Pool;
  /** Whether memory holds a group commit of the scope not yet committed: its own commit brings memory forward. */
  isTentative(scope: string): boolean;
  /** Whether the storage is closed: nothing more is read. */
  isClosed(): boolean;
  warn: (message: string) => void;
}

export class Follower<Op> {
  readonly #options: FollowerOptions;
  /** Per scope, the newest entry memory holds. */
  readonly #applied = new Map<string, number>();
  /**
   * Scopes found with entries deleted before this instance read them: memory cannot follow them
   * any more (warned once), so the storage refuses their reads and writes (`docs/scaling.md`).
   */
  readonly #lost = new Set<string>();
  /** Per scope, a catch-up under way, and whether a newer notification came meanwhile. */
  readonly #catchingUp = new Map<string, { again: boolean }>();
  /** A catch-up of every scope is under way (the timer and reconnects do not pile up). */
  #catchingUpAll = false;
  #reportedDown = false;
  #memory: Memory<Op> | undefined;

  constructor(options: FollowerOptions) {
    this.#options = options;
  }

  /** The newest entry of `scope` memory holds. */
  position(scope: string): number {
    return this.#applied.get(scope) ?? 0;
  }

  /** Whether entries of `scope` this instance had not read were deleted: it no longer follows it. */
  isLost(scope: string): boolean {
    return this.#lost.has(scope);
  }

  /** The newest entry memory holds, per scope it still follows. */
  positions(): Array<[string, number]> {
    return [...this.#applied].filter(([scope]) => !this.#lost.has(scope));
  }

  /** Records that memory holds `scope` up to entry `seq` (loaded, or committed by this instance). */
  advance(scope: string, seq: number): void {
    this.#applied.set(scope, seq);
  }

  /** Starts following: entries reach `memory` from now on. */
  attach(memory: Memory<Op>): void {
    this.#memory = memory;
  }

  /**
   * Reads the scope's entries after what memory holds and applies them, in order. Entries after
   * a gap are never applied: memory would skip what the gap held.
   */
  async fetchAndApply(scope: string, db: pg.Pool | pg.PoolClient): Promise<void> {
    if (this.#lost.has(scope)) return;
    const after = this.#applied.get(scope) ?? 0;
    const { rows } = await db.query<EntryRow<Op>>(
      'SELECT seq, ops FROM flagwire_entries WHERE scope = $1 AND seq > $2 ORDER BY seq',
      [scope, after],
    );
    const first = rows[0] && Number(rows[0].seq);
    if (first && first > after + 1) {
      // Entries this instance had not read were deleted: it cannot catch up by itself.
      this.#lost.add(scope);
      this.#options.warn(
        `entries ${after + 1} to ${first - 1} of ${scope || 'the shared scope'} were deleted before this instance read them; restart it to load from the snapshot`,
      );
      return;
    }
    for (const row of rows) this.applyEntry(scope, Number(row.seq), row.ops);
  }

  applyEntry(scope: string, seq: number, ops: Op[]): void {
    const applied = this.#applied.get(scope) ?? 0;
    // While a batch is in memory uncommitted, its own commit brings memory forward.
    if (seq !== applied + 1 || !this.#memory || this.#options.isTentative(scope)) return;
    this.#applied.set(scope, seq);
    this.#memory.apply(ops)();
  }

  catchUpSoon(scope: string): void {
    if (!this.#memory || this.#options.isClosed()) return;
    const running = this.#catchingUp.get(scope);
    if (running) {
      running.again = true;
      return;
    }
    const state = { again: false };
    this.#catchingUp.set(scope, state);
    const run = async (): Promise<void> => {
      do {
        state.again = false;
        await this.fetchAndApply(scope, this.#options.pool);
      } while (state.again && !this.#options.isClosed());
    };
    run()
      .then(() => this.#up())
      .catch((error) => this.#down(error))
      .finally(() => this.#catchingUp.delete(scope));
  }

  catchUpAllSoon(): void {
    if (!this.#memory || this.#options.isClosed() || this.#catchingUpAll) return;
    this.#catchingUpAll = true;
    this.#catchUpAll()
      .then(() => this.#up())
      .catch((error) => this.#down(error))
      .finally(() => (this.#catchingUpAll = false));
  }

  /** Compares every scope's counter with memory and reads what is missing. */
  async #catchUpAll(): Promise<void> {
    const { rows } = await this.#options.pool.query<{ scope: string; seq: string }>(
      'SELECT scope, seq FROM flagwire_scopes',
    );
    // The spanning scope first: what environments refer to is in place before them.
    rows.sort((a, b) => (a.scope === '' ? -1 : b.scope === '' ? 1 : 0));
    for (const row of rows)
      if (Number(row.seq) > (this.#applied.get(row.scope) ?? 0) && !this.#lost.has(row.scope))
        await this.fetchAndApply(row.scope, this.#options.pool);
  }

  #down(error: unknown): void {
    if (this.#options.isClosed()) return;
    if (!this.#reportedDown) {
      this.#reportedDown = true;
      this.#options.warn(`cannot read from the database (${(error as Error)?.message ?? error}); retrying`);
    }
  }

  #up(): void {
    if (!this.#reportedDown) return;
    this.#reportedDown = false;
    this.#options.warn('the database is reachable again; caught up');
  }
}
