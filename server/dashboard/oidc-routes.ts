/**
 * Single sign-on's routes (`docs/protocol.md` §10.6): the browser's `GET /admin/oidc/login` and
 * `GET /admin/oidc/callback` (redirects, `./oidc.ts`), and the admin API's anonymous
 * `GET /admin/api/sso`, which tells the sign-in screen whether to offer single sign-on.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../errors.js';
import { ok } from '../http/openapi.js';
import { sendJson } from '../http/respond.js';
import { defineRoute, type Route } from '../http/router.js';
import { OIDC_CALLBACK, OIDC_LOGIN, OIDC_PATH, type OidcRelyingParty } from './oidc.js';
import type { AdminGrant } from './routes.js';

/** `GET /admin/api/sso`'s answer. */
const SsoAnswer = Type.Object(
  {
    enabled: Type.Boolean({ description: 'Whether the server is configured for single sign-on (OIDC).' }),
    loginUrl: Type.Union([Type.Literal(OIDC_LOGIN), Type.Null()], {
      description:
        'Where the browser goes to sign in through the identity provider (a top-level navigation, not a fetch); `null` without single sign-on.',
    }),
  },
  { additionalProperties: false, description: 'Whether single sign-on is offered, and where it starts.' },
);

/** `GET /admin/api/sso`: answered before any credential is asked for. */
export function ssoRoute(oidc: OidcRelyingParty | undefined): Route<AdminGrant> {
  const answer = { enabled: oidc !== undefined, loginUrl: oidc ? OIDC_LOGIN : null };
  return defineRoute<AdminGrant>(
    'sso',
    {
      GET: {
        readOnly: true,
        body: false,
        action: 'read the ways to sign in',
        doc: {
          summary: 'Whether single sign-on (OIDC) is offered, and where it starts',
          description:
            'Needs no credential. `GET /admin/oidc/login` (`loginUrl`) sends the browser to the identity provider; ' +
            'back at `GET /admin/oidc/callback` the person is signed in (the session cookie) and sent to `/`, or ' +
            'sent to `/#sso-error=<message>`.',
          answers: { 200: ok('The ways to sign in besides a password and the admin token', SsoAnswer) },
        },
        handler: ({ res }) => sendJson(res, 200, answer),
      },
    },
    true,
    true,
  );
}

/** Whether `path` is one of single sign-on's browser routes (`/admin/oidc/...`). */
export const isOidcPath = (path: string): boolean => path === OIDC_PATH || path.startsWith(`${OIDC_PATH}/`);

/** Answers `/admin/oidc/login` and `/admin/oidc/callback`; `404` without single sign-on. */
export function answerOidc(
  oidc: OidcRelyingParty | undefined,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  query: string,
): Promise<void> {
  const route = path.replace(/\/$/, '');
  if (!oidc || (route !== OIDC_LOGIN && route !== OIDC_CALLBACK))
    throw new ApiError(
      404,
      'NOT_FOUND',
      oidc ? `no route for ${JSON.stringify(path)}` : 'single sign-on is not configured on this server',
    );
  // Not even `HEAD`: a callback is used once, and a login remembers a sign-in.
  if (req.method !== 'GET')
    throw new ApiError(405, 'METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${path}; allowed: GET`, {
      allow: 'GET',
    });
  return route === OIDC_LOGIN ? oidc.login(req, res, query) : oidc.callback(req, res, query);
}
