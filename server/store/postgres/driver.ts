/**
 * The Postgres driver, `pg`, loaded when a database is asked for and not before: it is an
 * optional peer dependency (`docs/scaling.md`, "Installing"), so an app that installs flagwire for
 * the SDK, or runs the server on its journal, never installs it.
 */
import type pg from 'pg';

/** What the storage takes of `pg`: its pool and its client. */
export type PgDriver = Pick<typeof pg, 'Pool' | 'Client'>;

/** How the driver is imported; a test passes one that fails as a missing package does. */
export type ImportPg = () => Promise<{ default: PgDriver }>;

/**
 * A database was asked for (`--database`, `FLAGWIRE_DATABASE_URL`, `startServer({ databaseUrl })`)
 * and `pg` is not installed. Start-up fails with it; the CLI prints the message and exits 1.
 */
export class DatabaseDriverMissingError extends Error {
  override readonly name = 'DatabaseDriverMissingError';
  readonly code = 'DATABASE_DRIVER_MISSING';

  constructor(options?: ErrorOptions) {
    super(
      'a database was asked for (--database, FLAGWIRE_DATABASE_URL or databaseUrl), but its driver ' +
        'is not installed: run `npm install pg` beside flagwire, or run without a database',
      options,
    );
  }
}

/** Whether `error` says that `pg` itself cannot be found (not a module `pg` needs, nor a bug in it). */
function isPgMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  // Node names the package it looked for: "Cannot find package 'pg' imported from ..." (ESM),
  // "Cannot find module 'pg'" (CommonJS).
  return /'pg'/.test((error as Error).message);
}

/** Imports `pg`; rejects with `DatabaseDriverMissingError` when it is not installed. */
export async function loadPg(importPg: ImportPg = () => import('pg')): Promise<PgDriver> {
  try {
    return (await importPg()).default;
  } catch (error) {
    throw isPgMissing(error) ? new DatabaseDriverMissingError({ cause: error }) : error;
  }
}
