/**
 * The admin domain's ops (`docs/protocol.md` §10) and how each changes memory: projects made in
 * the dashboard (made, deleted: a project's rename is a deletion and a creation, with the
 * kernel's `env-name` of each environment), the keys it creates and revokes, the server's secrets
 * (the admin token, the stream secret) and ended dashboard sessions (`sessions.ts`). The domain's
 * part of snapshots: what spans environments, but the renames (the kernel's).
 */
import type { Domain, Piece } from '../kernel/domain.js';
import type { StoredApiKey, StoredProject } from '../kernel/model.js';
import { envOf } from '../kernel/ops.js';
import { applySessionOp, nowSeconds, pruneEndedSessions, type SessionOp } from './sessions.js';

export type AdminOp =
  | { t: 'project'; project: StoredProject }
  /** The dashboard's record of project `key` is gone. Scope `''`. */
  | { t: 'project-del'; key: string }
  | { t: 'key'; env: string; key: StoredApiKey }
  | { t: 'key-del'; env: string; id: string }
  | { t: 'admin'; token: string }
  | { t: 'stream-secret'; secret: string }
  | SessionOp;

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

export const adminDomain: Domain<AdminOp> = {
  kinds: ['project', 'project-del', 'key', 'key-del', 'admin', 'stream-secret', 'session-end'],

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

  capture(db, scope) {
    if (scope !== '') return () => {};
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
