/**
 * The operations the store records. Every op carries absolute values, so applying a
 * suffix of the log again onto a state that already holds it changes nothing
 * (`docs/protocol.md` §7, storage).
 */
import { historyEntry, recordHistory } from './history.js';
import {
  type Actor,
  type ApiKeyGrant,
  Database,
  type Environment,
  type HistoryEntry,
  type Source,
  type StoredApiKey,
  type StoredDelivery,
  type StoredFlag,
  type StoredProject,
  type StoredWebhook,
} from './model.js';

export { Database };

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
  | { t: 'flag'; env: string; rev: number; flag: StoredFlag; by?: Actor }
  | { t: 'flag-del'; env: string; rev: number; key: string; at?: string; by?: Actor }
  | { t: 'webhook'; env: string; webhook: StoredWebhook }
  | { t: 'webhook-del'; env: string; id: string }
  | { t: 'delivery'; env: string; delivery: StoredDelivery }
  | { t: 'delivery-del'; env: string; id: string }
  | { t: 'project'; project: StoredProject }
  | { t: 'key'; env: string; key: StoredApiKey }
  | { t: 'key-del'; env: string; id: string }
  | { t: 'admin'; token: string }
  | { t: 'stream-secret'; secret: string };

/**
 * The scope an op belongs to on shared storage: its environment's id, or `''` for what spans
 * environments (projects, the admin token, the stream secret). One entry is one scope's.
 */
export function scopeOf(op: Op): string {
  if (op.t === 'env') return op.id;
  return 'env' in op ? op.env : '';
}

/**
 * Remembers the state of one scope (`scopeOf`) and answers a function that puts it back: for a
 * shared storage that applies a batch of writes to memory before it knows they committed.
 * Copies the scope's maps and arrays, so it costs what the environment holds.
 */
export function captureScope(db: Database, scope: string): () => void {
  if (scope === '') {
    const projects = new Map(db.projects);
    const { adminToken, streamSecret } = db;
    return () => {
      db.projects.clear();
      for (const [key, project] of projects) db.projects.set(key, project);
      db.adminToken = adminToken;
      db.streamSecret = streamSecret;
    };
  }
  const env = db.get(scope);
  if (!env) return () => db.delete(scope);
  const saved = {
    revision: env.revision,
    flags: new Map(env.flags),
    webhooks: new Map(env.webhooks),
    deliveries: new Map(env.deliveries),
    generatedKeys: env.generatedKeys,
    source: env.source,
    apiKeys: env.apiKeys,
    history: env.history.slice(),
  };
  // Put back into the same maps and array: whatever holds them keeps seeing the environment.
  const refill = <K, V>(map: Map<K, V>, from: Map<K, V>) => {
    map.clear();
    for (const [key, value] of from) map.set(key, value);
  };
  return () => {
    env.revision = saved.revision;
    refill(env.flags, saved.flags);
    refill(env.webhooks, saved.webhooks);
    refill(env.deliveries, saved.deliveries);
    env.generatedKeys = saved.generatedKeys;
    env.source = saved.source;
    env.apiKeys = saved.apiKeys;
    env.history.length = 0;
    for (const entry of saved.history) env.history.push(entry);
  };
}

/** JSON form of the whole state, written by compaction. */
export interface SnapshotData {
  envs: Array<{
    id: string;
    project: string;
    environment: string;
    epoch: string;
    revision: number;
    keys: ApiKeyGrant[];
    flags: StoredFlag[];
    webhooks: StoredWebhook[];
    deliveries?: StoredDelivery[];
    source?: Source;
    createdAt?: string;
    apiKeys?: StoredApiKey[];
    history?: HistoryEntry[];
  }>;
  projects?: StoredProject[];
  adminToken?: string;
  streamSecret?: string;
}

/** An empty database. */
export function createDatabase(): Database {
  return new Database();
}

function envOf(db: Database, id: string): Environment {
  const env = db.get(id);
  if (!env) throw new Error(`store: op for unknown environment ${JSON.stringify(id)}`);
  return env;
}

/** Applies one op to the in-memory state; used both live and when replaying the log. */
export function applyOp(db: Database, op: Op): void {
  switch (op.t) {
    case 'env': {
      const env = db.get(op.id);
      if (env) {
        env.generatedKeys = op.keys;
        if (op.source) env.source = op.source;
      } else
        db.set(op.id, {
          id: op.id,
          project: op.project,
          environment: op.environment,
          epoch: op.epoch,
          revision: 0,
          flags: new Map(),
          webhooks: new Map(),
          deliveries: new Map(),
          generatedKeys: op.keys,
          source: op.source ?? 'default',
          createdAt: op.createdAt ?? new Date(0).toISOString(),
          apiKeys: [],
          history: [],
        });
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
  }
}

function envSnapshot(env: Environment): SnapshotData['envs'][number] {
  return {
    id: env.id,
    project: env.project,
    environment: env.environment,
    epoch: env.epoch,
    revision: env.revision,
    keys: env.generatedKeys,
    flags: [...env.flags.values()],
    webhooks: [...env.webhooks.values()],
    deliveries: [...env.deliveries.values()],
    source: env.source,
    createdAt: env.createdAt,
    apiKeys: env.apiKeys,
    history: env.history,
  };
}

/** What spans environments, as the snapshot holds it. */
function sharedSnapshot(db: Database): Omit<SnapshotData, 'envs'> {
  const shared: Omit<SnapshotData, 'envs'> = { projects: [...db.projects.values()] };
  if (db.adminToken !== undefined) shared.adminToken = db.adminToken;
  if (db.streamSecret !== undefined) shared.streamSecret = db.streamSecret;
  return shared;
}

export function toSnapshot(db: Database): SnapshotData {
  return { envs: [...db.values()].map(envSnapshot), ...sharedSnapshot(db) };
}

/** One scope's part of the snapshot (`scopeOf`): an environment's, or what spans them. */
export type ScopeSnapshot = SnapshotData['envs'][number] | Omit<SnapshotData, 'envs'>;

export function scopeSnapshot(db: Database, scope: string): ScopeSnapshot | undefined {
  if (scope === '') return sharedSnapshot(db);
  const env = db.get(scope);
  return env && envSnapshot(env);
}

/** The whole snapshot from the snapshots of its scopes (`scopeSnapshot`). */
export function joinScopeSnapshots(parts: ReadonlyMap<string, ScopeSnapshot>): SnapshotData {
  const snapshot: SnapshotData = { envs: [] };
  for (const [scope, part] of parts) {
    if (scope === '') Object.assign(snapshot, part);
    else snapshot.envs.push(part as SnapshotData['envs'][number]);
  }
  return snapshot;
}

export function fromSnapshot(data: SnapshotData): Database {
  const db = createDatabase();
  for (const e of data.envs) {
    db.set(e.id, {
      id: e.id,
      project: e.project,
      environment: e.environment,
      epoch: e.epoch,
      revision: e.revision,
      flags: new Map(e.flags.map((f) => [f.key, f])),
      webhooks: new Map(e.webhooks.map((w) => [w.id, w])),
      deliveries: new Map((e.deliveries ?? []).map((d) => [d.id, d])),
      generatedKeys: e.keys,
      source: e.source ?? 'default',
      createdAt: e.createdAt ?? new Date(0).toISOString(),
      apiKeys: e.apiKeys ?? [],
      history: e.history ?? [],
    });
  }
  for (const project of data.projects ?? []) db.projects.set(project.key, project);
  if (data.adminToken !== undefined) db.adminToken = data.adminToken;
  if (data.streamSecret !== undefined) db.streamSecret = data.streamSecret;
  return db;
}
