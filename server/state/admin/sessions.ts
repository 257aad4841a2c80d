/**
 * Dashboard sessions ended on the server (`docs/protocol.md` §10.2). A session cookie is signed
 * and carries its own random id and expiry; signing out commits a `session-end` op (scope `''`,
 * like the admin token), so the end is durable before it is answered, survives a restart, and
 * reaches every instance on a shared database. An ended id is kept only until the session's own
 * expiry (after that the cookie is refused anyway) and at most `MAX_ENDED_SESSIONS` at once: past
 * that, the sign-out that would add one more ends every session open then instead (their
 * expiries are earlier than `endedBefore`), and the list starts again. This file holds the op and
 * what it does to memory; `session-service.ts` ends sessions and tells who listens.
 */
import type { EndedSessions, MemoryState } from '../kernel/model.js';

/** Ended sessions kept before one more sign-out ends every session open at that moment. */
export const MAX_ENDED_SESSIONS = 10_000;

/**
 * Session `id`, expiring at `until` (epoch seconds), ended. With `endedBefore` (epoch seconds),
 * every session expiring before it is ended too, and the ids kept for them are dropped.
 */
export type SessionOp = { t: 'session-end'; id: string; until: number; endedBefore?: number };

export const nowSeconds = (nowMs = Date.now()): number => Math.floor(nowMs / 1000);

/** Drops what no longer matters: ids of expired sessions, and a cut-off every open session is past. */
export function pruneEndedSessions(ended: EndedSessions, now = nowSeconds()): void {
  for (const [id, until] of ended.ids) if (until <= now) ended.ids.delete(id);
  if (ended.endedBefore <= now) ended.endedBefore = 0;
}

/** Ended ids whose session has not expired yet. */
export function liveCount(ended: EndedSessions, now = nowSeconds()): number {
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
