/**
 * The one way memory changes (`docs/architecture.md`, "One write protocol"). Every store hands
 * each committed entry, this instance's or another instance's, to `apply`, in commit order per
 * scope. It applies the ops, builds the flag changes they make (`flagCommitOf`, the one place a
 * `FlagCommit` is made), and answers the function that publishes them, and then every op, to the
 * listeners: the store calls it once the entry is durable.
 */
import type { Memory } from '../store/storage.js';
import type { Environment, FlagCommit, MemoryState, StoredFlag, StoredSegment } from './model.js';
import { applyOp, type Op, scopeOf, UNKNOWN_ACTOR } from './ops.js';
import { captureScope, snapshotOf } from './snapshot.js';

type FlagOp = Extract<Op, { t: 'flag' | 'flag-del' }>;

/** The change a flag op makes to `env`, whose flag was `before`. */
export function flagCommitOf(env: Environment, op: FlagOp, before: StoredFlag | null): FlagCommit {
  return {
    env,
    revision: op.rev,
    before,
    after: op.t === 'flag' ? op.flag : null,
    at: op.t === 'flag' ? op.flag.updatedAt : (op.at ?? before?.updatedAt ?? new Date(0).toISOString()),
    actor: op.by ?? UNKNOWN_ACTOR,
  };
}

type SegmentOp = Extract<Op, { t: 'segment' | 'segment-del' }>;

/** The change a segment op makes to `env`, whose segment was `before`: a commit of no flag. */
export function segmentCommitOf(env: Environment, op: SegmentOp, before: StoredSegment | null): FlagCommit {
  const after = op.t === 'segment' ? op.segment : null;
  const at = op.t === 'segment' ? op.segment.updatedAt : op.at;
  const actor = op.by ?? UNKNOWN_ACTOR;
  return { env, revision: op.rev, before: null, after: null, at, actor, segment: { before, after } };
}

export class Applier implements Memory<Op> {
  readonly #state: MemoryState;
  readonly #onListenerError: (error: unknown) => void;
  readonly #changeListeners: Array<(change: FlagCommit) => void> = [];
  readonly #opListeners: Array<(op: Op) => void> = [];

  constructor(state: MemoryState, onListenerError: (error: unknown) => void) {
    this.#state = state;
    this.#onListenerError = onListenerError;
  }

  /** Calls `listener` with every committed flag change, in commit order, once durable. */
  onChange(listener: (change: FlagCommit) => void): void {
    this.#changeListeners.push(listener);
  }

  /**
   * Calls `listener` with every committed op, after the entry's flag changes: how the key ring
   * learns of keys and environments, and webhook delivery of pending deliveries, whichever
   * instance committed them.
   */
  onCommitted(listener: (op: Op) => void): void {
    this.#opListeners.push(listener);
  }

  apply(ops: readonly Op[]): () => void {
    const changes: FlagCommit[] = [];
    // Usage counts reach memory once durable, when the entry is published: a group commit that
    // fails (`capture`) then has no counts to take back, and nothing reads usage before it is
    // durable (`docs/protocol.md` §13.3; a retry of a report still being committed is held by the
    // usage service). A mark (§13.7) is a write like a flag's: in memory at once, so the next
    // mark's plan sees it, and put back by `capture` should its commit fail.
    const usage: Op[] = [];
    for (const op of ops) {
      // An environment not restored at start-up (`damaged.ts`): its entries stay in the store only.
      if (this.#state.damaged.has(scopeOf(op))) continue;
      if (op.t === 'usage') {
        usage.push(op);
        continue;
      }
      if (op.t === 'flag' || op.t === 'flag-del') {
        const env = this.#state.get(op.env);
        // An op memory already holds (replayed after a snapshot) changes nothing new.
        if (env && op.rev > env.revision)
          changes.push(flagCommitOf(env, op, env.flags.get(op.t === 'flag' ? op.flag.key : op.key) ?? null));
      } else if (op.t === 'segment' || op.t === 'segment-del') {
        const env = this.#state.get(op.env);
        if (env && op.rev > env.revision) {
          const before = env.segments.get(op.t === 'segment' ? op.segment.key : op.key) ?? null;
          changes.push(segmentCommitOf(env, op, before));
        }
      }
      applyOp(this.#state, op);
    }
    return () => {
      for (const op of usage) applyOp(this.#state, op);
      for (const change of changes) this.#tell(this.#changeListeners, change);
      for (const op of ops) if (!this.#state.damaged.has(scopeOf(op))) this.#tell(this.#opListeners, op);
    };
  }

  capture(scope: string): () => void {
    const restore = captureScope(this.#state, scope);
    // The scope's stale marks too (they reach memory at once, above); its counts wait for publishing.
    const env = scope === '' ? undefined : this.#state.get(scope);
    const marks = new Map(env?.usage?.marks);
    return () => {
      restore();
      const usage = env?.usage;
      if (!usage) return;
      usage.marks.clear();
      for (const [key, mark] of marks) usage.marks.set(key, mark);
    };
  }

  snapshot(scope?: string): unknown {
    return snapshotOf(this.#state, scope);
  }

  #tell<T>(listeners: ReadonlyArray<(value: T) => void>, value: T): void {
    for (const listener of listeners) {
      try {
        listener(value);
      } catch (error) {
        this.#onListenerError(error);
      }
    }
  }
}
