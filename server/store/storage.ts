/**
 * The storage seam: an append-only journal of committed entries plus snapshots.
 * The server keeps its state in memory and asks the storage only to make each
 * entry durable, so a networked store can replace the file store behind this
 * interface without touching the handlers.
 */
import type { Op, SnapshotData } from '../state/ops.js';

/** What the storage held when it was opened: the last snapshot and every entry after it. */
export interface LoadedState {
  snapshot: SnapshotData | null;
  entries: Op[][];
}

export interface Storage {
  /** Reads the durable state. Called once, before any `append`. */
  load(): Promise<LoadedState>;
  /**
   * Records one entry (ops that commit together, atomically). Resolves once the
   * entry is durable. `onDurable` runs first, in append order, so whatever
   * publishes a change sees changes in commit order.
   */
  append(ops: readonly Op[], onDurable?: () => void): Promise<void>;
  /** Resolves once every entry appended so far is durable. */
  barrier(): Promise<void>;
  /** Gives the storage a way to read the whole current state, for compaction. */
  setSnapshotSource(source: () => SnapshotData): void;
  /** Flushes what is pending, compacts, and releases files. Idempotent. */
  close(): Promise<void>;
}
