/**
 * The Postgres schema, as versioned migrations (`docs/scaling.md`). Instances that start
 * together take an advisory lock first, so exactly one of them runs each migration; a database
 * whose schema is newer than this server knows is refused, never changed.
 */
import type pg from 'pg';

/** Tables are prefixed, so a database shared with an application stays readable. */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE flagwire_scopes (
     scope text PRIMARY KEY,
     seq bigint NOT NULL DEFAULT 0
   );
   CREATE TABLE flagwire_entries (
     scope text NOT NULL,
     seq bigint NOT NULL,
     ops jsonb NOT NULL,
     committed_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (scope, seq)
   );
   CREATE TABLE flagwire_deliveries (
     id text PRIMARY KEY,
     scope text NOT NULL,
     webhook_id text NOT NULL,
     status text NOT NULL,
     attempts integer NOT NULL,
     lease_owner text,
     lease_until timestamptz
   );
   CREATE INDEX flagwire_deliveries_webhook ON flagwire_deliveries (scope, webhook_id);`,
  // Compaction: the state of a scope as of entry `seq`; start-up reads it and the entries after.
  `CREATE TABLE flagwire_snapshots (
     scope text PRIMARY KEY,
     seq bigint NOT NULL,
     data jsonb NOT NULL,
     taken_at timestamptz NOT NULL DEFAULT now()
   );`,
  // Leases: one instance at a time does a named job (a webhook attempt). `flagwire_deliveries`,
  // which the 0.1 servers wrote, is left in place so that they keep working during a rolling
  // upgrade; nothing reads it any more.
  `CREATE TABLE flagwire_leases (
     name text PRIMARY KEY,
     owner text NOT NULL,
     until timestamptz NOT NULL
   );`,
  // Retention: per instance and scope, the newest entry its memory holds, reported on the
  // catch-up timer. Entries a live instance has not read yet are never pruned (`retention.ts`).
  `CREATE TABLE flagwire_positions (
     owner text NOT NULL,
     scope text NOT NULL,
     seq bigint NOT NULL,
     seen_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (owner, scope)
   );`,
  // Entries and snapshots as the JSON text written. `jsonb` reorders an object's keys (shortest
  // first), and key order is data here (a flag's first variant is its default off variant and
  // fallthrough): an instance reading an entry back must hold what its writer holds. Rows written
  // before keep `jsonb`'s order, the same for every instance that reads them.
  `ALTER TABLE flagwire_entries ALTER COLUMN ops TYPE json USING ops::json;
   ALTER TABLE flagwire_snapshots ALTER COLUMN data TYPE json USING data::json;`,
];

/** Any 64-bit number of our own: the advisory lock that serializes migrations. */
const MIGRATION_LOCK = 7_346_001_117;

/** Brings the schema to the newest version; safe to run from several instances at once. */
export async function migrate(client: pg.ClientBase): Promise<void> {
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
  try {
    await client.query(
      `CREATE TABLE IF NOT EXISTS flagwire_migrations (
         version integer PRIMARY KEY,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const { rows } = await client.query<{ version: number | null }>(
      'SELECT max(version) AS version FROM flagwire_migrations',
    );
    const current = rows[0]?.version ?? 0;
    if (current > MIGRATIONS.length) {
      throw new Error(
        `the database's schema is version ${current}, newer than this server knows (${MIGRATIONS.length}): upgrade flagwire`,
      );
    }
    for (let version = current + 1; version <= MIGRATIONS.length; version++) {
      await client.query('BEGIN');
      try {
        await client.query(MIGRATIONS[version - 1]!);
        await client.query('INSERT INTO flagwire_migrations (version) VALUES ($1)', [version]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
  }
}
