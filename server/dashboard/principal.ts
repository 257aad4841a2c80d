/**
 * Who an admin API request is (`docs/protocol.md` §10.6): the admin token (as a bearer or a
 * session it signed in), a person signed in by a session kept on the server, or a personal access
 * token acting as its user. What they may do is their role: the admin token is an admin, a user
 * their global role or, inside a project, their role there. Every person and token is read from
 * memory holding every change committed so far by any instance (a settled read), so a disabled
 * user, a revoked token or an ended session stops at its next request, whichever instance it
 * reaches.
 */
import type { IncomingMessage } from 'node:http';
import { bearerOf } from '../state/admin/key-ring.js';
import { ADMIN_TOKEN_ACTOR } from '../state/kernel/actors.js';
import type { Actor, Role, SignedInVia, StoredToken, StoredUser } from '../state/kernel/model.js';
import { type PeopleService, roleIn, type SignedIn } from '../state/people/people-service.js';
import { type AdminAuth, isKeptSession, type Session } from './session.js';

/** The role each role includes: an admin may do what an editor may, an editor what a viewer may. */
const RANK: Record<Role, number> = { viewer: 0, editor: 1, admin: 2 };

export const roleAtLeast = (role: Role, needed: Role): boolean => RANK[role] >= RANK[needed];

export interface Principal {
  via: SignedInVia;
  /** The person; `null` for the admin token. */
  user: StoredUser | null;
  /** Who the history, the audit log and webhook payloads name. */
  actor: Actor;
  /** How the credential came: a cookie (so the CSRF rule applies) or a bearer. */
  by: 'cookie' | 'bearer';
  /** The session the cookie names. */
  session?: Session;
  /** The personal token presented. */
  token?: StoredToken;
}

/** The principal's role inside `project` (their global role for what spans projects). */
export function roleOf(principal: Principal, project?: string): Role {
  return principal.user === null ? 'admin' : roleIn(principal.user, project);
}

/** The admin token's principal. */
function adminToken(by: 'cookie' | 'bearer', session?: Session): Principal {
  return { via: 'adminToken', user: null, actor: ADMIN_TOKEN_ACTOR, by, ...(session && { session }) };
}

function personOf(signedIn: SignedIn, by: 'cookie' | 'bearer', session?: Session): Principal {
  const { user, token } = signedIn;
  if (user === null) return adminToken(by, session);
  const actor: Actor = token
    ? { type: 'token', id: token.id, name: token.name, user: { id: user.id, name: user.name } }
    : { type: 'user', id: user.id, name: user.name };
  return { via: signedIn.via, user, actor, by, ...(session && { session }), ...(token && { token }) };
}

export interface Identify {
  auth: AdminAuth;
  people: PeopleService;
  /** Whether a session from before accounts (not kept on the server) was signed out, as of a settled read. */
  legacyLive: (req: IncomingMessage) => Promise<boolean>;
}

/** Who the request is, or `undefined`: no credential, or none that may act now. */
export async function identify(req: IncomingMessage, deps: Identify): Promise<Principal | undefined> {
  const { auth, people } = deps;
  const bearer = bearerOf(req.headers.authorization);
  if (bearer !== undefined) {
    if (auth.isToken(bearer)) return adminToken('bearer');
    const signedIn = await people.settled(() => people.bearer(bearer));
    return signedIn && personOf(signedIn, 'bearer');
  }
  const session = auth.sessionOf(req);
  if (!session) return undefined;
  if (!isKeptSession(session.id))
    return (await deps.legacyLive(req)) ? adminToken('cookie', session) : undefined;
  const signedIn = await people.settled(() => people.session(session.id));
  // A person's session is signed with the people key, the admin token's with the token's own.
  if (!signedIn || (signedIn.user !== null) !== (session.person === true)) return undefined;
  return personOf(signedIn, 'cookie', session);
}
