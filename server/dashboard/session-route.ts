/**
 * `/admin/api/session` (`docs/protocol.md` §10.2): the admin token exchanged for the session
 * cookie, whether one is signed in, signing out. The route takes no credential of its own (it is
 * how one gets one): each method checks what it needs, the `Origin` of a sign-in or a sign-out
 * (CSRF) before anything else.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SessionAnswer } from '../../src/core/admin-wire.js';
import { SessionAnswer as SessionAnswerSchema, SessionInput } from '../../src/core/schemas/admin.js';
import { ApiError } from '../errors.js';
import { readJsonBody } from '../http/body.js';
import { errorAnswer, ok } from '../http/openapi.js';
import { sendEmpty, sendJson } from '../http/respond.js';
import { defineRoute, type Route } from '../http/router.js';
import type { SessionService } from '../state/admin/session-service.js';
import type { AdminGrant } from './routes.js';
import { AdminAuth } from './session.js';

export const adminUnauthorized = () =>
  new ApiError(401, 'UNAUTHORIZED', 'missing or invalid admin credential: sign in with the admin token');

export const crossOrigin = () =>
  new ApiError(403, 'FORBIDDEN', 'cross-origin request refused: the admin API answers its own pages only');

export interface SessionRouteDeps {
  auth: AdminAuth;
  sessions: SessionService;
  /** Whether the request's `Origin` is one of the server's own. */
  isSameOrigin: (req: IncomingMessage) => boolean;
  /** How the request is authenticated (a session checked against every sign-out), or not. */
  authenticated: (req: IncomingMessage) => Promise<'cookie' | 'bearer' | undefined>;
}

const CROSS_ORIGIN = errorAnswer("`FORBIDDEN`: not from the server's own `Origin` (CSRF).");
const SET_COOKIE = 'The session cookie (`Set-Cookie: flagwire_admin=...; HttpOnly; SameSite=Strict`)';

/** The session route: answered by the admin API's handler before any credential is asked for. */
export function sessionRoute(deps: SessionRouteDeps): Route<AdminGrant> {
  const { auth, sessions, isSameOrigin, authenticated } = deps;
  return defineRoute<AdminGrant>(
    'session',
    {
      GET: {
        readOnly: true,
        body: false,
        action: 'read the session',
        doc: {
          summary: 'Whether the request is signed in',
          answers: {
            200: ok('Signed in (by the session cookie or the admin token)', SessionAnswerSchema),
            401: errorAnswer('`UNAUTHORIZED`: not signed in.'),
          },
        },
        handler: async ({ req, res }) => {
          if (!(await authenticated(req))) throw adminUnauthorized();
          sendJson(res, 200, { signedIn: true } satisfies SessionAnswer);
        },
      },
      POST: {
        readOnly: false,
        // Read here, after the `Origin` is checked: a foreign page learns nothing from the body.
        body: false,
        action: 'sign in',
        doc: {
          summary: 'Sign in: the admin token for the session cookie',
          description: `${SET_COOKIE}, valid for a week. Only from the server's own \`Origin\`.`,
          body: SessionInput,
          answers: {
            204: { description: `Signed in: ${SET_COOKIE}` },
            400: errorAnswer('`INVALID_JSON`: the body is not JSON.'),
            401: errorAnswer('`UNAUTHORIZED`: that is not the admin token.'),
            403: CROSS_ORIGIN,
            413: errorAnswer('`PAYLOAD_TOO_LARGE`: the body is over its limit.'),
            415: errorAnswer('`UNSUPPORTED_MEDIA_TYPE`: the body is not `application/json`.'),
          },
        },
        handler: async ({ req, res }) => {
          if (!isSameOrigin(req)) throw crossOrigin();
          const body = await readJsonBody(req);
          const token =
            typeof body === 'object' && body !== null ? (body as { token?: unknown }).token : undefined;
          if (!auth.isToken(token)) throw new ApiError(401, 'UNAUTHORIZED', 'that is not the admin token');
          sendEmpty(res, 204, { 'set-cookie': auth.newSessionCookie() });
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
    if (session) await sessions.end(session.id, session.expires, AdminAuth.expiryAt());
    sendEmpty(res, 204, { 'set-cookie': AdminAuth.clearCookie() });
  }
}
