/**
 * Snapshots of memory: the whole state, or one scope's (`scopeOf`), as the storage keeps them
 * for compaction; memory rebuilt from what a storage loaded; a scope's state remembered and put
 * back (a group commit that failed). The kernel writes each environment's frame (its ids, names,
 * keys and revision) and the renames; each domain adds its parts (`Domain`, `domain.ts`).
 */
import { isObject } from '../../../src/core/is-object.js';
import { SnapshotPieceError } from '../../store/snapshot-file.js';
import type { LoadedState } from '../../store/storage.js';
import { boundAudit, dropDeletedAudit, refillAudit } from './audit.js';
import { markDamaged } from './damaged.js';
import { checkList, type Domains, type Piece } from './domain.js';
import { applyRecordedName, nameFromId, nameOf, renamedAs } from './env-names.js';
import {
  type ApiKeyGrant,
  type Environment,
  type EnvName,
  MemoryState,
  type Source,
  type StoredApiKey,
  type StoredAuditRecord,
} from './model.js';
import { type BaseOp, scopeOf } from './ops.js';

/** One environment, as a snapshot holds it: the kernel's frame, and each domain's fields. */
export interface KernelEnvSnapshot {
  id: string;
  project: string;
  environment: string;
  epoch: string;
  revision: number;
  keys: ApiKeyGrant[];
  source?: Source;
  createdAt?: string;
  apiKeys?: StoredApiKey[];
  /** The environment's audit records (`audit.ts`), oldest first. */
  audit?: StoredAuditRecord[];
  [part: string]: unknown;
}

/** What spans environments, as a snapshot holds it (the part of scope `''`): renames, and each domain's fields. */
export interface KernelSharedSnapshot {
  /** Renamed environments (`env-names.ts`), by id. */
  names?: Array<EnvName & { id: string }>;
  /** The shared audit records (`audit.ts`), oldest first. */
  audit?: StoredAuditRecord[];
  [part: string]: unknown;
}

/** JSON form of the whole state, written by compaction. */
export interface KernelSnapshot extends KernelSharedSnapshot {
  envs: KernelEnvSnapshot[];
}

/** One scope's part of the snapshot (`scopeOf`): an environment's, or what spans them. */
export type ScopeSnapshot = KernelEnvSnapshot | KernelSharedSnapshot;

/**
 * Remembers the state of one scope (`scopeOf`) and answers a function that puts it back: for a
 * shared storage that applies a batch of writes to memory before it knows they committed.
 * Copies the scope's maps and arrays, so it costs what the environment holds.
 */
export function captureScope<O extends BaseOp, C>(
  domains: Domains<O, C>,
  db: MemoryState,
  scope: string,
): () => void {
  if (scope === '') {
    const names = new Map(db.names);
    const named = new Map(
      [...db.values()].map((e) => [e, { project: e.project, environment: e.environment }]),
    );
    const audit = db.audit.slice();
    const parts = captureParts(domains, db, scope);
    return () => {
      // The shared audit as it was, with the records of environments deleted meanwhile (their scopes' commits).
      const had = new Set(audit);
      refillAudit(db.audit, [...audit, ...db.audit.filter((r) => r.env !== undefined && !had.has(r))]);
      db.names.clear();
      for (const [id, name] of names) db.names.set(id, name);
      // Renames of the batch undone; an environment that came meanwhile gets the name recorded for it.
      for (const env of db.values()) {
        const { project, environment } = named.get(env) ?? renamedAs(db, env) ?? nameFromId(env.id);
        env.project = project;
        env.environment = environment;
      }
      for (const restore of parts) restore();
    };
  }
  const env = db.get(scope);
  if (!env) return () => db.delete(scope);
  const saved = {
    revision: env.revision,
    generatedKeys: env.generatedKeys,
    source: env.source,
    apiKeys: env.apiKeys,
    audit: env.audit?.slice(),
  };
  // Records the batch handed to the shared list by deleting the environment go back with it (`audit.ts`).
  const kept = new Set(db.audit.filter((r) => r.env === scope));
  // The domains put theirs back into the same maps and arrays: whatever holds them keeps seeing the environment.
  const parts = captureParts(domains, db, scope);
  return () => {
    // Back in memory, should the batch have deleted it.
    db.set(scope, env);
    env.revision = saved.revision;
    env.generatedKeys = saved.generatedKeys;
    env.source = saved.source;
    env.apiKeys = saved.apiKeys;
    if (saved.audit) {
      env.audit ??= [];
      refillAudit(env.audit, saved.audit);
    } else delete env.audit;
    dropDeletedAudit(db, scope, kept);
    for (const restore of parts) restore();
  };
}

function captureParts<O extends BaseOp, C>(
  domains: Domains<O, C>,
  db: MemoryState,
  scope: string,
): Array<() => void> {
  const parts: Array<() => void> = [];
  for (const domain of domains.list) if (domain.capture) parts.push(domain.capture(db, scope));
  return parts;
}

function envSnapshot<O extends BaseOp, C>(domains: Domains<O, C>, env: Environment): KernelEnvSnapshot {
  const snapshot: KernelEnvSnapshot = {
    id: env.id,
    project: env.project,
    environment: env.environment,
    epoch: env.epoch,
    revision: env.revision,
    keys: env.generatedKeys,
    source: env.source,
    createdAt: env.createdAt,
    apiKeys: env.apiKeys,
  };
  if (env.audit && env.audit.length > 0) snapshot.audit = env.audit;
  for (const domain of domains.list) if (domain.envPart) Object.assign(snapshot, domain.envPart(env));
  return snapshot;
}

/** What spans environments, as the snapshot holds it. */
function sharedSnapshot<O extends BaseOp, C>(domains: Domains<O, C>, db: MemoryState): KernelSharedSnapshot {
  const shared: KernelSharedSnapshot = {};
  if (db.names.size > 0) shared.names = [...db.names].map(([id, name]) => ({ id, ...name }));
  if (db.audit.length > 0) shared.audit = db.audit;
  for (const domain of domains.list) if (domain.sharedPart) Object.assign(shared, domain.sharedPart(db));
  return shared;
}

/**
 * The whole state. Throws `SnapshotPieceError` while an environment is not restored
 * (`damaged.ts`): a snapshot without it would lose its stored data, so the storage keeps the
 * snapshot and journal it has.
 */
export function toSnapshot<O extends BaseOp, C>(domains: Domains<O, C>, db: MemoryState): KernelSnapshot {
  for (const env of db.damaged.values())
    throw new SnapshotPieceError(
      `environment ${nameOf(env)} (${env.id}) was not restored at start-up (${env.damaged}); a snapshot waits until it is, so that its stored data is kept`,
    );
  return { envs: [...db.values()].map((env) => envSnapshot(domains, env)), ...sharedSnapshot(domains, db) };
}

export function scopeSnapshot<O extends BaseOp, C>(
  domains: Domains<O, C>,
  db: MemoryState,
  scope: string,
): ScopeSnapshot | undefined {
  if (scope === '') return sharedSnapshot(domains, db);
  const env = db.get(scope);
  return env && envSnapshot(domains, env);
}

/** The whole snapshot from the snapshots of its scopes (`scopeSnapshot`). */
export function joinScopeSnapshots(parts: ReadonlyMap<string, ScopeSnapshot>): KernelSnapshot {
  const snapshot: KernelSnapshot = { envs: [] };
  for (const [scope, part] of parts) {
    if (scope === '') Object.assign(snapshot, part);
    else snapshot.envs.push(part as KernelEnvSnapshot);
  }
  return snapshot;
}

/** What a snapshot line holds in place of an environment it could not read (`readSnapshot`). */
interface UnreadablePiece {
  id: string;
  unreadable: string;
}

/** Throws, saying what is wrong, unless `e` has the shape of an environment's snapshot. */
function checkPiece<O extends BaseOp, C>(domains: Domains<O, C>, e: Piece): void {
  for (const field of ['project', 'environment', 'epoch'] as const)
    if (typeof e[field] !== 'string') throw new Error(`its "${field}" is not a string`);
  if (typeof e.revision !== 'number') throw new Error('its "revision" is not a number');
  checkList(e, 'keys', true);
  for (const domain of domains.list) domain.checkEnvPart?.(e);
  checkList(e, 'apiKeys', false, 'digest');
  checkList(e, 'audit', false, 'id');
}

function envFromSnapshot<O extends BaseOp, C>(domains: Domains<O, C>, e: KernelEnvSnapshot): Environment {
  checkPiece(domains, e);
  const env: Environment = {
    id: e.id,
    project: e.project,
    environment: e.environment,
    epoch: e.epoch,
    revision: e.revision,
    flags: new Map(),
    segments: new Map(),
    webhooks: new Map(),
    deliveries: new Map(),
    generatedKeys: e.keys,
    source: e.source ?? 'default',
    createdAt: e.createdAt ?? new Date(0).toISOString(),
    apiKeys: e.apiKeys ?? [],
    history: [],
  };
  if (e.audit && e.audit.length > 0) env.audit = e.audit;
  for (const domain of domains.list) domain.envFromPart?.(env, e);
  return env;
}

/**
 * Memory from a snapshot. An environment whose piece cannot be read or built is recorded as
 * not restored (`damaged.ts`), with the reason; the others are restored.
 */
export function fromSnapshot<O extends BaseOp, C>(domains: Domains<O, C>, data: KernelSnapshot): MemoryState {
  const db = new MemoryState();
  for (const { id, epoch, project, environment } of data.names ?? [])
    db.names.set(id, { epoch, project, environment });
  for (const e of data.envs as Array<KernelEnvSnapshot | UnreadablePiece>) {
    const id = isObject(e) && typeof e.id === 'string' ? e.id : undefined;
    if (id === undefined) throw new Error('a snapshot holds an environment without an id');
    if ('unreadable' in e) {
      markDamaged(db, id, `its snapshot line cannot be read (${e.unreadable})`);
      continue;
    }
    try {
      db.set(id, envFromSnapshot(domains, e));
    } catch (error) {
      markDamaged(db, id, `its snapshot does not hold an environment: ${(error as Error).message}`, e);
    }
  }
  // A scope's snapshot may be older than the shared one's renames.
  for (const env of db.values()) applyRecordedName(db, env);
  if (Array.isArray(data.audit)) refillAudit(db.audit, data.audit);
  for (const domain of domains.list) domain.sharedFromPart?.(db, data);
  return db;
}

/**
 * Memory as a storage loaded it: its snapshots (the whole state's, or each scope's), then every
 * entry after them, applied in order. Nothing is published: no one listens yet. Each domain
 * holds what it restored to its bounds first (`Domain.restored`: each history, as it was when
 * recorded, `docs/protocol.md` §3.4).
 *
 * A failure tied to one environment's data (its snapshot, its history, an entry of its scope)
 * leaves that environment not restored (`damaged.ts`, `db.damaged`)
 * and the others whole; its later entries are skipped, and kept by the storage. A failure of
 * what spans environments (the shared scope) still stops the start.
 */
export function restoreState<O extends BaseOp, C>(
  domains: Domains<O, C>,
  loaded: LoadedState<O>,
  historyLimit: number,
  historyBytes?: number,
): MemoryState {
  const whole = loaded.snapshots.find((s) => s.scope === undefined);
  const parts = new Map<string, ScopeSnapshot>();
  for (const { scope, data } of loaded.snapshots)
    if (scope !== undefined) parts.set(scope, data as ScopeSnapshot);
  const state = whole
    ? fromSnapshot(domains, whole.data as KernelSnapshot)
    : parts.size > 0
      ? fromSnapshot(domains, joinScopeSnapshots(parts))
      : new MemoryState();
  state.historyLimit = historyLimit;
  if (historyBytes !== undefined) state.historyBytes = historyBytes;
  boundAudit(state.audit, state);
  for (const env of [...state.values()]) {
    try {
      if (env.audit) boundAudit(env.audit, state);
      for (const domain of domains.list) domain.restored?.(env, state);
    } catch (error) {
      markDamaged(state, env.id, (error as Error).message);
    }
  }
  for (const entry of loaded.entries) {
    for (const op of entry) {
      const scope = scopeOf(op);
      if (state.damaged.has(scope)) continue;
      if (scope === '') {
        domains.apply(state, op);
        continue;
      }
      try {
        domains.apply(state, op);
      } catch (error) {
        markDamaged(state, scope, `an entry of its journal cannot be applied: ${(error as Error).message}`);
      }
    }
  }
  return state;
}

/** The whole state (no `scope`) or one scope's part, for a storage's compaction. */
export function snapshotOf<O extends BaseOp, C>(
  domains: Domains<O, C>,
  db: MemoryState,
  scope?: string,
): KernelSnapshot | ScopeSnapshot | undefined {
  return scope === undefined ? toSnapshot(domains, db) : scopeSnapshot(domains, db, scope);
}
