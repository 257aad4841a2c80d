/**
 * Retention of the log on Postgres (`docs/scaling.md`, "Retention"). A scope's entries are
 * deleted in the statement that writes its snapshot, up to the older of:
 * - the previous snapshot's entry, so one whole interval stays after the snapshot an instance
 *   may have just loaded;
 * - the lowest position a live instance reported for the scope (`flagwire_positions`), so an
 *   instance that lags, however far, catches up from entries, as a replication slot holds WAL.
 *
 * Each instance reports the newest entry its memory holds per scope on its catch-up timer; a
 * row not refreshed for `positionTtlMs` (the instance crashed, or is cut off) holds nothing back
 * and is deleted. An instance that finds entries gone anyway stops serving that scope
 * (`follower.ts`).
 */
import type pg from 'pg';

/** How long a reported position holds entries back without being refreshed. */
export function positionTtlMs(catchUpIntervalMs: number): number {
  return Math.max(15 * 60_000, 10 * catchUpIntervalMs);
}

export interface SnapshotWrite {
  scope: string;
  /** The entry the snapshot is the state as of. */
  seq: number;
  data: unknown;
  /** The instance writing it: it holds every entry, its own position holds nothing back. */
  owner: string;
  ttlMs: number;
}

/**
 * Writes the scope's snapshot unless a newer one is there and, if it was written, deletes the
 * entries no instance still needs, in the same statement (one transaction, one index range).
 * Answers the number of entries deleted.
 */
export async function writeSnapshot(db: pg.Pool, write: SnapshotWrite): Promise<number> {
  const { rows } = await db.query<{ pruned: number }>(
    `WITH previous AS (
       SELECT seq FROM flagwire_snapshots WHERE scope = $1
     ),
     written AS (
       INSERT INTO flagwire_snapshots (scope, seq, data) VALUES ($1, $2, $3)
       ON CONFLICT (scope) DO UPDATE SET seq = excluded.seq, data = excluded.data, taken_at = now()
       WHERE flagwire_snapshots.seq < excluded.seq
       RETURNING seq
     ),
     bound AS (
       SELECT least(
         p.seq,
         (SELECT min(seq) FROM flagwire_positions
          WHERE scope = $1 AND owner <> $4 AND seen_at > now() - $5 * interval '1 millisecond')
       ) AS upto
       FROM previous p WHERE EXISTS (SELECT 1 FROM written)
     ),
     pruned AS (
       DELETE FROM flagwire_entries WHERE scope = $1 AND seq <= (SELECT upto FROM bound) RETURNING 1
     )
     SELECT count(*)::int AS pruned FROM pruned`,
    [write.scope, write.seq, JSON.stringify(write.data), write.owner, write.ttlMs],
  );
  return rows[0]?.pruned ?? 0;
}

/** What an instance reported of its positions, so a report carries what changed. */
export class PositionReports {
  readonly #owner: string;
  readonly #ttlMs: number;
  readonly #sent = new Map<string, number>();
  #refreshedAt = 0;
  /** The report under way: reports do not pile up behind a slow database. */
  #running: Promise<void> | undefined;

  constructor(owner: string, ttlMs: number) {
    this.#owner = owner;
    this.#ttlMs = ttlMs;
  }

  /**
   * Records `positions` (scope, newest entry held): the changed ones, or all of them once a
   * quarter of the time to live went by, so that unchanged rows stay fresh. Expired rows of other
   * instances are deleted on the way. Skipped while the previous report is still under way.
   */
  report(db: pg.Pool, positions: ReadonlyArray<readonly [string, number]>): Promise<void> {
    if (this.#running) return this.#running;
    this.#running = this.#report(db, positions).finally(() => (this.#running = undefined));
    return this.#running;
  }

  async #report(db: pg.Pool, positions: ReadonlyArray<readonly [string, number]>): Promise<void> {
    const now = Date.now();
    const all = now - this.#refreshedAt >= this.#ttlMs / 4;
    const due = all ? positions : positions.filter(([scope, seq]) => this.#sent.get(scope) !== seq);
    if (due.length === 0) return;
    await db.query(
      `WITH expired AS (
         DELETE FROM flagwire_positions
         WHERE owner <> $1 AND seen_at < now() - $4 * interval '1 millisecond'
       )
       INSERT INTO flagwire_positions (owner, scope, seq)
       SELECT $1, t.scope, t.seq FROM unnest($2::text[], $3::bigint[]) AS t(scope, seq)
       ON CONFLICT (owner, scope) DO UPDATE SET seq = excluded.seq, seen_at = now()`,
      [this.#owner, due.map(([scope]) => scope), due.map(([, seq]) => seq), this.#ttlMs],
    );
    if (all) this.#refreshedAt = now;
    for (const [scope, seq] of due) this.#sent.set(scope, seq);
  }

  /** Deletes this instance's rows: it holds nothing back once closed. */
  async forget(db: pg.Pool): Promise<void> {
    await this.#running?.catch(() => {});
    await db.query('DELETE FROM flagwire_positions WHERE owner = $1', [this.#owner]);
  }
}
