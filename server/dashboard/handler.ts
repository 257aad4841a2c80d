/**
 * The dashboard's share of the request pipeline (`docs/protocol.md` §10): the page and its
 * files, the session endpoints, and the admin API, authenticated by the admin credential with
 * the CSRF rule. An environment's flags and webhooks go to the very routes of `/api/v1`, as
 * the dashboard (`actor: dashboard` in the history).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../errors.js';
import { invokeRoute } from '../http/app.js';
import { readJsonBody } from '../http/body.js';
import { sendEmpty, sendJson } from '../http/respond.js';
import { decodeSegment, matchRoute, type Route } from '../http/router.js';
import type { AdminService } from '../state/admin-service.js';
import type { Grant } from '../state/key-ring.js';
import type { AdminGrant } from './routes.js';
import { AdminAuth, isSameOrigin } from './session.js';
import type { DashboardAssets } from './static.js';

const PREFIX = '/admin/api/';
const ENV_SCOPE = /^environments\/([^/]+)\/([^/]+)\/(.+)$/;
const ADMIN: AdminGrant = { access: 'full' };

/** Headers of every admin API answer. */
const ADMIN_HEADERS: Record<string, string> = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

export const adminUnauthorized = () =>
  new ApiError(401, 'UNAUTHORIZED', 'missing or invalid admin credential: sign in with the admin token');

export interface DashboardHandlerDeps {
  auth: AdminAuth;
  admin: AdminService;
  assets: DashboardAssets;
  /** The admin API's own routes (`./routes.ts`). */
  routes: readonly Route<AdminGrant>[];
  /** The flag and webhook routes of `/api/v1`. */
  envRoutes: readonly Route[];
}

/** Answers the dashboard's paths; `false` for any other path (the API's). */
export function createDashboardHandler(deps: DashboardHandlerDeps) {
  const { auth, admin, assets, routes, envRoutes } = deps;

  function session(req: IncomingMessage, res: ServerResponse): Promise<void> | void {
    switch (req.method) {
      case 'GET':
      case 'HEAD':
        if (!auth.authenticate(req)) throw adminUnauthorized();
        return sendJson(res, 200, { signedIn: true }, ADMIN_HEADERS);
      case 'POST':
        if (!isSameOrigin(req)) throw crossOrigin();
        return readJsonBody(req).then((body) => {
          const token =
            typeof body === 'object' && body !== null ? (body as { token?: unknown }).token : undefined;
          if (!auth.isToken(token)) throw new ApiError(401, 'UNAUTHORIZED', 'that is not the admin token');
          sendEmpty(res, 204, { ...ADMIN_HEADERS, 'set-cookie': auth.newSessionCookie() });
        });
      case 'DELETE':
        if (!isSameOrigin(req) && auth.authenticate(req) !== 'bearer') throw crossOrigin();
        return sendEmpty(res, 204, { ...ADMIN_HEADERS, 'set-cookie': AdminAuth.clearCookie() });
      default:
        throw new ApiError(405, 'METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${PREFIX}session`, {
          allow: 'GET, HEAD, POST, DELETE',
        });
    }
  }

  return (
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    query: string,
  ): Promise<void> | void | false => {
    if (!path.startsWith(PREFIX)) {
      if (req.method !== 'GET' && req.method !== 'HEAD') return false;
      return assets.serve(req, res, path) ? undefined : false;
    }
    const rest = path.slice(PREFIX.length).replace(/\/$/, '');
    if (rest === 'session') return session(req, res);
    const how = auth.authenticate(req);
    if (!how) throw adminUnauthorized();
    const changes = req.method !== 'GET' && req.method !== 'HEAD';
    if (changes && how === 'cookie' && !isSameOrigin(req)) throw crossOrigin();
    for (const [name, value] of Object.entries(ADMIN_HEADERS)) res.setHeader(name, value);

    const scoped = ENV_SCOPE.exec(rest);
    if (scoped && !/^(keys|history)(\/|$)/.test(scoped[3]!)) {
      const env = admin.environment(decodeSegment(scoped[1]!), decodeSegment(scoped[2]!));
      const match = matchRoute(envRoutes, `/api/v1/${scoped[3]}`);
      if (!match) throw new ApiError(404, 'NOT_FOUND', `no admin route for ${JSON.stringify(path)}`);
      const grant: Grant = {
        env,
        access: 'full',
        id: 'dashboard',
        source: 'dashboard',
        actor: { type: 'dashboard' },
        createdAt: null,
        revoked: false,
      };
      return invokeRoute(match.route, match.params, grant, req, res, path, query);
    }
    const match = matchRoute(routes, `/${rest}`);
    if (!match) throw new ApiError(404, 'NOT_FOUND', `no admin route for ${JSON.stringify(path)}`);
    return invokeRoute(match.route, match.params, ADMIN, req, res, path, query);
  };
}

const crossOrigin = () =>
  new ApiError(403, 'FORBIDDEN', 'cross-origin request refused: the admin API answers its own pages only');
