/**
 * `/admin/api/session` (`docs/protocol.md` §10.2, §10.6): signing in (an e-mail address and
 * password, or the admin token) for a session kept on the server and its cookie, who is signed
 * in, signing out. The route takes no credential of its own (it is how one gets one): each
 * method checks what it needs, the `Origin` of a sign-in or a sign-out (CSRF) before anything
 * else. A failed sign-in answers the same whether the address is unknown or the password wrong
 * (and costs the same: one scrypt either way); failures are throttled per account and per
 * address (`429` with `Retry-After`, also for the right password while it lasts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SessionAnswer } from '../../src/core/admin-wire.js';
import { SessionAnswer as SessionAnswerSchema, SessionInput } from '../../src/core/schemas/admin.js';
import { ApiError, checked } from '../errors.js';
import { readJsonBody } from '../http/body.js';
import { errorAnswer, ok } from '../http/openapi.js';
import { sendEmpty, sendJson } from '../http/respond.js';
import { defineRoute, type Route } from '../http/router.js';
import type { SessionService } from '../state/admin/session-service.js';
import type { StoredSession, StoredUser } from '../state/kernel/model.js';
import { normalEmail, type PeopleService } from '../state/people/people-service.js';
import type { Principal } from './principal.js';
import type { AdminGrant } from './routes.js';
import { AdminAuth, isKeptSession } from './session.js';
import type { SignInThrottle } from './sign-in-throttle.js';
import { sessionUser } from './views.js';

export const adminUnauthorized = () =>
  new ApiError(
    401,
    'UNAUTHORIZED',
    'missing or invalid admin credential: sign in, or send a token as a bearer',
  );

export const crossOrigin = () =>
  new ApiError(403, 'FORBIDDEN', 'cross-origin request refused: the admin API answers its own pages only');

/** The one answer to a failed password sign-in, whatever failed. */
const signInRefused = () =>
  new ApiError(401, 'UNAUTHORIZED', 'that e-mail address and password do not match');

export interface SessionRouteDeps {
  auth: AdminAuth;
  /** Sessions from before accounts, ended on the server. */
  sessions: SessionService;
  people: PeopleService;
  throttle: SignInThrottle;
  /** Whether the request's `Origin` is one of the server's own. */
  isSameOrigin: (req: IncomingMessage) => boolean;
  /** Who the request is (`./principal.ts`), or not signed in. */
  identify: (req: IncomingMessage) => Promise<Principal | undefined>;
}

const CROSS_ORIGIN = errorAnswer("`FORBIDDEN`: not from the server's own `Origin` (CSRF).");
const SET_COOKIE = 'The session cookie (`Set-Cookie: flagwire_admin=...; HttpOnly; SameSite=Strict`)';

/** The answer naming who `principal` is. */
export function sessionAnswer(principal: Pick<Principal, 'user' | 'via'>): SessionAnswer {
  return { signedIn: true, user: principal.user && sessionUser(principal.user), via: principal.via };
}

/** Password checks one client address may have running at once. */
const CHECKS_PER_ADDRESS = 2;
/** Password checks the server runs at once. */
const CHECKS_AT_ONCE = 4;

/** The request's client address, for throttling. */
const addressOf = (req: IncomingMessage): string => req.socket.remoteAddress ?? 'unknown';

/** The session route: answered by the admin API's handler before any credential is asked for. */
export function sessionRoute(deps: SessionRouteDeps): Route<AdminGrant> {
  const { auth, sessions, people, throttle, isSameOrigin, identify } = deps;
  /** Accounts whose password is being checked now, and how many checks each address has running. */
  const verifying = new Set<string>();
  const fromAddress = new Map<string, number>();

  /** Answers a new session: its cookie, and who it signs in. */
  function signedIn(res: ServerResponse, session: StoredSession, principal: Pick<Principal, 'user' | 'via'>) {
    const cookie = auth.cookieOf({ id: session.id, expires: session.expires, person: session.user !== null });
    sendJson(res, 200, sessionAnswer(principal), { 'set-cookie': cookie });
  }

  return defineRoute<AdminGrant>(
    'session',
    {
      GET: {
        readOnly: true,
        body: false,
        action: 'read the session',
        doc: {
          summary: 'Who the request is signed in as',
          answers: {
            200: ok(
              'Signed in (by the session cookie, a personal token or the admin token)',
              SessionAnswerSchema,
            ),
            401: errorAnswer('`UNAUTHORIZED`: not signed in.'),
          },
        },
        handler: async ({ req, res }) => {
          const principal = await identify(req);
          if (!principal) throw adminUnauthorized();
          sendJson(res, 200, sessionAnswer(principal));
        },
      },
      POST: {
        readOnly: false,
        // Read here, after the `Origin` is checked: a foreign page learns nothing from the body.
        body: false,
        action: 'sign in',
        doc: {
          summary: 'Sign in: an e-mail address and password, or the admin token, for the session cookie',
          description: `${SET_COOKIE}. Only from the server's own \`Origin\`. A session ends after 12 hours unused, a week after it began, or when signed out.`,
          body: SessionInput,
          answers: {
            200: { ...ok('Signed in', SessionAnswerSchema), description: `Signed in: ${SET_COOKIE}` },
            400: errorAnswer('`INVALID_JSON` or `VALIDATION_ERROR`: the body is not a sign-in.'),
            401: errorAnswer(
              '`UNAUTHORIZED`: that e-mail address and password do not match, or that is not the admin token.',
            ),
            403: CROSS_ORIGIN,
            413: errorAnswer('`PAYLOAD_TOO_LARGE`: the body is over its limit.'),
            415: errorAnswer('`UNSUPPORTED_MEDIA_TYPE`: the body is not `application/json`.'),
            429: errorAnswer(
              '`RATE_LIMITED`: too many failed sign-ins for that account or from that address, or one for that account is being checked now; `Retry-After` says when to try again.',
            ),
          },
        },
        handler: async ({ req, res }) => {
          if (!isSameOrigin(req)) throw crossOrigin();
          const body = checked(SessionInput, await readJsonBody(req));
          if ('token' in body) {
            if (!auth.isToken(body.token))
              throw new ApiError(401, 'UNAUTHORIZED', 'that is not the admin token');
            const principal = { user: null, via: 'adminToken' as const };
            return signedIn(res, await people.startSession(null, 'adminToken'), principal);
          }
          const address = addressOf(req);
          const account = normalEmail(body.email);
          // One check at a time per account, two per address, four in all (each scrypt holds 128 MiB):
          // a burst sent at once cannot outrun the count of failures, nor the server's memory.
          const running = fromAddress.get(address) ?? 0;
          const busy =
            verifying.has(account) || running >= CHECKS_PER_ADDRESS || verifying.size >= CHECKS_AT_ONCE;
          const wait = busy ? 1 : throttle.retryAfter(account, address);
          if (wait > 0)
            throw new ApiError(429, 'RATE_LIMITED', `too many sign-ins: try again in ${wait} s`, {
              'retry-after': String(wait),
            });
          verifying.add(account);
          fromAddress.set(address, running + 1);
          let user: StoredUser | undefined;
          try {
            user = await people.verify(account, body.password);
          } finally {
            verifying.delete(account);
            const left = (fromAddress.get(address) ?? 1) - 1;
            if (left > 0) fromAddress.set(address, left);
            else fromAddress.delete(address);
          }
          if (!user) {
            throttle.failed(account, address);
            throw signInRefused();
          }
          throttle.succeeded(account);
          signedIn(res, await people.startSession(user.id, 'password'), { user, via: 'password' });
        },
      },
      DELETE: {
        readOnly: false,
        body: false,
        action: 'sign out',
        doc: {
          summary: "Sign out: the request's session ends on the server, its cookie is cleared",
          description: "From the server's own `Origin`, or with the admin token as a bearer.",
          answers: { 204: { description: 'Signed out (also when it was not signed in)' }, 403: CROSS_ORIGIN },
        },
        handler: async ({ req, res }) => signOut(req, res),
      },
    },
    true,
    true,
  );

  /** Signs out: the request's session, if it has one, is ended on the server, then its cookie cleared. */
  async function signOut(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!isSameOrigin(req) && !auth.isBearer(req)) throw crossOrigin();
    const session = auth.sessionOf(req);
    if (session && isKeptSession(session.id)) await people.endSession(session.id);
    else if (session) await sessions.end(session.id, session.expires, AdminAuth.expiryAt());
    sendEmpty(res, 204, { 'set-cookie': AdminAuth.clearCookie() });
  }
}
