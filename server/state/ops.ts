/**
 * The operations the store records. Every op carries absolute values, so applying a
 * suffix of the log again onto a state that already holds it changes nothing
 * (`docs/protocol.md` §7, storage).
 */
import { ApiError } from '../errors.js';
import { applyRecordedName } from './env-names.js';
import { historyEntry, recordHistory, segmentHistoryEntry } from './history.js';
import { applyLifecycleOp, type LifecycleOp } from './lifecycle-ops.js';
import type {
  Actor,
  ApiKeyGrant,
  Environment,
  HistoryEntry,
  MemoryState,
  Source,
  StoredApiKey,
  StoredDelivery,
  StoredFlag,
  StoredProject,
  StoredSegment,
  StoredWebhook,
} from './model.js';
import { applySessionOp, type SessionOp } from './sessions.js';
import type { UsageOp } from './usage-model.js';
import { applyUsageOp } from './usage-state.js';

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
  | SessionOp
  | LifecycleOp
  | UsageOp;

/**
 * The scope an op belongs to on shared storage: its environment's id, or `''` for what spans
 * environments (projects, renames, the admin token, the stream secret, ended dashboard
 * sessions). One entry is one scope's.
 */
export function scopeOf(op: Op): string {
  if (op.t === 'env') return op.id;
  return 'env' in op ? op.env : '';
}

/**
 * `ops`, unless one is for an environment no longer in memory (deleted while a request or a
 * delivery was under way): then 404, and nothing is written to the scope after its deletion.
 */
export function refuseDeleted(db: MemoryState, ops: Op[]): Op[] {
  for (const op of ops)
    if ('env' in op && !db.has(op.env))
      throw new ApiError(404, 'NOT_FOUND', 'environment not found: it was deleted');
  return ops;
}

function envOf(db: MemoryState, id: string): Environment {
  const env = db.get(id);
  if (!env) throw new Error(`store: op for unknown environment ${JSON.stringify(id)}`);
  return env;
}

/** What a flag or segment op says about its change: revision, when (deletions), who, copied from where. */
interface Revisioned {
  env: string;
  rev: number;
  at?: string;
  by?: Actor;
  copiedFrom?: string;
}

/**
 * A flag or segment set (`after`) or deleted: recorded in the history, and the environment's
 * revision moved, only when the op is newer than the environment (a replayed suffix of the log
 * changes nothing); the item itself is always set as the op says (ops carry absolute values).
 */
function change<T extends { updatedAt: string }>(
  db: MemoryState,
  op: Revisioned,
  items: (env: Environment) => Map<string, T>,
  key: string,
  after: T | undefined,
  entryOf: (
    revision: number,
    at: string,
    before: T | undefined,
    after: T | undefined,
    actor: Actor,
  ) => HistoryEntry,
): void {
  const env = envOf(db, op.env);
  const map = items(env);
  const before = map.get(key);
  if (op.rev > env.revision) {
    if (before || after) {
      const at = after?.updatedAt ?? op.at ?? before!.updatedAt;
      const entry = entryOf(op.rev, at, before, after, op.by ?? UNKNOWN_ACTOR);
      if (op.copiedFrom !== undefined) entry.copiedFrom = op.copiedFrom;
      recordHistory(env, entry, db);
    }
    env.revision = op.rev;
  }
  if (after) map.set(key, after);
  else map.delete(key);
}

/** The environment's flags and segments, as `change` takes them. */
const flags = (env: Environment) => env.flags;
const segments = (env: Environment) => env.segments;

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
    case 'flag':
      change(db, op, flags, op.flag.key, op.flag, historyEntry);
      return;
    case 'flag-del':
      change(db, op, flags, op.key, undefined, historyEntry);
      return;
    case 'segment':
      change(db, op, segments, op.segment.key, op.segment, segmentHistoryEntry);
      return;
    case 'segment-del':
      change(db, op, segments, op.key, undefined, segmentHistoryEntry);
      return;
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
    case 'session-end':
      applySessionOp(db, op);
      return;
    case 'usage':
    case 'usage-mark':
      applyUsageOp(db, op);
      return;
    default:
      applyLifecycleOp(db, op);
  }
}
