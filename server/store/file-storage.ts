/**
 * Durable storage in a data directory: an append-only journal (`journal.jsonl`, one
 * JSON line per committed entry) and a compacted snapshot (`snapshot.json`).
 *
 * - Group commit: entries appended while a write is in flight go out together in the
 *   next write, followed by one `fdatasync`; every entry of the batch resolves after it.
 * - Crash safety: an entry is acknowledged only after its bytes are synced, so a crash
 *   can only tear the unacknowledged tail, which `load()` cuts off.
 * - Compaction: the snapshot is written to a temporary file, synced and renamed over the
 *   old one (atomic), the directory is synced, and only then is the journal truncated.
 *   Entries carry a sequence number; replay skips those the snapshot already holds.
 *
 * See `docs/protocol.md` §7.
 */
import { type FileHandle, mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type DirLock, lockDir } from './dir-lock.js';
import { entryJson, StorageClosedError, StorageUnavailableError } from './errors.js';
import { readSnapshot, SnapshotPieceError, snapshotLines } from './snapshot-file.js';
import type { LoadedState, Memory, Storage } from './storage.js';

export interface FileStorageOptions {
  dir: string;
  /** Compact once the journal holds this many entries. */
  compactAfterEntries: number;
  /** Compact once the journal holds this many bytes. */
  compactAfterBytes: number;
  /** Told about recoverable problems (a torn journal tail). */
  warn: (message: string) => void;
}

interface Pending {
  line: string;
  onDurable: (() => void) | undefined;
  resolve: () => void;
  reject: (error: Error) => void;
}

const SNAPSHOT = 'snapshot.json';
const JOURNAL = 'journal.jsonl';
const LOCK = 'flagwire.lock';

async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export function createFileStorage<Op>(options: FileStorageOptions): Storage<Op> {
  return new FileStorage<Op>(options);
}

/**
 * One instance owns the data directory, so a scope's lock is the event loop: a write's plan runs,
 * and its entry reaches memory, in the same synchronous step as its `commit` call, so racing
 * writes see each other (one 201, one 409). Memory thus holds an entry before it is durable;
 * it is published, and answered, only after, and a settled read waits for it. A failed write
 * fails the storage: every later commit and read is refused.
 */
class FileStorage<Op> implements Storage<Op> {
  readonly description: string;
  readonly #dir: string;
  readonly #options: FileStorageOptions;
  #journal: FileHandle | undefined;
  #seq = 0;
  #entries = 0;
  #bytes = 0;
  #queue: Pending[] = [];
  #running = false;
  #idle: Array<() => void> = [];
  #failure: Error | undefined;
  #closed: Promise<void> | undefined;
  #memory: Memory<Op> | undefined;
  #lock: DirLock | undefined;
  /** The journal's size when a compaction last failed on one environment: the next waits for as much again. */
  #compactionHeldAt = { entries: 0, bytes: 0 };

  constructor(options: FileStorageOptions) {
    this.#options = options;
    this.#dir = resolve(options.dir);
    this.description = `${options.dir} (durable)`;
  }

  async load(): Promise<LoadedState<Op>> {
    await mkdir(this.#dir, { recursive: true });
    this.#lock = await lockDir(this.#dir, LOCK);
    let snapshot: unknown;
    let snapshotSeq = 0;
    const snapshotPath = join(this.#dir, SNAPSHOT);
    try {
      const parsed = await readSnapshot(snapshotPath);
      snapshot = parsed.data;
      snapshotSeq = parsed.seq;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw new Error(`store: cannot read ${snapshotPath}: ${(error as Error).message}`);
      }
    }
    await rm(join(this.#dir, `${SNAPSHOT}.tmp`), { force: true });

    const journalPath = join(this.#dir, JOURNAL);
    let bytes: Buffer;
    let created = false;
    try {
      bytes = await readFile(journalPath);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      bytes = Buffer.alloc(0);
      created = true;
    }
    const entries: Op[][] = [];
    let seq = snapshotSeq;
    let end = 0;
    while (end < bytes.length) {
      const newline = bytes.indexOf(10, end);
      if (newline === -1) break;
      let record: { s: number; o: Op[] };
      try {
        record = JSON.parse(bytes.toString('utf8', end, newline)) as { s: number; o: Op[] };
        if (typeof record.s !== 'number' || !Array.isArray(record.o)) throw new Error('not an entry');
      } catch {
        break;
      }
      if (record.s > snapshotSeq) {
        entries.push(record.o);
        seq = Math.max(seq, record.s);
      }
      end = newline + 1;
    }
    if (end < bytes.length) {
      // A torn tail: bytes of a write that was never acknowledged. Cut it off.
      this.#options.warn(
        `store: dropped ${bytes.length - end} bytes of an unfinished write at the end of ${journalPath}`,
      );
      const handle = await open(journalPath, 'r+');
      try {
        await handle.truncate(end);
        await handle.sync();
      } finally {
        await handle.close();
      }
    }
    this.#journal = await open(journalPath, 'a');
    if (created) await syncDir(this.#dir);
    this.#seq = seq;
    this.#entries = entries.length;
    this.#bytes = end;
    return { snapshots: snapshot === undefined ? [] : [{ scope: undefined, data: snapshot }], entries };
  }

  attach(memory: Memory<Op>): void {
    this.#memory = memory;
  }

  commit(_scope: string, plan: () => Op[]): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#closed || !this.#journal || !this.#memory) return Promise.reject(new StorageClosedError());
    let ops: Op[];
    try {
      ops = plan();
    } catch (error) {
      return Promise.reject(error);
    }
    // A write that changes nothing answers once what it was decided against is durable.
    if (ops.length === 0) return this.#barrier();
    // Written out before memory sees it: a change the journal cannot hold is refused whole.
    let line: string;
    try {
      line = `{"s":${this.#seq + 1},"o":${entryJson(ops)}}\n`;
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#append(line, this.#memory.apply(ops));
  }

  async readSettled<T>(_scope: string | null, read: () => T): Promise<T> {
    // Memory may hold entries still being written: read them, answer once they are durable.
    const value = read();
    await this.#barrier();
    return value;
  }

  lease(): Promise<number> {
    return Promise.resolve(0);
  }

  unlease(): Promise<void> {
    return Promise.resolve();
  }

  #append(line: string, onDurable: () => void): Promise<void> {
    this.#seq += 1;
    return new Promise((resolve, reject) => {
      this.#queue.push({ line, onDurable, resolve, reject });
      this.#kick();
    });
  }

  #barrier(): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (!this.#running && this.#queue.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.#queue.push({ line: '', onDurable: undefined, resolve, reject });
      this.#kick();
    });
  }

  close(): Promise<void> {
    this.#closed ??= this.#close();
    return this.#closed;
  }

  async #close(): Promise<void> {
    if (this.#running) await new Promise<void>((resolve) => this.#idle.push(resolve));
    try {
      if (this.#journal && !this.#failure && this.#entries > 0)
        await this.#compact().catch((error: unknown) => {
          // The journal keeps every entry: the next start replays them.
          if (!(error instanceof SnapshotPieceError)) throw error;
          this.#options.warn(`store: ${error.message}; the journal keeps every entry`);
        });
    } finally {
      await this.#journal?.close();
      this.#journal = undefined;
      await this.#lock?.release();
    }
  }

  #kick(): void {
    if (this.#running) return;
    this.#running = true;
    void this.#run();
  }

  async #run(): Promise<void> {
    while (this.#queue.length > 0 && !this.#failure) {
      const batch = this.#queue.splice(0);
      try {
        await this.#write(batch);
      } catch (error) {
        this.#fail(error as Error, batch);
        break;
      }
      for (const pending of batch) {
        try {
          pending.onDurable?.();
        } catch (error) {
          this.#options.warn(`store: a commit listener threw: ${(error as Error).message}`);
        }
      }
      for (const pending of batch) pending.resolve();
      if (this.#queue.length === 0 && this.#dueForCompaction()) {
        try {
          await this.#compact();
        } catch (error) {
          if (!(error instanceof SnapshotPieceError)) {
            this.#fail(error as Error, []);
            continue;
          }
          // One environment's data: the others keep serving, the journal keeps every entry,
          // and compaction is tried again once as many entries and bytes have come again.
          this.#options.warn(
            `store: ${error.message}; the journal keeps every entry, compaction will be retried`,
          );
          this.#compactionHeldAt = { entries: this.#entries, bytes: this.#bytes };
        }
      }
    }
    this.#running = false;
    for (const resolve of this.#idle.splice(0)) resolve();
  }

  async #write(batch: Pending[]): Promise<void> {
    const text = batch.length === 1 ? batch[0]!.line : batch.map((p) => p.line).join('');
    if (text.length === 0) return;
    const bytes = Buffer.from(text, 'utf8');
    const journal = this.#journal!;
    let offset = 0;
    while (offset < bytes.length) {
      const { bytesWritten } = await journal.write(bytes, offset, bytes.length - offset);
      offset += bytesWritten;
    }
    await journal.datasync();
    this.#bytes += bytes.length;
    for (const pending of batch) if (pending.line) this.#entries += 1;
  }

  #dueForCompaction(): boolean {
    const held = this.#compactionHeldAt;
    const entries = this.#entries - held.entries;
    const bytes = this.#bytes - held.bytes;
    return (
      this.#memory !== undefined &&
      (entries >= this.#options.compactAfterEntries || bytes >= this.#options.compactAfterBytes)
    );
  }

  /**
   * Runs only when no entry is pending, so the in-memory state is exactly entries 1..seq. The
   * state is written out at once (memory moves on while the file is written), one line per
   * environment: no single string holds the whole state. An environment that cannot be written
   * leaves the snapshot and journal as they were (`SnapshotPieceError`).
   */
  async #compact(): Promise<void> {
    if (!this.#memory) return;
    const lines = snapshotLines(this.#seq, this.#memory.snapshot());
    const target = join(this.#dir, SNAPSHOT);
    const temp = `${target}.tmp`;
    const handle = await open(temp, 'w');
    try {
      for (const line of lines) await handle.write(line, null, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
    await syncDir(this.#dir);
    await this.#journal!.truncate(0);
    await this.#journal!.datasync();
    this.#entries = 0;
    this.#bytes = 0;
    this.#compactionHeldAt = { entries: 0, bytes: 0 };
  }

  #fail(error: Error, batch: Pending[]): void {
    this.#options.warn(`store: write to ${this.#dir} failed: ${error.message}`);
    // Answered `503 UNAVAILABLE` (§4), as a database away is: not a bug of the request. The
    // client is not told the directory; the log above is.
    const what = (error as NodeJS.ErrnoException).code ?? error.name;
    this.#failure = new StorageUnavailableError(
      `store: writing the data directory failed (${what}); this server refuses writes and reads until it is restarted`,
      { cause: error },
    );
    for (const pending of [...batch, ...this.#queue.splice(0)]) pending.reject(this.#failure);
  }
}
