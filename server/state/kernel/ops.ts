/**
 * The operations the store records: what every op shares, and the kernel's own, an
 * environment's life (made, renamed, deleted). Each domain contributes its own kinds and how each
 * changes memory (`domain.ts`); the whole `Op` union is assembled with the domains
 * (`../domains.ts`). Every op carries absolute values, so applying a suffix of the log again
 * onto a state that already holds it changes nothing (`docs/protocol.md` §7, storage).
 */
import { applyRecordedName } from './env-names.js';
import type { Actor, ApiKeyGrant, Environment, MemoryState, Source } from './model.js';

/** What every op is: a kind; an environment's op names the environment's id as `env`. */
export interface BaseOp {
  t: string;
}

export type KernelOp =
  | {
      t: 'env';
      id: string;
      project: string;
      environment: string;
      epoch: string;
      keys: ApiKeyGrant[];
      source?: Source;
      createdAt?: string;
      /** Who made it and when (`audit.ts`): absent on the set-up's own and on ops older than the audit log. */
      by?: Actor;
      at?: string;
    }
  /** Environment `id` of `epoch` is called `project/environment` from now on. Scope `''` (`env-names.ts`). */
  | {
      t: 'env-name';
      id: string;
      epoch: string;
      project: string;
      environment: string;
      by?: Actor;
      at?: string;
    }
  /**
   * Environment `env` is gone, with its flags, segments, webhooks, deliveries, keys and history
   * (its audit records go to the shared list, `audit.ts`).
   */
  | { t: 'env-del'; env: string; by?: Actor; at?: string };

const KERNEL_KINDS: ReadonlySet<string> = new Set<KernelOp['t']>(['env', 'env-name', 'env-del']);

/** Whether `op` is one of the kernel's own. */
export const isKernelOp = (op: BaseOp): op is KernelOp => KERNEL_KINDS.has(op.t);

/**
 * The scope an op belongs to on shared storage: its environment's id, or `''` for what spans
 * environments (projects, renames, the admin token, the stream secret, ended dashboard
 * sessions). One entry is one scope's.
 */
export function scopeOf(op: BaseOp): string {
  if (isKernelOp(op) && op.t === 'env') return op.id;
  return 'env' in op && typeof op.env === 'string' ? op.env : '';
}

/** The environment an op of `id` changes; throws when memory has none. */
export function envOf(db: MemoryState, id: string): Environment {
  const env = db.get(id);
  if (!env) throw new Error(`store: op for unknown environment ${JSON.stringify(id)}`);
  return env;
}

/** Applies one of the kernel's ops to the in-memory state; used both live and when replaying the log. */
export function applyKernelOp(db: MemoryState, op: KernelOp): void {
  switch (op.t) {
    case 'env': {
      const env = db.get(op.id);
      if (env) {
        env.generatedKeys = op.keys;
        if (op.source) env.source = op.source;
        return;
      }
      db.set(op.id, {
        id: op.id,
        project: op.project,
        environment: op.environment,
        epoch: op.epoch,
        revision: 0,
        flags: new Map(),
        segments: new Map(),
        webhooks: new Map(),
        deliveries: new Map(),
        generatedKeys: op.keys,
        source: op.source ?? 'default',
        createdAt: op.createdAt ?? new Date(0).toISOString(),
        apiKeys: [],
        history: [],
      });
      // Renamed before this instance saw it created (the shared scope is read first).
      applyRecordedName(db, db.get(op.id)!);
      return;
    }
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
  }
}
