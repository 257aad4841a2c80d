/**
 * The change requests domain's op (`docs/protocol.md` §10.7) and how it changes memory: a request
 * set whole, as its latest transition left it (absolute values: replaying it twice changes
 * nothing more). What a request applies is flag and segment ops committed in the same entry;
 * this op only records the request's state. An environment keeps every request still under way
 * and the newest `KEPT_CLOSED` closed ones; the domain's part of snapshots: the requests.
 */
import { stampedRecord } from '../kernel/audit.js';
import { checkList, type Domain, type Piece, refill } from '../kernel/domain.js';
import type { Actor, Environment, StoredChangeRequest } from '../kernel/model.js';
import { envOf } from '../kernel/ops.js';

/** What happened to a request: the audit record's action is `changeRequest.<event>`. */
export type ChangeRequestEvent =
  | 'created'
  | 'updated'
  | 'rebased'
  | 'approved'
  | 'rejected'
  | 'scheduled'
  | 'applied'
  | 'failed'
  | 'withdrawn';

export type ChangeOp = {
  t: 'cr';
  env: string;
  cr: StoredChangeRequest;
  event: ChangeRequestEvent;
  by?: Actor;
  at?: string;
};

/** Closed requests (applied, rejected, withdrawn, failed) an environment keeps, the newest changed. */
export const KEPT_CLOSED = 500;

const CLOSED: ReadonlySet<string> = new Set(['applied', 'rejected', 'withdrawn', 'failed']);

/** Whether a request is done with: nothing more happens to it unless its author opens it again. */
export const isClosed = (cr: StoredChangeRequest): boolean => CLOSED.has(cr.state);

/** An environment's requests (made on first use). */
export function requestsOf(env: Environment): Map<string, StoredChangeRequest> {
  if (!env.changeRequests) env.changeRequests = new Map();
  return env.changeRequests;
}

/** An environment's change requests, as a snapshot holds them. */
export interface ChangesSnapshot {
  changeRequests?: StoredChangeRequest[];
}

export const changesDomain: Domain<ChangeOp> = {
  kinds: ['cr'],

  apply(db, op) {
    const requests = requestsOf(envOf(db, op.env));
    // Kept in the order of their last change: the oldest closed one is the first dropped.
    requests.delete(op.cr.id);
    requests.set(op.cr.id, op.cr);
    let closed = 0;
    for (const cr of requests.values()) if (isClosed(cr)) closed++;
    for (const [id, cr] of requests) {
      if (closed <= KEPT_CLOSED) break;
      if (!isClosed(cr)) continue;
      requests.delete(id);
      closed--;
    }
  },

  auditOf: (_db, op) =>
    stampedRecord(op, {
      action: `changeRequest.${op.event}`,
      target: { kind: 'changeRequest', key: op.cr.id },
      after: { title: op.cr.title, state: op.cr.state },
    }),

  capture(db, scope) {
    const env = scope === '' ? undefined : db.get(scope);
    if (!env) return () => {};
    const saved = env.changeRequests && new Map(env.changeRequests);
    return () => {
      if (saved) refill(requestsOf(env), saved);
      else delete env.changeRequests;
    };
  },

  envPart: (env): ChangesSnapshot =>
    env.changeRequests?.size ? { changeRequests: [...env.changeRequests.values()] } : {},

  checkEnvPart(piece) {
    checkList(piece, 'changeRequests', false, 'id');
  },

  envFromPart(env, piece: Piece) {
    const part = piece as ChangesSnapshot;
    if (part.changeRequests?.length)
      env.changeRequests = new Map(part.changeRequests.map((cr) => [cr.id, cr]));
  },
};
