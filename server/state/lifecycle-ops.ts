/**
 * The ops of an environment's lifecycle (`docs/protocol.md` §10.3) and how each changes memory:
 * a rename (scope `''`, `env-names.ts`), a deletion (the environment's own scope, its last
 * entry), a project's deletion, and the source's side of a copy of flags (a history entry per
 * flag, no revision). Absolute values, like every op: replaying one twice changes nothing.
 */
import { recordHistory } from './history.js';
import type { Actor, HistoryEntry, MemoryState } from './model.js';

export type LifecycleOp =
  /** Environment `id` of `epoch` is called `project/environment` from now on. Scope `''`. */
  | { t: 'env-name'; id: string; epoch: string; project: string; environment: string }
  /** Environment `env` is gone, with its flags, segments, webhooks, deliveries, keys and history. */
  | { t: 'env-del'; env: string }
  /** The dashboard's record of project `key` is gone. Scope `''`. */
  | { t: 'project-del'; key: string }
  /** Flags `flags` of environment `env`, at revision `rev`, were copied to `to` (`PROJECT/ENVIRONMENT`). */
  | { t: 'copied'; env: string; rev: number; to: string; flags: string[]; at: string; by: Actor };

export function applyLifecycleOp(db: MemoryState, op: LifecycleOp): void {
  switch (op.t) {
    case 'env-name': {
      const { id, epoch, project, environment } = op;
      db.names.set(id, { epoch, project, environment });
      const env = db.get(id);
      if (env?.epoch === epoch) {
        env.project = project;
        env.environment = environment;
      }
      return;
    }
    case 'env-del': {
      const env = db.get(op.env);
      if (!env) return;
      db.delete(op.env);
      // Whoever still holds the object (a request under way, a delivery's timer) finds nothing.
      env.flags.clear();
      env.segments.clear();
      env.webhooks.clear();
      env.deliveries.clear();
      env.generatedKeys = [];
      env.apiKeys = [];
      env.history = [];
      return;
    }
    case 'project-del':
      db.projects.delete(op.key);
      return;
    case 'copied': {
      const env = db.get(op.env);
      if (!env || recorded(env.history, op)) return;
      for (const flag of op.flags)
        recordHistory(
          env,
          { revision: op.rev, at: op.at, flag, action: 'copied', changes: [], actor: op.by, copiedTo: op.to },
          db,
        );
      return;
    }
  }
}

/** Whether the history holds this copy already (the op replayed onto a state that has it). */
function recorded(history: readonly HistoryEntry[], op: Extract<LifecycleOp, { t: 'copied' }>): boolean {
  for (let i = history.length - 1; i >= 0 && history[i]!.revision >= op.rev; i--) {
    const entry = history[i]!;
    if (entry.action === 'copied' && entry.at === op.at && entry.copiedTo === op.to) return true;
  }
  return false;
}
