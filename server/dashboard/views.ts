/** People as the admin API answers them (`docs/protocol.md` §10.6): never a password or a digest. */
import type { SessionUser, SessionView, TokenView, User } from '../../src/core/wire/people.js';
import type { StoredSession, StoredToken, StoredUser } from '../state/kernel/model.js';

const iso = (seconds: number): string => new Date(seconds * 1000).toISOString();

export function userView(user: StoredUser): User {
  const status = user.disabled
    ? 'disabled'
    : user.password === null && user.oidc === null
      ? 'invited'
      : 'active';
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    projects: user.projects,
    disabled: user.disabled,
    status,
    sso: user.oidc !== null,
    createdAt: user.createdAt,
  };
}

export function sessionUser(user: StoredUser): SessionUser {
  return { id: user.id, email: user.email, name: user.name, role: user.role, projects: user.projects };
}

export function tokenView(token: StoredToken): TokenView {
  return {
    id: token.id,
    name: token.name,
    user: token.user,
    createdAt: token.createdAt,
    expiresAt: token.expiresAt,
  };
}

export function sessionView(session: StoredSession, currentId: string | undefined): SessionView {
  return {
    id: session.id,
    via: session.via,
    createdAt: iso(session.createdAt),
    lastSeenAt: iso(session.seen),
    expiresAt: iso(session.expires),
    current: session.id === currentId,
  };
}
