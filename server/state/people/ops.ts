/**
 * The people domain's ops (`docs/protocol.md` §10.6) and how each changes memory: accounts,
 * invitations, sessions kept on the server, personal access tokens. All of scope `''`: they
 * go through the one write protocol, so an acknowledged sign-out or revocation is durable and
 * reaches every instance on a shared database. Ops carry absolute values (a user is written
 * whole), so replaying one twice changes nothing. The domain's part of snapshots: what spans
 * environments, without sessions and invitations past their end.
 */
import { type AuditFacts, changedFields, pick, stampedRecord } from '../kernel/audit.js';
import { type Domain, type Piece, refill } from '../kernel/domain.js';
import type {
  Actor,
  MemoryState,
  People,
  StoredInvitation,
  StoredSession,
  StoredToken,
  StoredUser,
} from '../kernel/model.js';

/**
 * People's ops. Those a person's change commits carry who made it and when (`by`, `at`: their
 * audit records, `../kernel/audit.ts`); sign-ins, sign-outs and `seen` do not, and are not audited.
 */
export type PeopleOp =
  | { t: 'user'; user: StoredUser; by?: Actor; at?: string }
  /** The user, their sessions, tokens and invitation are gone. */
  | { t: 'user-del'; id: string; by?: Actor; at?: string }
  /** A new link for a user (stamped: a second one, sent again; the first is the user's `invited` record). */
  | { t: 'invite'; invitation: StoredInvitation; by?: Actor; at?: string }
  | { t: 'invite-del'; digest: string }
  | { t: 'login'; session: StoredSession }
  | { t: 'logout'; id: string }
  /** Session `id` was seen at `at` (epoch seconds): its idle lifetime counts from there. */
  | { t: 'seen'; id: string; at: number }
  | { t: 'pat'; token: StoredToken; by?: Actor; at?: string }
  | { t: 'pat-del'; id: string; by?: Actor; at?: string };

/** What spans environments, as a snapshot holds it: the people domain's fields. */
export interface PeopleSnapshot {
  people?: {
    users: StoredUser[];
    invitations: StoredInvitation[];
    sessions: StoredSession[];
    tokens: StoredToken[];
  };
}

/** Drops sessions and invitations past their end: they are refused anyway. */
export function prunePeople(people: People, nowMs = Date.now()): void {
  const now = Math.floor(nowMs / 1000);
  for (const [id, session] of people.sessions) if (session.expires <= now) people.sessions.delete(id);
  for (const [digest, invitation] of people.invitations)
    if (invitation.expires <= nowMs) people.invitations.delete(digest);
}

function dropToken(people: People, id: string): void {
  const token = people.tokens.get(id);
  if (token) people.tokenIds.delete(token.digest);
  people.tokens.delete(id);
}

function applyPeopleOp(db: MemoryState, op: PeopleOp): void {
  const { people } = db;
  switch (op.t) {
    case 'user':
      people.users.set(op.user.id, op.user);
      return;
    case 'user-del':
      people.users.delete(op.id);
      for (const [id, s] of people.sessions) if (s.user === op.id) people.sessions.delete(id);
      for (const [id, t] of people.tokens) if (t.user === op.id) dropToken(people, id);
      for (const [digest, i] of people.invitations) if (i.user === op.id) people.invitations.delete(digest);
      return;
    case 'invite':
      for (const [digest, i] of people.invitations)
        if (i.user === op.invitation.user) people.invitations.delete(digest);
      people.invitations.set(op.invitation.digest, op.invitation);
      return;
    case 'invite-del':
      people.invitations.delete(op.digest);
      return;
    case 'login':
      prunePeople(people);
      people.sessions.set(op.session.id, op.session);
      return;
    case 'logout':
      people.sessions.delete(op.id);
      return;
    case 'seen': {
      const session = people.sessions.get(op.id);
      if (session && op.at > session.seen) people.sessions.set(op.id, { ...session, seen: op.at });
      return;
    }
    case 'pat':
      people.tokens.set(op.token.id, op.token);
      people.tokenIds.set(op.token.digest, op.token.id);
      return;
    case 'pat-del':
      dropToken(people, op.id);
      return;
  }
}

/** What an audit record shows of a user: never their password (nor its hash) or sign-on subject. */
const USER_SHOWN = ['email', 'name', 'role', 'projects', 'disabled'] as const;

/** What a people op changes, for its audit record (`../kernel/audit.ts`). */
function peopleAudit(db: MemoryState, op: PeopleOp): AuditFacts | undefined {
  const { people } = db;
  switch (op.t) {
    case 'user': {
      const after = op.user;
      const target = { kind: 'user', key: after.id };
      const before = people.users.get(after.id);
      if (!before)
        return {
          action: after.password === null && after.oidc === null ? 'user.invited' : 'user.created',
          target,
          after: pick(after, USER_SHOWN),
        };
      const changed = changedFields(USER_SHOWN, pick(before, USER_SHOWN), pick(after, USER_SHOWN));
      // The password is named as changed, never shown.
      if (after.password !== before.password)
        return {
          action: before.password === null ? 'invitation.accepted' : 'password.changed',
          target,
          ...changed,
        };
      if (after.oidc !== null && before.oidc?.subject !== after.oidc.subject)
        return { action: 'user.linked', target, after: { ...changed?.after, issuer: after.oidc.issuer } };
      return changed && { action: 'user.updated', target, ...changed };
    }
    case 'user-del': {
      const before = people.users.get(op.id);
      return (
        before && {
          action: 'user.removed',
          target: { kind: 'user', key: op.id },
          before: pick(before, USER_SHOWN),
        }
      );
    }
    case 'invite':
      if (people.invitations.has(op.invitation.digest)) return undefined;
      return {
        action: 'user.reinvited',
        target: { kind: 'user', key: op.invitation.user },
        after: { expiresAt: new Date(op.invitation.expires).toISOString() },
      };
    case 'pat': {
      const { token } = op;
      if (people.tokens.has(token.id)) return undefined;
      return {
        action: 'token.created',
        target: { kind: 'token', key: token.id },
        after: { name: token.name, user: token.user, expiresAt: token.expiresAt },
      };
    }
    case 'pat-del': {
      const token = people.tokens.get(op.id);
      return (
        token && {
          action: 'token.revoked',
          target: { kind: 'token', key: op.id },
          before: { name: token.name, user: token.user },
        }
      );
    }
    default:
      return undefined;
  }
}

export const peopleDomain: Domain<PeopleOp> = {
  kinds: ['user', 'user-del', 'invite', 'invite-del', 'login', 'logout', 'seen', 'pat', 'pat-del'],

  apply: applyPeopleOp,

  // `seen`'s `at` is when the session was seen, not an audit stamp: it is never audited.
  auditOf: (db, op) => (op.t === 'seen' ? undefined : stampedRecord(op, peopleAudit(db, op))),

  capture(db, scope) {
    if (scope !== '') return () => {};
    const { people } = db;
    const users = new Map(people.users);
    const invitations = new Map(people.invitations);
    const sessions = new Map(people.sessions);
    const tokens = new Map(people.tokens);
    const tokenIds = new Map(people.tokenIds);
    return () => {
      refill(people.users, users);
      refill(people.invitations, invitations);
      refill(people.sessions, sessions);
      refill(people.tokens, tokens);
      refill(people.tokenIds, tokenIds);
    };
  },

  sharedPart(db): PeopleSnapshot {
    const { people } = db;
    prunePeople(people);
    if (people.users.size === 0 && people.sessions.size === 0) return {};
    return {
      people: {
        users: [...people.users.values()],
        invitations: [...people.invitations.values()],
        sessions: [...people.sessions.values()],
        tokens: [...people.tokens.values()],
      },
    };
  },

  sharedFromPart(db, piece: Piece) {
    const data = (piece as PeopleSnapshot).people;
    if (!data) return;
    const { people } = db;
    for (const user of data.users ?? []) people.users.set(user.id, user);
    for (const invitation of data.invitations ?? []) people.invitations.set(invitation.digest, invitation);
    for (const session of data.sessions ?? []) people.sessions.set(session.id, session);
    for (const token of data.tokens ?? []) {
      people.tokens.set(token.id, token);
      people.tokenIds.set(token.digest, token.id);
    }
    prunePeople(people);
  },
};
