/**
 * Start-up's bounded wait for the database (`docs/scaling.md`, "Failure behaviour"): retried with
 * backoff while it is unreachable, then an error that names it, never its password.
 */
import type pg from 'pg';
import { describeDatabaseUrl } from './database-url.js';
import { isUnavailable } from './errors.js';

export async function waitForDatabase(pool: pg.Pool, url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let delay = 100;
  for (;;) {
    try {
      await pool.query('SELECT 1');
      return;
    } catch (error) {
      if (!isUnavailable(error) || Date.now() + delay > deadline) {
        const where = describeDatabaseUrl(url);
        const seconds = Math.round(timeoutMs / 100) / 10;
        throw new Error(
          isUnavailable(error)
            ? `cannot reach the database at ${where} within ${seconds} s: ${(error as Error).message}`
            : `cannot use the database at ${where}: ${(error as Error).message}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 1000);
    }
  }
}
