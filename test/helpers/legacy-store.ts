/**
 * Stores as an older server left them: a data directory whose journal and snapshot are edited
 * as text, so they hold what no save can make any more (a value the API now refuses).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Replaces each `[from, to]` of `pairs` in every file of `dataDir` (the journal and the snapshot
 * alike); answers how many files changed.
 */
export function rewriteStore(dataDir: string, pairs: ReadonlyArray<readonly [string, string]>): number {
  let replaced = 0;
  for (const name of readdirSync(dataDir)) {
    const path = join(dataDir, name);
    const text = readFileSync(path, 'utf8');
    const next = pairs.reduce((out, [from, to]) => out.replaceAll(from, to), text);
    if (next !== text) {
      writeFileSync(path, next);
      replaced += 1;
    }
  }
  return replaced;
}
