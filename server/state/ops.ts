/**
 * The operations the store records. Every op carries absolute values, so applying a
 * suffix of the log again onto a state that already holds it changes nothing
 * (`docs/protocol.md` §7, storage).
 */
import { applyRecordedName } from './env-names.js';
import { historyEntry, recordHistory, segmentHistoryEntry } from './history.js';
import { applyLifecycleOp, type LifecycleOp } from './lifecycle-ops.js';
import type {
  Actor,
  ApiKeyGrant,
  Environment,
  MemoryState,
  Source,
  StoredApiKey,
  StoredDelivery,
  StoredFlag,
  StoredProject,
  StoredSegment,
  StoredWebhook,
} from './model.js';

/** Changes from before the history recorded actors were made through an API key. */
export const UNKNOWN_ACTOR: Actor = { type: 'api-key', hint: 'unknown' };

export type Op =
  | {
      t: 'env';
      id: string;
      project: string;
      environment: string;
      epoch: string;
      keys: ApiKeyGrant[];
      source?: Source;
      createdAt?: string;
    }
  | { t: 'flag'; env: string; rev: number; flag: StoredFlag; by?: Actor; copiedFrom?: string }
  | { t: 'flag-del'; env: string; rev: number; key: string; at?: string; by?: Actor }
  | { t: 'segment'; env: string; rev: number; segment: StoredSegment; by?: Actor; copiedFrom?: string }
  | { t: 'segment-del'; env: string; rev: number; key: string; at: string; by?: Actor }
  | { t: 'webhook'; env: string; webhook: StoredWebhook }
  | { t: 'webhook-del'; env: string; id: string }
  | { t: 'delivery'; env: string; delivery: StoredDelivery }
  | { t: 'delivery-del'; env: string; id: string }
  | { t: 'project'; project: StoredProject }
  | { t: 'key'; env: string; key: StoredApiKey }
  | { t: 'key-del'; env: string; id: string }
  | { t: 'admin'; token: string }
  | { t: 'stream-secret'; secret: string }
  | LifecycleOp;

/**
 * The scope an op belongs to on shared storage: its environment's id, or `''` for what spans
 * environments (projects, renames, the admin token, the stream secret). One entry is one scope's.
 */
export function scopeOf(op: Op): string {
  if (op.t === 'env') return op.id;
  return 'env' in op ? op.env : '';
}

function envOf(db: MemoryState, id: string): Environment {
  const env = db.get(id);
  if (!env) throw new Error(`store: op for unknown environment ${JSON.stringify(id)}`);
  return env;
}

/** Applies one op to the in-memory state; used both live and when replaying the log. */
export function applyOp(db: MemoryState, op: Op): void {
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
    case 'flag': {
      const env = envOf(db, op.env);
      if (op.rev > env.revision) {
        const entry = historyEntry(
          op.rev,
          op.flag.updatedAt,
          env.flags.get(op.flag.key),
          op.flag,
          op.by ?? UNKNOWN_ACTOR,
        );
        if (op.copiedFrom !== undefined) entry.copiedFrom = op.copiedFrom;
        recordHistory(env, entry, db.historyLimit);
        env.revision = op.rev;
      }
      env.flags.set(op.flag.key, op.flag);
      return;
    }
    case 'flag-del': {
      const env = envOf(db, op.env);
      const before = env.flags.get(op.key);
      if (op.rev > env.revision) {
        if (before) {
          const at = op.at ?? before.updatedAt;
          recordHistory(
            env,
            historyEntry(op.rev, at, before, undefined, op.by ?? UNKNOWN_ACTOR),
            db.historyLimit,
          );
        }
        env.revision = op.rev;
      }
      env.flags.delete(op.key);
      return;
    }
    case 'segment': {
      const env = envOf(db, op.env);
      if (op.rev > env.revision) {
        const before = env.segments.get(op.segment.key);
        const entry = segmentHistoryEntry(
          op.rev,
          op.segment.updatedAt,
          before,
          op.segment,
          op.by ?? UNKNOWN_ACTOR,
        );
        if (op.copiedFrom !== undefined) entry.copiedFrom = op.copiedFrom;
        recordHistory(env, entry, db.historyLimit);
        env.revision = op.rev;
      }
      env.segments.set(op.segment.key, op.segment);
      return;
    }
    case 'segment-del': {
      const env = envOf(db, op.env);
      const before = env.segments.get(op.key);
      if (op.rev > env.revision) {
        if (before)
          recordHistory(
            env,
            segmentHistoryEntry(op.rev, op.at, before, undefined, op.by ?? UNKNOWN_ACTOR),
            db.historyLimit,
          );
        env.revision = op.rev;
      }
      env.segments.delete(op.key);
      return;
    }
    case 'webhook':
      envOf(db, op.env).webhooks.set(op.webhook.id, op.webhook);
      return;
    case 'webhook-del': {
      const env = envOf(db, op.env);
      env.webhooks.delete(op.id);
      for (const [id, delivery] of env.deliveries)
        if (delivery.webhookId === op.id) env.deliveries.delete(id);
      return;
    }
    case 'delivery':
      envOf(db, op.env).deliveries.set(op.delivery.id, op.delivery);
      return;
    case 'delivery-del':
      envOf(db, op.env).deliveries.delete(op.id);
      return;
    case 'project':
      db.projects.set(op.project.key, op.project);
      return;
    case 'key': {
      const env = envOf(db, op.env);
      env.apiKeys = [...env.apiKeys.filter((k) => k.id !== op.key.id), op.key];
      return;
    }
    case 'key-del': {
      const env = envOf(db, op.env);
      env.apiKeys = env.apiKeys.filter((k) => k.id !== op.id);
      return;
    }
    case 'admin':
      db.adminToken = op.token;
      return;
    case 'stream-secret':
      db.streamSecret = op.secret;
      return;
    default:
      applyLifecycleOp(db, op);
  }
}
