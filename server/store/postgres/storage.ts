/**
 * Shared storage on Postgres: several server instances, one database, one service
 * (`docs/scaling.md`).
 *
 * - The log: every committed entry is a row of `flagwire_entries`, numbered gap-free per scope
 *   (an environment, or `''` for what spans them) by the counter in `flagwire_scopes`. A write
 *   locks its scope's counter row, so writes to one scope commit one after another, on any
 *   instance, and the counter's order is the commit order.
 * - Memory follows the log: an entry reaches memory through the applier, once, in order,
 *   whether this instance wrote it or another did (`follower.ts` skips what it already holds).
 * - Finding out: a write sends `NOTIFY` with only `SEQ SCOPE`; each instance's one `LISTEN`
 *   connection hears it and reads the entries after its own position. After every reconnect of
 *   that connection, and on a slow timer, it catches up on every scope from the table.
 * - Leases (`flagwire_leases`): a named claim with an owner and an expiry, so that of several
 *   instances one does a job (a webhook attempt) at a time.
 * - Retention (`retention.ts`): a scope's snapshot deletes the entries no live instance needs.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type pg from 'pg';
import { entryJson, StorageClosedError, StorageUnavailableError } from '../errors.js';
import type { LoadedState, Memory, Storage } from '../storage.js';
import { describeDatabaseUrl } from './database-url.js';
import { type ImportPg, loadPg, type PgDriver } from './driver.js';
import { asStorageError, isUnavailable, lostError } from './errors.js';
import { Follower } from './follower.js';
import { giveLeaseBack, takeLease } from './leases.js';
import { CHANNEL, CommitListener } from './listener.js';
import { PositionReports, positionTtlMs, writeSnapshot } from './retention.js';
import { migrate } from './schema.js';
import { waitForDatabase } from './wait.js';

export interface PostgresStorageOptions {
  url: string;
  /** How long start-up waits for an unreachable database before giving up. */
  connectTimeoutMs: number;
  /** Connections this instance opens for requests (the `LISTEN` one comes on top). */
  poolSize: number;
  /** Interval of the safety-net catch-up from the table, in milliseconds. */
  catchUpIntervalMs: number;
  /** Entries of a scope after which the instance that commits the next one snapshots the scope. */
  compactAfterEntries: number;
  /** Told about recoverable problems (the database away, then back). */
  warn: (message: string) => void;
}

/** Writes committed in one transaction at most (group commit). */
const MAX_BATCH = 128;

interface Queued<Op> {
  plan: () => Op[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

interface EntryRow<Op> {
  seq: string;
  ops: Op[];
}

/**
 * Opens a Postgres storage: imports `pg` (`driver.ts`), and rejects with
 * `DatabaseDriverMissingError` when it is not installed. Connects in `load()`.
 */
export async function createPostgresStorage<Op>(
  options: PostgresStorageOptions,
  importPg?: ImportPg,
): Promise<Storage<Op>> {
  return new PostgresStorage<Op>(await loadPg(importPg), options);
}

class PostgresStorage<Op> implements Storage<Op> {
  readonly description: string;
  readonly #options: PostgresStorageOptions;
  readonly #pool: pg.Pool;
  readonly #listener: CommitListener;
  /** This instance's name on leases: host, process id, and a random part. */
  readonly #owner = `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`;
  /** Per scope, the entry of its newest snapshot (written or being written). */
  readonly #snapshotSeq = new Map<string, number>();
  readonly #follower: Follower<Op>;
  /** How long this instance's reported positions hold entries back (`retention.ts`). */
  readonly #ttlMs: number;
  readonly #positions: PositionReports;
  #memory: Memory<Op> | undefined;
  /** Writes waiting for their scope's next batch. */
  readonly #queues = new Map<string, Queued<Op>[]>();
  /** Scopes whose queue is being committed. */
  readonly #draining = new Set<string>();
  /**
   * Scopes whose memory holds a batch not yet committed, with the promise of its outcome
   * (`true`: committed). Reads of such a scope wait for it.
   */
  readonly #tentative = new Map<string, Promise<boolean>>();
  #timer: NodeJS.Timeout | undefined;
  #closed: Promise<void> | undefined;

  constructor(driver: PgDriver, options: PostgresStorageOptions) {
    this.#options = options;
    this.description = `postgres (${describeDatabaseUrl(options.url)})`;
    this.#ttlMs = positionTtlMs(options.catchUpIntervalMs);
    this.#positions = new PositionReports(this.#owner, this.#ttlMs);
    this.#pool = new driver.Pool({
      connectionString: options.url,
      max: options.poolSize,
      connectionTimeoutMillis: 5000,
      idleTimeoutMillis: 30_000,
      // Never hang a request on a database that stopped answering.
      query_timeout: 15_000,
      application_name: 'flagwire',
    });
    // An idle connection that the database drops must not crash the process.
    this.#pool.on('error', () => {});
    const follower = new Follower<Op>({
      pool: this.#pool,
      isTentative: (scope) => this.#tentative.has(scope),
      isClosed: () => this.#closed !== undefined,
      warn: options.warn,
    });
    this.#follower = follower;
    this.#listener = new CommitListener({
      driver,
      url: options.url,
      onNotify: (scope, seq) => {
        if (seq > follower.position(scope)) follower.catchUpSoon(scope);
      },
      onConnected: () => follower.catchUpAllSoon(),
      warn: options.warn,
    });
  }

  async load(): Promise<LoadedState<Op>> {
    await waitForDatabase(this.#pool, this.#options.url, this.#options.connectTimeoutMs);
    const client = await this.#connect();
    try {
      await migrate(client);
    } finally {
      client.release();
    }
    // Listening before reading: whatever commits after the read is announced.
    await this.#listener.start();
    // Snapshots and the entries after them, read in one consistent view of the database.
    const reader = await this.#connect();
    let snapshots: Array<{ scope: string; seq: string; data: unknown }>;
    let rows: Array<EntryRow<Op> & { scope: string }>;
    try {
      await reader.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      snapshots = (await reader.query('SELECT scope, seq, data FROM flagwire_snapshots')).rows;
      rows = (
        await reader.query(
          `SELECT e.scope, e.seq, e.ops FROM flagwire_entries e LEFT JOIN flagwire_snapshots s USING (scope)
           WHERE e.seq > coalesce(s.seq, 0) ORDER BY e.scope, e.seq`,
        )
      ).rows;
      await reader.query('COMMIT');
    } finally {
      reader.release();
    }
    for (const { scope, seq } of snapshots) {
      this.#follower.advance(scope, Number(seq));
      this.#snapshotSeq.set(scope, Number(seq));
    }
    const entries: Op[][] = [];
    for (const row of rows) {
      entries.push(row.ops);
      this.#follower.advance(row.scope, Number(row.seq));
    }
    // From now on, the entries after what this instance loaded are kept for it.
    await this.#reportPositions();
    return { snapshots: snapshots.map(({ scope, data }) => ({ scope, data })), entries };
  }

  attach(memory: Memory<Op>): void {
    this.#memory = memory;
    this.#follower.attach(memory);
    this.#follower.catchUpAllSoon();
    this.#timer = setInterval(() => {
      this.#follower.catchUpAllSoon();
      void this.#reportPositions();
    }, this.#options.catchUpIntervalMs);
    this.#timer.unref();
  }

  /**
   * Resolves once no batch that memory holds is still being committed: at once, usually.
   * Rejects with `StorageUnavailableError` if one of them failed (memory no longer holds it).
   */
  async #barrier(): Promise<void> {
    if (this.#tentative.size === 0) return;
    const outcomes = await Promise.all(this.#tentative.values());
    if (outcomes.includes(false)) throw new StorageUnavailableError();
  }

  commit(scope: string, plan: () => Op[]): Promise<void> {
    if (this.#closed) return Promise.reject(new StorageClosedError());
    return new Promise((resolve, reject) => {
      const queue = this.#queues.get(scope);
      if (queue) queue.push({ plan, resolve, reject });
      else this.#queues.set(scope, [{ plan, resolve, reject }]);
      if (!this.#draining.has(scope)) {
        this.#draining.add(scope);
        void this.#drain(scope);
      }
    });
  }

  /**
   * Commits the scope's queued writes, a batch per transaction (group commit): one lock, one
   * `INSERT`, one WAL flush for all the writes that queued while the previous batch committed.
   */
  async #drain(scope: string): Promise<void> {
    try {
      for (;;) {
        const queue = this.#queues.get(scope);
        if (!queue || queue.length === 0) break;
        const batch = queue.splice(0, MAX_BATCH);
        await this.#commitBatch(scope, batch).catch((error: unknown) => {
          // A bug, not the database: answer the batch rather than leave it waiting.
          for (const item of batch) item.reject(error);
        });
      }
    } finally {
      this.#queues.delete(scope);
      this.#draining.delete(scope);
    }
  }

  async #commitBatch(scope: string, batch: Queued<Op>[]): Promise<void> {
    let client: pg.PoolClient;
    try {
      client = await this.#connect();
    } catch (error) {
      for (const item of batch) item.reject(asStorageError(error));
      return;
    }
    let broken: Error | undefined;
    let restore: (() => void) | undefined;
    let settle: ((committed: boolean) => void) | undefined;
    const entries: Array<{ ops: Op[]; json: string; publish: () => void; item: Queued<Op> }> = [];
    const unchanged: Queued<Op>[] = [];
    try {
      await client.query('BEGIN');
      // Creates the scope's counter on first use; either way locks it until COMMIT.
      const { rows } = await client.query<{ seq: string }>(
        `INSERT INTO flagwire_scopes (scope) VALUES ($1)
         ON CONFLICT (scope) DO UPDATE SET seq = flagwire_scopes.seq RETURNING seq`,
        [scope],
      );
      const seq = Number(rows[0]!.seq);
      if (seq > this.#follower.position(scope)) await this.#follower.fetchAndApply(scope, client);
      if (this.#follower.isLost(scope)) throw lostError(scope);
      if (this.#follower.position(scope) !== seq)
        throw new Error(`store: ${scope} did not catch up to ${seq}`);
      const memory = this.#memory!;
      if (batch.length > 1) {
        // Each plan must see the writes before it in the batch: they go to memory now, and
        // come out again if the batch does not commit. Reads wait for the outcome (`#sync`).
        restore = memory.capture(scope);
        this.#tentative.set(scope, new Promise((resolve) => (settle = resolve)));
      }
      for (const item of batch) {
        let ops: Op[];
        let json = '';
        try {
          ops = item.plan();
          // Written out before memory sees it: a change the database cannot take is refused whole.
          if (ops.length > 0) json = entryJson(ops);
        } catch (error) {
          item.reject(error);
          continue;
        }
        if (ops.length === 0) unchanged.push(item);
        // A lone write reaches memory after COMMIT, like another instance's.
        else entries.push({ ops, json, publish: restore ? memory.apply(ops) : () => {}, item });
      }
      if (entries.length === 0) {
        await client.query('ROLLBACK');
        for (const item of unchanged) item.resolve();
        settle?.(true);
        return;
      }
      const last = seq + entries.length;
      await client.query(
        `WITH entry AS (
           INSERT INTO flagwire_entries (scope, seq, ops)
           SELECT $1, $2::bigint + t.i, t.o FROM json_array_elements($3::json) WITH ORDINALITY AS t(o, i)
         ),
         counter AS (UPDATE flagwire_scopes SET seq = $4 WHERE scope = $1)
         SELECT pg_notify('${CHANNEL}', $5)`,
        [scope, seq, `[${entries.map((e) => e.json).join(',')}]`, last, `${last} ${scope}`],
      );
      await client.query('COMMIT');
      if (restore) {
        this.#follower.advance(scope, last);
        for (const entry of entries) entry.publish();
      } else {
        this.#follower.applyEntry(scope, last, entries[0]!.ops);
      }
      this.#compactSoon(scope, last);
      settle?.(true);
      for (const entry of entries) entry.item.resolve();
      for (const item of unchanged) item.resolve();
    } catch (error) {
      if (isUnavailable(error)) broken = error as Error;
      else await client.query('ROLLBACK').catch(() => {});
      restore?.();
      settle?.(false);
      // Entries skipped while the batch was in memory (another instance's, if the lock was lost
      // with the connection; ours, if COMMIT went through after all) are read now.
      if (restore) queueMicrotask(() => this.#follower.catchUpSoon(scope));
      // The batch fails together; a plan's own refusal (rejected above) stands, as a promise
      // settles once.
      const failure = asStorageError(error);
      for (const item of batch) item.reject(failure);
    } finally {
      if (settle) this.#tentative.delete(scope);
      client.release(broken);
    }
  }

  async readSettled<T>(scope: string | null, read: () => T): Promise<T> {
    const value = scope === null ? read() : await this.#sync(scope, read);
    // What it read of other scopes is durable too (the overview reads every environment).
    await this.#barrier();
    return value;
  }

  /** Catches memory up with every entry committed to `scope`, then runs `read`. */
  async #sync<T>(scope: string, read: () => T): Promise<T> {
    try {
      // Reads only when no batch is in memory uncommitted, checked last, synchronously, so it
      // never answers what may not commit.
      for (;;) {
        for (let pending = this.#tentative.get(scope); pending; pending = this.#tentative.get(scope))
          await pending;
        const { rows } = await this.#pool.query<{ seq: string }>(
          'SELECT seq FROM flagwire_scopes WHERE scope = $1',
          [scope],
        );
        const seq = Number(rows[0]?.seq ?? 0);
        if (seq > this.#follower.position(scope)) await this.#follower.fetchAndApply(scope, this.#pool);
        // Never an answer from memory that stopped following the scope.
        if (this.#follower.isLost(scope)) throw lostError(scope);
        if (!this.#tentative.has(scope)) return read();
      }
    } catch (error) {
      throw asStorageError(error);
    }
  }

  lease(name: string, ms: number): Promise<number> {
    return takeLease(this.#pool, name, this.#owner, ms);
  }

  unlease(name: string): Promise<void> {
    return giveLeaseBack(this.#pool, name, this.#owner);
  }

  close(): Promise<void> {
    this.#closed ??= (async () => {
      clearInterval(this.#timer);
      await this.#listener.close();
      // Gone: nothing is kept for this instance any more.
      await this.#positions.forget(this.#pool).catch(() => {});
      await this.#pool.end().catch(() => {});
    })();
    return this.#closed;
  }

  /**
   * Snapshots the scope once `compactAfterEntries` entries came after its last snapshot, so
   * start-up reads the snapshot and what follows instead of the whole log. Taken from memory,
   * which holds exactly the entries up to `seq` now; the instance that committed that entry
   * writes it, and an older one never replaces a newer. The same statement deletes the entries
   * no instance needs any more (`retention.ts`).
   */
  #compactSoon(scope: string, seq: number): void {
    if (seq - (this.#snapshotSeq.get(scope) ?? 0) < this.#options.compactAfterEntries) return;
    if (this.#follower.position(scope) !== seq) return;
    const data = this.#memory!.snapshot(scope);
    if (!data) return;
    const previous = this.#snapshotSeq.get(scope);
    this.#snapshotSeq.set(scope, seq);
    writeSnapshot(this.#pool, { scope, seq, data, owner: this.#owner, ttlMs: this.#ttlMs }).catch(
      (error: Error) => {
        if (previous === undefined) this.#snapshotSeq.delete(scope);
        else this.#snapshotSeq.set(scope, previous);
        if (!this.#closed)
          this.#options.warn(
            `could not write a snapshot of ${scope || 'the shared scope'}: ${error.message}`,
          );
      },
    );
  }

  /** Tells the others which entries this instance still needs (`retention.ts`); retried on the timer. */
  async #reportPositions(): Promise<void> {
    if (this.#closed) return;
    await this.#positions.report(this.#pool, this.#follower.positions()).catch(() => {});
  }

  /** A pooled connection, with an `error` listener while it is held (a drop must not crash). */
  async #connect(): Promise<pg.PoolClient> {
    const client = await this.#pool.connect();
    if (client.listenerCount('error') === 0) client.on('error', () => {});
    return client;
  }
}
