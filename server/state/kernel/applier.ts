/**
 * The one way memory changes (`docs/architecture.md`, "One write protocol"). Every store hands
 * each committed entry, this instance's or another instance's, to `apply`, in commit order per
 * scope. It applies the ops (each by its domain, `domain.ts`), builds the changes they make
 * (`Domain.changeOf`: the flag changes, `FlagCommit`, of the flags and segments domains), and
 * answers the function that publishes them, and then every op, to the listeners: the store calls
 * it once the entry is durable. The server's applier is this one with every domain
 * (`../domains.ts`).
 */
import type { Memory } from '../../store/storage.js';
import type { Domains } from './domain.js';
import type { MemoryState } from './model.js';
import { type BaseOp, scopeOf } from './ops.js';
import { captureScope, snapshotOf } from './snapshot.js';

export class Applier<O extends BaseOp, C> implements Memory<O> {
  readonly #domains: Domains<O, C>;
  readonly #state: MemoryState;
  readonly #onListenerError: (error: unknown) => void;
  readonly #changeListeners: Array<(change: C) => void> = [];
  readonly #opListeners: Array<(op: O) => void> = [];

  constructor(domains: Domains<O, C>, state: MemoryState, onListenerError: (error: unknown) => void) {
    this.#domains = domains;
    this.#state = state;
    this.#onListenerError = onListenerError;
  }

  /** Calls `listener` with every committed change (a flag's or a segment's), in commit order, once durable. */
  onChange(listener: (change: C) => void): void {
    this.#changeListeners.push(listener);
  }

  /**
   * Calls `listener` with every committed op, after the entry's changes: how the key ring
   * learns of keys and environments, and webhook delivery of pending deliveries, whichever
   * instance committed them.
   */
  onCommitted(listener: (op: O) => void): void {
    this.#opListeners.push(listener);
  }

  apply(ops: readonly O[]): () => void {
    const changes: C[] = [];
    // An op of a domain that says so (`Domain.whenDurable`: usage counts) reaches memory once
    // durable, when the entry is published; every other op at once, so the next plan sees it,
    // and put back by `capture` should its commit fail.
    const late: O[] = [];
    for (const op of ops) {
      // An environment not restored at start-up (`damaged.ts`): its entries stay in the store only.
      if (this.#state.damaged.has(scopeOf(op))) continue;
      if (this.#domains.whenDurable(op)) {
        late.push(op);
        continue;
      }
      // Read before the op is applied; an op memory already holds (replayed after a snapshot) changes nothing new.
      const change = this.#domains.changeOf(this.#state, op);
      if (change !== undefined) changes.push(change);
      this.#domains.apply(this.#state, op);
    }
    return () => {
      for (const op of late) this.#domains.apply(this.#state, op);
      for (const change of changes) this.#tell(this.#changeListeners, change);
      for (const op of ops) if (!this.#state.damaged.has(scopeOf(op))) this.#tell(this.#opListeners, op);
    };
  }

  capture(scope: string): () => void {
    return captureScope(this.#domains, this.#state, scope);
  }

  snapshot(scope?: string): unknown {
    return snapshotOf(this.#domains, this.#state, scope);
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
