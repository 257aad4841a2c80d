/**
 * Snapshots of memory: the whole state, or one scope's (`scopeOf`), as the storage keeps them
 * for compaction; memory rebuilt from what a storage loaded; a scope's state remembered and put
 * back (a group commit that failed).
 */
import { SnapshotPieceError } from '../store/snapshot-file.js';
import type { LoadedState } from '../store/storage.js';
import { markDamaged } from './damaged.js';
import { applyRecordedName, nameFromId, nameOf, renamedAs } from './env-names.js';
import { boundHistory } from './history.js';
import {
  type ApiKeyGrant,
  type Environment,
  type EnvName,
  type HistoryEntry,
  MemoryState,
  type Source,
  type StoredApiKey,
  type StoredDelivery,
  type StoredFlag,
  type StoredProject,
  type StoredSegment,
  type StoredWebhook,
} from './model.js';
import { applyOp, type Op, scopeOf } from './ops.js';
import { nowSeconds, pruneEndedSessions } from './sessions.js';
import { type UsageSnapshot, usageFromSnapshot, usageSnapshot } from './usage-state.js';

/** JSON form of the whole state, written by compaction. */
export interface SnapshotData {
  envs: EnvSnapshot[];
  projects?: StoredProject[];
  /** Renamed environments (`env-names.ts`), by id. */
  names?: Array<EnvName & { id: string }>;
  adminToken?: string;
  streamSecret?: string;
  /** Dashboard sessions ended on the server (`sessions.ts`), until their expiry (epoch seconds). */
  endedSessions?: Array<{ id: string; until: number }>;
  /** Every session expiring before this (epoch seconds) is ended (`sessions.ts`). */
  sessionsEndedBefore?: number;
}

/** One environment, as a snapshot holds it. */
export interface EnvSnapshot {
  id: string;
  project: string;
  environment: string;
  epoch: string;
  revision: number;
  keys: ApiKeyGrant[];
  flags: StoredFlag[];
  segments?: StoredSegment[];
  webhooks: StoredWebhook[];
  deliveries?: StoredDelivery[];
  source?: Source;
  createdAt?: string;
  apiKeys?: StoredApiKey[];
  history?: HistoryEntry[];
  /** `docs/protocol.md` §13.4; absent when nothing was reported. */
  usage?: UsageSnapshot;
}

/** What spans environments, as a snapshot holds it: the part of scope `''`. */
export type SharedSnapshot = Omit<SnapshotData, 'envs'>;

/**
 * Remembers the state of one scope (`scopeOf`) and answers a function that puts it back: for a
 * shared storage that applies a batch of writes to memory before it knows they committed.
 * Copies the scope's maps and arrays, so it costs what the environment holds.
 */
export function captureScope(db: MemoryState, scope: string): () => void {
  if (scope === '') {
    const projects = new Map(db.projects);
    const names = new Map(db.names);
    const named = new Map(
      [...db.values()].map((e) => [e, { project: e.project, environment: e.environment }]),
    );
    const { adminToken, streamSecret } = db;
    const endedIds = new Map(db.endedSessions.ids);
    const { endedBefore } = db.endedSessions;
    return () => {
      db.projects.clear();
      for (const [key, project] of projects) db.projects.set(key, project);
      db.names.clear();
      for (const [id, name] of names) db.names.set(id, name);
      // Renames of the batch undone; an environment that came meanwhile gets the name recorded for it.
      for (const env of db.values()) {
        const { project, environment } = named.get(env) ?? renamedAs(db, env) ?? nameFromId(env.id);
        env.project = project;
        env.environment = environment;
      }
      db.adminToken = adminToken;
      db.streamSecret = streamSecret;
      db.endedSessions.ids.clear();
      for (const [id, until] of endedIds) db.endedSessions.ids.set(id, until);
      db.endedSessions.endedBefore = endedBefore;
    };
  }
  const env = db.get(scope);
  if (!env) return () => db.delete(scope);
  const saved = {
    revision: env.revision,
    flags: new Map(env.flags),
    segments: new Map(env.segments),
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
    // Back in memory, should the batch have deleted it.
    db.set(scope, env);
    env.revision = saved.revision;
    refill(env.flags, saved.flags);
    refill(env.segments, saved.segments);
    refill(env.webhooks, saved.webhooks);
    refill(env.deliveries, saved.deliveries);
    env.generatedKeys = saved.generatedKeys;
    env.source = saved.source;
    env.apiKeys = saved.apiKeys;
    env.history.length = 0;
    for (const entry of saved.history) env.history.push(entry);
  };
}

function envSnapshot(env: Environment): EnvSnapshot {
  const snapshot: EnvSnapshot = {
    id: env.id,
    project: env.project,
    environment: env.environment,
    epoch: env.epoch,
    revision: env.revision,
    keys: env.generatedKeys,
    flags: [...env.flags.values()],
    segments: [...env.segments.values()],
    webhooks: [...env.webhooks.values()],
    deliveries: [...env.deliveries.values()],
    source: env.source,
    createdAt: env.createdAt,
    apiKeys: env.apiKeys,
    history: env.history,
  };
  const usage = usageSnapshot(env);
  if (usage) snapshot.usage = usage;
  return snapshot;
}

/** What spans environments, as the snapshot holds it. */
function sharedSnapshot(db: MemoryState): SharedSnapshot {
  const shared: SharedSnapshot = { projects: [...db.projects.values()] };
  if (db.names.size > 0) shared.names = [...db.names].map(([id, name]) => ({ id, ...name }));
  if (db.adminToken !== undefined) shared.adminToken = db.adminToken;
  if (db.streamSecret !== undefined) shared.streamSecret = db.streamSecret;
  // Only what still matters: an expired session is refused anyway.
  const now = nowSeconds();
  const ended = [...db.endedSessions.ids].filter(([, until]) => until > now);
  if (ended.length > 0) shared.endedSessions = ended.map(([id, until]) => ({ id, until }));
  if (db.endedSessions.endedBefore > now) shared.sessionsEndedBefore = db.endedSessions.endedBefore;
  return shared;
}

/**
 * The whole state. Throws `SnapshotPieceError` while an environment is not restored
 * (`damaged.ts`): a snapshot without it would lose its stored data, so the storage keeps the
 * snapshot and journal it has.
 */
export function toSnapshot(db: MemoryState): SnapshotData {
  for (const env of db.damaged.values())
    throw new SnapshotPieceError(
      `environment ${nameOf(env)} (${env.id}) was not restored at start-up (${env.damaged}); a snapshot waits until it is, so that its stored data is kept`,
    );
  return { envs: [...db.values()].map(envSnapshot), ...sharedSnapshot(db) };
}

/** One scope's part of the snapshot (`scopeOf`): an environment's, or what spans them. */
export type ScopeSnapshot = EnvSnapshot | SharedSnapshot;

export function scopeSnapshot(db: MemoryState, scope: string): ScopeSnapshot | undefined {
  if (scope === '') return sharedSnapshot(db);
  const env = db.get(scope);
  return env && envSnapshot(env);
}

/** The whole snapshot from the snapshots of its scopes (`scopeSnapshot`). */
export function joinScopeSnapshots(parts: ReadonlyMap<string, ScopeSnapshot>): SnapshotData {
  const snapshot: SnapshotData = { envs: [] };
  for (const [scope, part] of parts) {
    if (scope === '') Object.assign(snapshot, part);
    else snapshot.envs.push(part as EnvSnapshot);
  }
  return snapshot;
}

/** What a snapshot line holds in place of an environment it could not read (`readSnapshot`). */
interface UnreadablePiece {
  id: string;
  unreadable: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Throws, saying what is wrong, unless `e` has the shape of an environment's snapshot. */
function checkPiece(e: Record<string, unknown>): void {
  for (const field of ['project', 'environment', 'epoch'] as const)
    if (typeof e[field] !== 'string') throw new Error(`its "${field}" is not a string`);
  if (typeof e.revision !== 'number') throw new Error('its "revision" is not a number');
  const list = (field: string, required: boolean, key?: string) => {
    const value = e[field];
    if (value === undefined && !required) return;
    if (!Array.isArray(value)) throw new Error(`its "${field}" is not a list`);
    for (const item of value)
      if (!isRecord(item) || (key !== undefined && typeof item[key] !== 'string'))
        throw new Error(`its "${field}" holds an entry without a "${key ?? 'value'}"`);
  };
  list('keys', true);
  list('flags', true, 'key');
  list('segments', false, 'key');
  list('webhooks', true, 'id');
  list('deliveries', false, 'id');
  list('apiKeys', false, 'digest');
  list('history', false);
}

function envFromSnapshot(e: EnvSnapshot): Environment {
  checkPiece(e as unknown as Record<string, unknown>);
  const env: Environment = {
    id: e.id,
    project: e.project,
    environment: e.environment,
    epoch: e.epoch,
    revision: e.revision,
    flags: new Map(e.flags.map((f) => [f.key, f])),
    segments: new Map((e.segments ?? []).map((s) => [s.key, s])),
    webhooks: new Map(e.webhooks.map((w) => [w.id, w])),
    deliveries: new Map((e.deliveries ?? []).map((d) => [d.id, d])),
    generatedKeys: e.keys,
    source: e.source ?? 'default',
    createdAt: e.createdAt ?? new Date(0).toISOString(),
    apiKeys: e.apiKeys ?? [],
    history: e.history ?? [],
  };
  const usage = usageFromSnapshot(e.usage);
  if (usage) env.usage = usage;
  return env;
}

/**
 * Memory from a snapshot. An environment whose piece cannot be read or built is recorded as
 * not restored (`damaged.ts`), with the reason; the others are restored.
 */
export function fromSnapshot(data: SnapshotData): MemoryState {
  const db = new MemoryState();
  for (const project of data.projects ?? []) db.projects.set(project.key, project);
  for (const { id, epoch, project, environment } of data.names ?? [])
    db.names.set(id, { epoch, project, environment });
  for (const e of data.envs as Array<EnvSnapshot | UnreadablePiece>) {
    const id = isRecord(e) && typeof e.id === 'string' ? e.id : undefined;
    if (id === undefined) throw new Error('a snapshot holds an environment without an id');
    if ('unreadable' in e) {
      markDamaged(db, id, `its snapshot line cannot be read (${e.unreadable})`);
      continue;
    }
    try {
      db.set(id, envFromSnapshot(e));
    } catch (error) {
      markDamaged(db, id, `its snapshot does not hold an environment: ${(error as Error).message}`, e);
    }
  }
  // A scope's snapshot may be older than the shared one's renames.
  for (const env of db.values()) applyRecordedName(db, env);
  if (data.adminToken !== undefined) db.adminToken = data.adminToken;
  if (data.streamSecret !== undefined) db.streamSecret = data.streamSecret;
  for (const { id, until } of data.endedSessions ?? []) db.endedSessions.ids.set(id, until);
  db.endedSessions.endedBefore = data.sessionsEndedBefore ?? 0;
  pruneEndedSessions(db.endedSessions);
  return db;
}

/**
 * Memory as a storage loaded it: its snapshots (the whole state's, or each scope's), then every
 * entry after them, applied in order. Nothing is published: no one listens yet. Each history is
 * held to the bounds as it loads (`docs/protocol.md` §3.4), as it was when recorded.
 *
 * A failure tied to one environment's data (its snapshot, its history, an entry of its scope)
 * leaves that environment not restored (`damaged.ts`, `db.damaged`)
 * and the others whole; its later entries are skipped, and kept by the storage. A failure of
 * what spans environments (the shared scope) still stops the start.
 */
export function restoreState(
  loaded: LoadedState<Op>,
  historyLimit: number,
  historyBytes?: number,
): MemoryState {
  const whole = loaded.snapshots.find((s) => s.scope === undefined);
  const parts = new Map<string, ScopeSnapshot>();
  for (const { scope, data } of loaded.snapshots)
    if (scope !== undefined) parts.set(scope, data as ScopeSnapshot);
  const state = whole
    ? fromSnapshot(whole.data as SnapshotData)
    : parts.size > 0
      ? fromSnapshot(joinScopeSnapshots(parts))
      : new MemoryState();
  state.historyLimit = historyLimit;
  if (historyBytes !== undefined) state.historyBytes = historyBytes;
  for (const env of [...state.values()]) {
    try {
      boundHistory(env, state);
    } catch (error) {
      markDamaged(state, env.id, `its history cannot be read: ${(error as Error).message}`);
    }
  }
  for (const entry of loaded.entries) {
    for (const op of entry) {
      const scope = scopeOf(op);
      if (state.damaged.has(scope)) continue;
      if (scope === '') {
        applyOp(state, op);
        continue;
      }
      try {
        applyOp(state, op);
      } catch (error) {
        markDamaged(state, scope, `an entry of its journal cannot be applied: ${(error as Error).message}`);
      }
    }
  }
  return state;
}

/** The whole state (no `scope`) or one scope's part, for a storage's compaction. */
export function snapshotOf(db: MemoryState, scope?: string): SnapshotData | ScopeSnapshot | undefined {
  return scope === undefined ? toSnapshot(db) : scopeSnapshot(db, scope);
}
