/**
 * The admin domain's ops (`docs/protocol.md` §10) and how each changes memory: projects made in
 * the dashboard (made, deleted: a project's rename is a deletion and a creation, with the
 * kernel's `env-name` of each environment), the keys it creates and revokes, the server's secrets
 * (the admin token, the stream secret) and ended dashboard sessions (`sessions.ts`). The domain's
 * part of snapshots: what spans environments, but the renames (the kernel's).
 */
import { type AuditFacts, pick, stampedRecord } from '../kernel/audit.js';
import type { Domain, Piece } from '../kernel/domain.js';
import { nameOf } from '../kernel/env-names.js';
import type { Actor, Environment, MemoryState, StoredApiKey, StoredProject } from '../kernel/model.js';
import { envOf } from '../kernel/ops.js';
import { applySessionOp, nowSeconds, pruneEndedSessions, type SessionOp } from './sessions.js';

/** Projects and keys made and removed carry who did it and when (`by`, `at`: their audit records). */
export type AdminOp =
  | { t: 'project'; project: StoredProject; by?: Actor; at?: string }
  /** The dashboard's record of project `key` is gone. Scope `''`. */
  | { t: 'project-del'; key: string; by?: Actor; at?: string }
  | { t: 'key'; env: string; key: StoredApiKey; by?: Actor; at?: string }
  | { t: 'key-del'; env: string; id: string; by?: Actor; at?: string }
  /** Environment `env`'s flag and segment changes need `approvals` approvals from now on (0: none). */
  | { t: 'env-approvals'; env: string; approvals: number; by?: Actor; at?: string }
  | { t: 'admin'; token: string }
  | { t: 'stream-secret'; secret: string }
  | SessionOp;

/**
 * The op that sets `env`'s approvals to `approvals`, by `by` now; none when they are so already
 * (the admin API's `PATCH`, and the config file at every start).
 */
export function approvalsOps(env: Environment, approvals: number, by: Actor): AdminOp[] {
  if ((env.approvals ?? 0) === approvals) return [];
  return [{ t: 'env-approvals', env: env.id, approvals, by, at: new Date().toISOString() }];
}

/** What spans environments, as a snapshot holds it: the admin domain's fields. */
export interface AdminSnapshot {
  projects?: StoredProject[];
  adminToken?: string;
  streamSecret?: string;
  /** Dashboard sessions ended on the server (`sessions.ts`), until their expiry (epoch seconds). */
  endedSessions?: Array<{ id: string; until: number }>;
  /** Every session expiring before this (epoch seconds) is ended (`sessions.ts`). */
  sessionsEndedBefore?: number;
}

/** An environment's part of a snapshot: its approvals, when it needs any. */
export interface AdminEnvSnapshot {
  approvals?: number;
}

/** What an audit record shows of a key: never its digest. */
const KEY_SHOWN = ['name', 'access', 'hint'] as const;

const keyShown = (key: StoredApiKey) => ({
  ...pick(key, KEY_SHOWN),
  bypassApprovals: key.bypassApprovals === true,
});

/** `approvals` as memory holds it: absent for none. */
function setApprovals(env: Environment, approvals: number | undefined): void {
  if (approvals !== undefined && approvals > 0) env.approvals = approvals;
  else delete env.approvals;
}

/** What an admin op changes, for its audit record (`../kernel/audit.ts`). */
function adminAudit(db: MemoryState, op: AdminOp): AuditFacts | undefined {
  switch (op.t) {
    case 'project': {
      const { key } = op.project;
      if (db.projects.has(key)) return undefined;
      return { action: 'project.created', project: key, target: { kind: 'project', key }, after: { key } };
    }
    case 'project-del':
      if (!db.projects.has(op.key)) return undefined;
      return {
        action: 'project.deleted',
        project: op.key,
        target: { kind: 'project', key: op.key },
        before: { key: op.key },
      };
    case 'key': {
      const env = db.get(op.env);
      if (!env || env.apiKeys.some((k) => k.id === op.key.id)) return undefined;
      return {
        action: 'apiKey.created',
        target: { kind: 'apiKey', key: op.key.id },
        after: keyShown(op.key),
      };
    }
    case 'key-del': {
      const key = db.get(op.env)?.apiKeys.find((k) => k.id === op.id);
      return (
        key && {
          action: 'apiKey.revoked',
          target: { kind: 'apiKey', key: op.id },
          before: keyShown(key),
        }
      );
    }
    case 'env-approvals': {
      const env = db.get(op.env);
      const before = env?.approvals ?? 0;
      if (!env || before === op.approvals) return undefined;
      return {
        action: 'environment.approvalsChanged',
        target: { kind: 'environment', key: nameOf(env) },
        before: { approvals: before },
        after: { approvals: op.approvals },
      };
    }
    default:
      return undefined;
  }
}

export const adminDomain: Domain<AdminOp> = {
  kinds: [
    'project',
    'project-del',
    'key',
    'key-del',
    'env-approvals',
    'admin',
    'stream-secret',
    'session-end',
  ],

  apply(db, op) {
    switch (op.t) {
      case 'project':
        db.projects.set(op.project.key, op.project);
        return;
      case 'project-del':
        db.projects.delete(op.key);
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
      case 'env-approvals':
        setApprovals(envOf(db, op.env), op.approvals);
        return;
      case 'admin':
        db.adminToken = op.token;
        return;
      case 'stream-secret':
        db.streamSecret = op.secret;
        return;
      case 'session-end':
        applySessionOp(db, op);
        return;
    }
  },

  auditOf: (db, op) => stampedRecord(op, adminAudit(db, op)),

  capture(db, scope) {
    if (scope !== '') {
      // An environment's approvals (its keys are the kernel's).
      const approvals = db.get(scope)?.approvals;
      return () => {
        const env = db.get(scope);
        if (env) setApprovals(env, approvals);
      };
    }
    const projects = new Map(db.projects);
    const { adminToken, streamSecret } = db;
    const endedIds = new Map(db.endedSessions.ids);
    const { endedBefore } = db.endedSessions;
    return () => {
      db.projects.clear();
      for (const [key, project] of projects) db.projects.set(key, project);
      db.adminToken = adminToken;
      db.streamSecret = streamSecret;
      db.endedSessions.ids.clear();
      for (const [id, until] of endedIds) db.endedSessions.ids.set(id, until);
      db.endedSessions.endedBefore = endedBefore;
    };
  },

  envPart: (env): AdminEnvSnapshot => (env.approvals ? { approvals: env.approvals } : {}),

  checkEnvPart(piece) {
    const { approvals } = piece;
    if (approvals !== undefined && !(Number.isSafeInteger(approvals) && (approvals as number) >= 0))
      throw new Error('its "approvals" is not a count');
  },

  envFromPart(env, piece: Piece) {
    setApprovals(env, (piece as AdminEnvSnapshot).approvals);
  },

  sharedPart(db): AdminSnapshot {
    const shared: AdminSnapshot = { projects: [...db.projects.values()] };
    if (db.adminToken !== undefined) shared.adminToken = db.adminToken;
    if (db.streamSecret !== undefined) shared.streamSecret = db.streamSecret;
    // Only what still matters: an expired session is refused anyway.
    const now = nowSeconds();
    const ended = [...db.endedSessions.ids].filter(([, until]) => until > now);
    if (ended.length > 0) shared.endedSessions = ended.map(([id, until]) => ({ id, until }));
    if (db.endedSessions.endedBefore > now) shared.sessionsEndedBefore = db.endedSessions.endedBefore;
    return shared;
  },

  sharedFromPart(db, piece: Piece) {
    const data = piece as AdminSnapshot;
    for (const project of data.projects ?? []) db.projects.set(project.key, project);
    if (data.adminToken !== undefined) db.adminToken = data.adminToken;
    if (data.streamSecret !== undefined) db.streamSecret = data.streamSecret;
    for (const { id, until } of data.endedSessions ?? []) db.endedSessions.ids.set(id, until);
    db.endedSessions.endedBefore = data.sessionsEndedBefore ?? 0;
    pruneEndedSessions(db.endedSessions);
  },
};
