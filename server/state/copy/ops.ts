/**
 * The copy domain's op: the source's side of a copy of flags (`docs/protocol.md` §10.3), a
 * history entry per flag copied (`copiedTo`), without a revision: nothing changed there. (The
 * target's side is flag and segment ops, marked `copiedFrom`.) Absolute values, like every op:
 * replaying one twice changes nothing.
 */

import { recordHistory } from '../flags/history.js';
import { actorOf } from '../kernel/actors.js';
import { auditRecord, opId } from '../kernel/audit.js';
import type { Domain } from '../kernel/domain.js';
import type { Actor, HistoryEntry } from '../kernel/model.js';

export type CopyOp =
  /** Flags `flags` of environment `env`, at revision `rev`, were copied to `to` (`PROJECT/ENVIRONMENT`). */
  { t: 'copied'; env: string; rev: number; to: string; flags: string[]; at: string; by: Actor };

export const copyDomain: Domain<CopyOp> = {
  kinds: ['copied'],

  apply(db, op) {
    const env = db.get(op.env);
    if (!env || recorded(env.history, op)) return;
    for (const flag of op.flags)
      recordHistory(
        env,
        {
          revision: op.rev,
          at: op.at,
          flag,
          action: 'copied',
          changes: [],
          actor: actorOf(op.by),
          copiedTo: op.to,
        },
        db,
      );
  },

  auditOf(db, op) {
    const env = db.get(op.env);
    if (!env || recorded(env.history, op)) return undefined;
    // One record per flag copied, their ids the op's own (digested once).
    const id = opId(op);
    return op.flags.map((flag, i) =>
      auditRecord(`${id}.${i}`, op.at, op.by, {
        action: 'flag.copied',
        target: { kind: 'flag', key: flag },
        after: { copiedTo: op.to },
      }),
    );
  },
};

/** Whether the history holds this copy already (the op replayed onto a state that has it). */
function recorded(history: readonly HistoryEntry[], op: CopyOp): boolean {
  for (let i = history.length - 1; i >= 0 && history[i]!.revision >= op.rev; i--) {
    const entry = history[i]!;
    if (entry.action === 'copied' && entry.at === op.at && entry.copiedTo === op.to) return true;
  }
  return false;
}
