/**
 * Named leases in `flagwire_leases` (`docs/scaling.md`, "Webhooks"): of several instances, the
 * one holding a lease does the job it names until it gives it back or its time runs out.
 */
import type pg from 'pg';
import { asStorageError } from './errors.js';

/**
 * Takes `name` for `owner` for `ms` (a holder renews it): `0` when taken, else the epoch
 * milliseconds when to try again.
 */
export async function takeLease(pool: pg.Pool, name: string, owner: string, ms: number): Promise<number> {
  try {
    const taken = await pool.query(
      `INSERT INTO flagwire_leases (name, owner, until)
       VALUES ($1, $2, now() + $3 * interval '1 millisecond')
       ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, until = excluded.until
       WHERE flagwire_leases.until < now() OR flagwire_leases.owner = excluded.owner`,
      [name, owner, ms],
    );
    if (taken.rowCount === 1) return 0;
    const { rows } = await pool.query<{ until: string }>(
      `SELECT (extract(epoch FROM until) * 1000)::bigint::text AS until FROM flagwire_leases WHERE name = $1`,
      [name],
    );
    // Given back meanwhile: try again soon.
    return Math.max(Number(rows[0]?.until ?? 0), Date.now() + 100);
  } catch (error) {
    throw asStorageError(error);
  }
}

/** Gives `name` back, if `owner` still holds it. */
export async function giveLeaseBack(pool: pg.Pool, name: string, owner: string): Promise<void> {
  try {
    await pool.query('DELETE FROM flagwire_leases WHERE name = $1 AND owner = $2', [name, owner]);
  } catch (error) {
    throw asStorageError(error);
  }
}
