/**
 * The storage seam: an append-only journal of committed entries plus snapshots.
 * The server keeps its state in memory and asks the storage only to make each
 * entry durable, so a networked store can replace the file store behind this
 * interface without touching the handlers.
 */
import type { Op, ScopeSnapshot, SnapshotData } from '../state/ops.js';

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

/**
 * A storage that several server instances share (Postgres, `docs/scaling.md`). Memory is no
 * longer the first copy of a write: a write runs its `plan` inside a database transaction that
 * holds the scope's lock, against a state caught up with every instance's commits, and every
 * committed entry, this instance's or another's, reaches memory through the applier, once and
 * in commit order per scope.
 */
export interface SharedStorage extends Storage {
  readonly shared: true;
  /** What the log line says after `storage:`, e.g. `postgres (HOST:PORT/DB)`; never a password. */
  readonly description: string;
  /** Sets how entries reach memory; catching up starts then. */
  setApplier(applier: Applier): void;
  /**
   * Commits what `plan` returns as one entry of `scope` (an environment id, or `''` for what
   * spans them), with `plan` run under the scope's lock after catching up; an empty plan
   * commits nothing. Rejects with what `plan` throws, or `UNAVAILABLE` when the database is.
   */
  transact(scope: string, plan: () => Op[]): Promise<void>;
  /** Resolves once memory holds every entry committed to `scope` so far. */
  sync(scope: string): Promise<void>;
  /**
   * Claims a webhook delivery for one attempt, for `leaseMs`, unless another instance holds it
   * or it is no longer pending: answers when the claim could next be tried, or `0` when claimed.
   */
  claim(deliveryId: string, leaseMs: number): Promise<number>;
  /** Gives a claim back after its attempt was recorded. */
  release(deliveryId: string): Promise<void>;
}

/** How a shared storage changes memory. */
export interface Applier {
  /** Applies one entry to memory; answers the function that publishes what it changed. */
  apply(ops: Op[]): () => void;
  /** Remembers one scope's state; answers the function that puts it back. */
  capture(scope: string): () => void;
  /** The scope's state as a snapshot part (`scopeSnapshot`), for compaction. */
  snapshot(scope: string): ScopeSnapshot | undefined;
}

export function isShared(storage: Storage): storage is SharedStorage {
  return (storage as Partial<SharedStorage>).shared === true;
}
