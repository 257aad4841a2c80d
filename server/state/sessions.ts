/**
 * Dashboard sessions ended on the server (`docs/protocol.md` §10.2). A session cookie is signed
 * and carries its own random id and expiry; signing out commits a `session-end` op (scope `''`,
 * like the admin token), so the end is durable before it is answered, survives a restart, and
 * reaches every instance on a shared database. An ended id is kept only until the session's own
 * expiry (after that the cookie is refused anyway) and at most `MAX_ENDED_SESSIONS` at once: past
 * that, the sign-out that would add one more ends every session open then instead (their
 * expiries are earlier than `endedBefore`), and the list starts again.
 */
import type { MemoryState } from './model.js';
import type { Op } from './ops.js';
import type { FlagService } from './service.js';

/** Ended sessions kept before one more sign-out ends every session open at that moment. */
export const MAX_ENDED_SESSIONS = 10_000;

/**
 * Session `id`, expiring at `until` (epoch seconds), ended. With `endedBefore` (epoch seconds),
 * every session expiring before it is ended too, and the ids kept for them are dropped.
 */
export type SessionOp = { t: 'session-end'; id: string; until: number; endedBefore?: number };

/** What memory keeps of ended sessions (in `MemoryState`, with what spans environments). */
export interface EndedSessions {
  /** Ended session ids, with their expiry (epoch seconds). */
  ids: Map<string, number>;
  /** Every session expiring before this (epoch seconds) is ended; 0 when none. */
  endedBefore: number;
}

export const nowSeconds = (nowMs = Date.now()): number => Math.floor(nowMs / 1000);

/** Drops what no longer matters: ids of expired sessions, and a cut-off every open session is past. */
export function pruneEndedSessions(ended: EndedSessions, now = nowSeconds()): void {
  for (const [id, until] of ended.ids) if (until <= now) ended.ids.delete(id);
  if (ended.endedBefore <= now) ended.endedBefore = 0;
}

/** Ended ids whose session has not expired yet. */
function liveCount(ended: EndedSessions, now = nowSeconds()): number {
  let count = 0;
  for (const until of ended.ids.values()) if (until > now) count++;
  return count;
}

/** Applies a `session-end` op; replaying it again changes nothing. */
export function applySessionOp(db: MemoryState, op: SessionOp, now = nowSeconds()): void {
  const ended = db.endedSessions;
  if (op.endedBefore !== undefined && op.endedBefore > ended.endedBefore) {
    ended.endedBefore = op.endedBefore;
    for (const [id, until] of ended.ids) if (until < op.endedBefore) ended.ids.delete(id);
  }
  if (op.until > now && op.until >= ended.endedBefore) ended.ids.set(op.id, op.until);
  pruneEndedSessions(ended, now);
}

/** Whether session `id`, expiring at `until` (epoch seconds), was ended. */
export function isSessionEnded(db: MemoryState, id: string, until: number): boolean {
  const ended = db.endedSessions;
  return until < ended.endedBefore || ended.ids.has(id);
}

/** Told of every session ended, by any instance: its id, and the cut-off when there is one. */
export type SessionEndListener = (id: string, endedBefore: number | undefined) => void;

/** Ends sessions, through the same journal (or database) as every other write. */
export class SessionService {
  readonly #db: MemoryState;
  readonly #flags: Pick<FlagService, 'commit' | 'readSettled'>;
  readonly #listeners: SessionEndListener[] = [];

  constructor(db: MemoryState, flags: Pick<FlagService, 'commit' | 'readSettled'>) {
    this.#db = db;
    this.#flags = flags;
  }

  /** Calls `listener` with every session ended once that is durable, whichever instance ended it. */
  onEnded(listener: SessionEndListener): void {
    this.#listeners.push(listener);
  }

  /** Follows every committed op (`Applier.onCommitted`). */
  readonly committed = (op: Op): void => {
    if (op.t !== 'session-end') return;
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
    return this.#flags.readSettled('', read);
  }

  /**
   * Ends session `id`, which expires at `until`; resolves once that is durable. `longest` is
   * the expiry a session made now would have: past `MAX_ENDED_SESSIONS`, every session expiring
   * before it is ended at once.
   */
  async end(id: string, until: number, longest: number): Promise<void> {
    await this.#flags.commit('', () => {
      if (this.isEnded(id, until)) return [];
      const op: SessionOp = { t: 'session-end', id, until };
      if (liveCount(this.#db.endedSessions) >= MAX_ENDED_SESSIONS) op.endedBefore = longest;
      return [op];
    });
  }
}
