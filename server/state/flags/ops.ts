/**
 * The flags domain's ops (`flag`, `flag-del`) and how each changes memory: a flag set or
 * deleted takes the environment's next revision and is recorded in its history (`history.ts`),
 * which a segment's change shares (`applyChange`, `../segments/ops.ts`). The change each publishes
 * (`FlagCommit`, built once, here, from the op) is what the SDK stream, the OFREP and dashboard
 * streams follow. The domain's parts of snapshots: the flags and the history.
 */

import { actorOf } from '../kernel/actors.js';
import { auditRecord } from '../kernel/audit.js';
import { checkList, type Domain, type Piece, refill } from '../kernel/domain.js';
import type {
  Actor,
  ChangeRequestRef,
  Environment,
  HistoryEntry,
  MemoryState,
  StoredAuditRecord,
  StoredFlag,
  StoredSegment,
} from '../kernel/model.js';
import { envOf } from '../kernel/ops.js';
import { boundHistory, historyEntry, recordHistory } from './history.js';

export type FlagOp =
  | {
      t: 'flag';
      env: string;
      rev: number;
      flag: StoredFlag;
      by?: Actor;
      copiedFrom?: string;
      changeRequest?: ChangeRequestRef;
    }
  | {
      t: 'flag-del';
      env: string;
      rev: number;
      key: string;
      at?: string;
      by?: Actor;
      changeRequest?: ChangeRequestRef;
    };

/**
 * A committed flag change, built from its op (`flagCommitOf`; a segment's, `segmentCommitOf`):
 * what the SDK stream, the OFREP and dashboard streams and webhook delivery follow. (The SDK's
 * public `FlagChange` is what a client's listeners get; this is the server's.)
 */
export interface FlagCommit {
  env: Environment;
  revision: number;
  /** The flag before and after; both `null` when the revision changed a segment. */
  before: StoredFlag | null;
  after: StoredFlag | null;
  /** ISO 8601 time of the commit. */
  at: string;
  actor: Actor;
  /** The segment the revision changed (`docs/protocol.md` §12.3), when it changed one. */
  segment?: { before: StoredSegment | null; after: StoredSegment | null };
}

/** The change a flag op makes to `env`, whose flag was `before`. */
export function flagCommitOf(env: Environment, op: FlagOp, before: StoredFlag | null): FlagCommit {
  return {
    env,
    revision: op.rev,
    before,
    after: op.t === 'flag' ? op.flag : null,
    at: op.t === 'flag' ? op.flag.updatedAt : (op.at ?? before?.updatedAt ?? new Date(0).toISOString()),
    actor: actorOf(op.by),
  };
}

/** What a flag or segment op says about its change: revision, when (deletions), who, copied from where. */
interface Revisioned {
  env: string;
  rev: number;
  at?: string;
  by?: Actor;
  copiedFrom?: string;
  /** The change request it was applied from (`../changes/`). */
  changeRequest?: ChangeRequestRef;
}

/** A history entry made for an op's audit record (`changeAudit`), for `applyChange` to record rather than make again. */
const entries = new WeakMap<object, HistoryEntry>();

/** How a flag's or a segment's change reads in the history (`history.ts`). */
export type EntryOf<T> = (
  revision: number,
  at: string,
  before: T | undefined,
  after: T | undefined,
  actor: Actor,
) => HistoryEntry;

/**
 * The audit record of a flag or segment change (`../kernel/audit.ts`), read before it is applied:
 * its history entry's changes, before and after (a counted list: `{addedCount, removedCount}`,
 * after), its id the environment's epoch and the revision. `undefined` for an op memory holds.
 */
export function changeAudit<T extends { updatedAt: string }>(
  db: MemoryState,
  op: Revisioned,
  kind: 'flag' | 'segment',
  items: (env: Environment) => Map<string, T>,
  key: string,
  after: T | undefined,
  entryOf: EntryOf<T>,
): StoredAuditRecord | undefined {
  const env = db.get(op.env);
  if (!env || op.rev <= env.revision) return undefined;
  const before = items(env).get(key);
  if (!before && !after) return undefined;
  const at = after?.updatedAt ?? op.at ?? before!.updatedAt;
  const entry = entryOf(op.rev, at, before, after, actorOf(op.by));
  entries.set(op, entry);
  const was: Record<string, unknown> = {};
  const now: Record<string, unknown> = {};
  for (const change of entry.changes) {
    if ('addedCount' in change && change.addedCount !== undefined)
      now[change.field] = { addedCount: change.addedCount, removedCount: change.removedCount };
    else {
      if (before) was[change.field] = change.from;
      if (after) now[change.field] = change.to;
    }
  }
  return auditRecord(`${env.epoch}.${op.rev}`, at, entry.actor, {
    action: `${kind}.${entry.action}`,
    target: { kind, key },
    before: was,
    after: now,
  });
}

/**
 * A flag or segment set (`after`) or deleted: recorded in the history, and the environment's
 * revision moved, only when the op is newer than the environment (a replayed suffix of the log
 * changes nothing); the item itself is always set as the op says (ops carry absolute values).
 */
export function applyChange<T extends { updatedAt: string }>(
  db: MemoryState,
  op: Revisioned,
  items: (env: Environment) => Map<string, T>,
  key: string,
  after: T | undefined,
  entryOf: EntryOf<T>,
): void {
  const env = envOf(db, op.env);
  const map = items(env);
  const before = map.get(key);
  if (op.rev > env.revision) {
    if (before || after) {
      const at = after?.updatedAt ?? op.at ?? before!.updatedAt;
      const entry = entries.get(op) ?? entryOf(op.rev, at, before, after, actorOf(op.by));
      entries.delete(op);
      if (op.copiedFrom !== undefined) entry.copiedFrom = op.copiedFrom;
      if (op.changeRequest !== undefined) entry.changeRequest = op.changeRequest;
      recordHistory(env, entry, db);
    }
    env.revision = op.rev;
  }
  if (after) map.set(key, after);
  else map.delete(key);
}

/** The environment's flags, as `applyChange` takes them. */
const flags = (env: Environment) => env.flags;

/** An environment's flags and history, as a snapshot holds them. */
export interface FlagsSnapshot {
  flags: StoredFlag[];
  history?: HistoryEntry[];
}

export const flagsDomain: Domain<FlagOp, FlagCommit> = {
  kinds: ['flag', 'flag-del'],

  apply(db, op) {
    if (op.t === 'flag') applyChange(db, op, flags, op.flag.key, op.flag, historyEntry);
    else applyChange(db, op, flags, op.key, undefined, historyEntry);
  },

  auditOf(db, op) {
    return op.t === 'flag'
      ? changeAudit(db, op, 'flag', flags, op.flag.key, op.flag, historyEntry)
      : changeAudit(db, op, 'flag', flags, op.key, undefined, historyEntry);
  },

  changeOf(db, op) {
    const env = db.get(op.env);
    // An op memory already holds (replayed after a snapshot) changes nothing new.
    if (!env || op.rev <= env.revision) return undefined;
    return flagCommitOf(env, op, env.flags.get(op.t === 'flag' ? op.flag.key : op.key) ?? null);
  },

  capture(db, scope) {
    const env = scope === '' ? undefined : db.get(scope);
    if (!env) return () => {};
    const saved = { flags: new Map(env.flags), history: env.history.slice() };
    return () => {
      refill(env.flags, saved.flags);
      env.history.length = 0;
      for (const entry of saved.history) env.history.push(entry);
    };
  },

  envPart: (env): FlagsSnapshot => ({ flags: [...env.flags.values()], history: env.history }),

  checkEnvPart(piece) {
    checkList(piece, 'flags', true, 'key');
    checkList(piece, 'history', false);
  },

  envFromPart(env, piece: Piece) {
    const part = piece as unknown as FlagsSnapshot;
    env.flags = new Map(part.flags.map((f) => [f.key, f]));
    // Entries written before accounts existed name their actor in an older form (`../kernel/actors.ts`).
    env.history = (part.history ?? []).map((entry) => ({ ...entry, actor: actorOf(entry.actor) }));
  },

  restored(env, db) {
    // Each history held to the bounds as it loads (`docs/protocol.md` §3.4), as it was when recorded.
    try {
      boundHistory(env, db);
    } catch (error) {
      throw new Error(`its history cannot be read: ${(error as Error).message}`);
    }
  },
};
