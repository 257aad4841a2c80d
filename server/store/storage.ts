/**
 * The storage seam: one write protocol for every store (`docs/architecture.md`, "One write
 * protocol"). The server answers from memory; a storage makes what memory holds durable and,
 * where several instances share it, brings what the others commit. Memory changes only through
 * the `Memory` the storage is attached to, one committed entry at a time, in commit order per
 * scope, whichever store this is.
 *
 * A storage never looks inside an op or a snapshot: both are JSON values of the state layer,
 * which names their type (`Op`).
 */

/** What the storage held when it was opened: snapshots, then every entry after them, in order. */
export interface LoadedState<Op> {
  /** Snapshots as `Memory.snapshot` gave them: of the whole state (`scope: undefined`) or of one scope. */
  snapshots: Array<{ scope: string | undefined; data: unknown }>;
  entries: Op[][];
}

/** How a storage reaches memory. */
export interface Memory<Op> {
  /**
   * Applies one entry to memory and answers the function that publishes what it changed. The
   * storage calls that function once the entry is durable, in commit order.
   */
  apply(ops: readonly Op[]): () => void;
  /** Remembers one scope's state; answers the function that puts it back (a group commit that failed). */
  capture(scope: string): () => void;
  /** The whole state (no `scope`) or one scope's, as a JSON value, for compaction. */
  snapshot(scope?: string): unknown;
}

export interface Storage<Op> {
  /** Where the data is kept, for the start-up log: never a password. */
  readonly description: string;
  /** Reads the durable state. Called once, before `attach`. */
  load(): Promise<LoadedState<Op>>;
  /** Attaches memory, built from what `load` answered; entries reach it only through `memory.apply` from now on. */
  attach(memory: Memory<Op>): void;
  /**
   * Commits what `plan` answers as one entry of `scope` (an environment's id, or `''` for what
   * spans environments). `plan` runs under the scope's lock, against memory that holds every
   * entry committed to the scope, and the writes grouped before it in the same commit; `[]`
   * commits nothing, a throw refuses. Resolves once the entry is durable, in memory and
   * published; rejects with what `plan` throws, `StorageUnavailableError`, or, once `close()` was
   * called, `StorageClosedError` (the plan does not run).
   */
  commit(scope: string, plan: () => Op[]): Promise<void>;
  /**
   * A settled read: runs `read` against memory holding every entry committed to `scope` (`null`:
   * memory as it stands, which follows other instances' commits as they are announced), and
   * answers once everything it could see is durable, so no one is answered what a crash or a
   * failed commit could take back.
   */
  readSettled<T>(scope: string | null, read: () => T): Promise<T>;
  /**
   * Takes the lease `name` for `ms` unless another instance holds it (its holder renews it):
   * answers `0` when taken, else the epoch milliseconds when to try again. A storage of one
   * instance always grants it.
   */
  lease(name: string, ms: number): Promise<number>;
  /** Gives a lease back. */
  unlease(name: string): Promise<void>;
  /** Flushes what is pending, compacts, and releases files and connections. Idempotent. */
  close(): Promise<void>;
}
