/**
 * The data directory's snapshot file (`docs/protocol.md` §7.3), as JSON lines so that no single
 * string holds the whole state: a header `{"format":2,"seq":N}`, a line `{"env":{...}}` per
 * environment, and a last line `{"shared":{...}}` with what spans environments. Read back line by
 * line from a stream. A snapshot of format 1 (one JSON document, written before) still loads.
 * An environment's line that cannot be parsed is read as `{id, unreadable}` (the reason), so
 * that environment alone is not restored (`server/state/kernel/damaged.ts`).
 */
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';

const FORMAT = 2;

/** The id an environment's line starts with (`envSnapshot` writes `id` first), JSON-escaped. */
const ENV_ID = /^\{"env":\{"id":"((?:[^"\\]|\\.)*)"/;

/** One environment that cannot be written to a snapshot (its JSON cannot be made). */
export class SnapshotPieceError extends Error {
  override readonly name = 'SnapshotPieceError';
}

interface SnapshotShape {
  envs?: unknown[];
  [part: string]: unknown;
}

const nameOf = (env: unknown): string => {
  const { project, environment, id } = (env ?? {}) as Record<string, unknown>;
  return `environment ${String(project)}/${String(environment)} (${String(id)})`;
};

/**
 * The lines of a snapshot of `data` (a state layer's whole-state snapshot: `envs` and shared
 * parts) at `seq`, each ending in a newline. Throws `SnapshotPieceError` naming the environment
 * whose JSON cannot be made.
 */
export function snapshotLines(seq: number, data: unknown): string[] {
  const { envs = [], ...shared } = (data ?? {}) as SnapshotShape;
  const lines = [`{"format":${FORMAT},"seq":${seq}}\n`];
  for (const env of envs) {
    try {
      lines.push(`{"env":${JSON.stringify(env)}}\n`);
    } catch (error) {
      throw new SnapshotPieceError(
        `${nameOf(env)} cannot be written to a snapshot: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }
  lines.push(`{"shared":${JSON.stringify(shared)}}\n`);
  return lines;
}

/** Reads a snapshot file (either format): its sequence number and data. */
export async function readSnapshot(path: string): Promise<{ seq: number; data: unknown }> {
  const stream = createReadStream(path, { encoding: 'utf8' });
  const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  let seq: number | undefined;
  const envs: unknown[] = [];
  let shared: Record<string, unknown> | undefined;
  let legacy = false;
  try {
    for await (const line of lines) {
      if (seq === undefined) {
        if (!line.startsWith(`{"format":${FORMAT},`)) {
          legacy = true;
          break;
        }
        const header = JSON.parse(line) as { seq?: unknown };
        if (typeof header.seq !== 'number') throw new Error('a snapshot header without "seq"');
        seq = header.seq;
        continue;
      }
      if (line === '') continue;
      let piece: { env?: unknown; shared?: Record<string, unknown> };
      try {
        piece = JSON.parse(line) as typeof piece;
      } catch (error) {
        // One environment's line: that environment is not restored, the others are (§7.3).
        const id = ENV_ID.exec(line)?.[1];
        if (id === undefined) throw error;
        envs.push({ id: JSON.parse(`"${id}"`) as string, unreadable: (error as Error).message });
        continue;
      }
      if ('env' in piece) envs.push(piece.env);
      else if (piece.shared && typeof piece.shared === 'object') shared = piece.shared;
      else throw new Error('a snapshot line that is neither an environment nor the shared part');
    }
  } finally {
    lines.close();
    stream.destroy();
  }
  if (legacy) return readLegacy(path);
  if (seq === undefined) throw new Error('an empty snapshot');
  // The shared part is written last: without it the file was cut short.
  if (shared === undefined) throw new Error('a snapshot cut short (no shared part)');
  return { seq, data: { ...shared, envs } };
}

/** A snapshot of format 1: one JSON document `{format: 1, seq, data}`. */
async function readLegacy(path: string): Promise<{ seq: number; data: unknown }> {
  const parsed = JSON.parse(await readFile(path, 'utf8')) as { format: unknown; seq: unknown; data: unknown };
  if (parsed.format !== 1 || typeof parsed.seq !== 'number' || typeof parsed.data !== 'object') {
    throw new Error(`unknown snapshot format ${JSON.stringify(parsed.format)}`);
  }
  return { seq: parsed.seq, data: parsed.data };
}
