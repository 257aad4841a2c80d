/**
 * The process's limit on open files, which bounds its connections (`docs/protocol.md` §4.1):
 * Linux tells it in `/proc/self/limits` (Node raises the soft limit to the hard one at start-up,
 * so this is the number in force). `undefined` where it cannot be read.
 */
import { readFileSync } from 'node:fs';

export function openFileLimit(): number | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    const n = Number(soft);
    return soft !== undefined && Number.isSafeInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Connections a server accepts by default: its open-file limit less 256 descriptors kept for
 * its store, Postgres, webhook deliveries and logs, at least 64; 10,000 where the limit is
 * unknown or unlimited.
 */
export function defaultMaxConnections(limit = openFileLimit()): number {
  if (limit === undefined) return 10_000;
  return Math.max(64, limit - 256);
}
