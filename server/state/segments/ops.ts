/**
 * The segments domain's ops (`segment`, `segment-del`) and how each changes memory: a segment
 * change is an environment change like a flag's (`docs/protocol.md` §12.3), so it takes the
 * next revision and goes in the history as `segment:<key>` (the flags domain's `applyChange`),
 * and publishes a change of no flag (`segmentCommitOf`). The domain's part of snapshots: the
 * segments.
 */

import { segmentHistoryEntry } from '../flags/history.js';
import { applyChange, changeAudit, type FlagCommit } from '../flags/ops.js';
import { actorOf } from '../kernel/actors.js';
import { checkList, type Domain, type Piece, refill } from '../kernel/domain.js';
import type { Actor, ChangeRequestRef, Environment, StoredSegment } from '../kernel/model.js';

export type SegmentOp =
  | {
      t: 'segment';
      env: string;
      rev: number;
      segment: StoredSegment;
      by?: Actor;
      copiedFrom?: string;
      changeRequest?: ChangeRequestRef;
    }
  | {
      t: 'segment-del';
      env: string;
      rev: number;
      key: string;
      at: string;
      by?: Actor;
      changeRequest?: ChangeRequestRef;
    };

/** The change a segment op makes to `env`, whose segment was `before`: a commit of no flag. */
export function segmentCommitOf(env: Environment, op: SegmentOp, before: StoredSegment | null): FlagCommit {
  const after = op.t === 'segment' ? op.segment : null;
  const at = op.t === 'segment' ? op.segment.updatedAt : op.at;
  const actor = actorOf(op.by);
  return { env, revision: op.rev, before: null, after: null, at, actor, segment: { before, after } };
}

/** The environment's segments, as `applyChange` takes them. */
const segments = (env: Environment) => env.segments;

/** An environment's segments, as a snapshot holds them. */
export interface SegmentsSnapshot {
  segments?: StoredSegment[];
}

export const segmentsDomain: Domain<SegmentOp, FlagCommit> = {
  kinds: ['segment', 'segment-del'],

  apply(db, op) {
    if (op.t === 'segment') applyChange(db, op, segments, op.segment.key, op.segment, segmentHistoryEntry);
    else applyChange(db, op, segments, op.key, undefined, segmentHistoryEntry);
  },

  auditOf(db, op) {
    return op.t === 'segment'
      ? changeAudit(db, op, 'segment', segments, op.segment.key, op.segment, segmentHistoryEntry)
      : changeAudit(db, op, 'segment', segments, op.key, undefined, segmentHistoryEntry);
  },

  changeOf(db, op) {
    const env = db.get(op.env);
    // An op memory already holds (replayed after a snapshot) changes nothing new.
    if (!env || op.rev <= env.revision) return undefined;
    const before = env.segments.get(op.t === 'segment' ? op.segment.key : op.key) ?? null;
    return segmentCommitOf(env, op, before);
  },

  capture(db, scope) {
    const env = scope === '' ? undefined : db.get(scope);
    if (!env) return () => {};
    const saved = new Map(env.segments);
    return () => refill(env.segments, saved);
  },

  envPart: (env): SegmentsSnapshot => ({ segments: [...env.segments.values()] }),

  checkEnvPart(piece) {
    checkList(piece, 'segments', false, 'key');
  },

  envFromPart(env, piece: Piece) {
    const part = piece as unknown as SegmentsSnapshot;
    env.segments = new Map((part.segments ?? []).map((s) => [s.key, s]));
  },
};
