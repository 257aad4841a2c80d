/**
 * Ending dashboard sessions (`docs/protocol.md` §10.2): a sign-out commits a `session-end` op
 * (`sessions.ts`) through the one write protocol, and every instance's listeners hear of it once
 * it is durable.
 */
import type { Ledger } from '../kernel/ledger.js';
import type { MemoryState } from '../kernel/model.js';
import type { BaseOp } from '../kernel/ops.js';
import { isSessionEnded, liveCount, MAX_ENDED_SESSIONS, type SessionOp } from './sessions.js';

/** Told of every session ended, by any instance: its id, and the cut-off when there is one. */
export type SessionEndListener = (id: string, endedBefore: number | undefined) => void;

/** Ends sessions, through the same journal (or database) as every other write. */
export class SessionService {
  readonly #db: MemoryState;
  readonly #ledger: Ledger<SessionOp>;
  readonly #listeners: SessionEndListener[] = [];

  constructor(db: MemoryState, ledger: Ledger<SessionOp>) {
    this.#db = db;
    this.#ledger = ledger;
  }

  /** Calls `listener` with every session ended once that is durable, whichever instance ended it. */
  onEnded(listener: SessionEndListener): void {
    this.#listeners.push(listener);
  }

  /** Follows every committed op (`Applier.onCommitted`). */
  readonly committed = (committed: BaseOp): void => {
    if (committed.t !== 'session-end') return;
    const op = committed as SessionOp;
    for (const listener of this.#listeners) listener(op.id, op.endedBefore);
  };

  /** Whether session `id`, expiring at `until`, was ended, as memory holds it now. */
  isEnded(id: string, until: number): boolean {
    return isSessionEnded(this.#db, id, until);
  }

  /**
   * `read` against memory that holds every sign-out committed so far, by any instance (a
   * settled read of scope `''`): on a shared database, a session ended through another
   * instance a moment ago is ended here too.
   */
  settled<T>(read: () => T): Promise<T> {
    return this.#ledger.readSettled('', read);
  }

  /**
   * Ends session `id`, which expires at `until`; resolves once that is durable. `longest` is
   * the expiry a session made now would have: past `MAX_ENDED_SESSIONS`, every session expiring
   * before it is ended at once.
   */
  async end(id: string, until: number, longest: number): Promise<void> {
    await this.#ledger.commit('', () => {
      if (this.isEnded(id, until)) return [];
      const op: SessionOp = { t: 'session-end', id, until };
      if (liveCount(this.#db.endedSessions) >= MAX_ENDED_SESSIONS) op.endedBefore = longest;
      return [op];
    });
  }
}
