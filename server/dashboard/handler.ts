/**
 * The dashboard's share of the request pipeline (`docs/protocol.md` §10): the page and its
 * files, the session endpoints, and the admin API, authenticated by the admin credential with
 * the CSRF rule. An environment's flags and webhooks go to the very routes of `/api/v1`, as
 * the dashboard (`actor: dashboard` in the history).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../errors.js';
import { invokeRoute } from '../http/app.js';
import { type Authenticated, decodeSegment, matchRoute, type Route } from '../http/router.js';
import type { AdminService } from '../state/admin/admin-service.js';
import type { Grant } from '../state/admin/key-ring.js';
import type { SessionService } from '../state/admin/session-service.js';
import { adminApiRoutes, adminDocumentRoute } from './document.js';
import type { OwnOrigins } from './origins.js';
import type { AdminGrant } from './routes.js';
import type { AdminAuth, Session } from './session.js';
import { adminUnauthorized, crossOrigin, sessionRoute } from './session-route.js';
import type { DashboardAssets } from './static.js';

const PREFIX = '/admin/api/';
const ENV_SCOPE = /^environments\/([^/]+)\/([^/]+)\/(.+)$/;
const ADMIN: AdminGrant = { access: 'full' };

/** Headers of every admin API answer. */
const ADMIN_HEADERS: Record<string, string> = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

export interface DashboardHandlerDeps {
  auth: AdminAuth;
  /** Sessions signed out on the server. */
  sessions: SessionService;
  /** The origins a request's `Origin` must name (CSRF). */
  origins: OwnOrigins;
  admin: AdminService;
  assets: DashboardAssets;
  /** The admin API's own routes (`./routes.ts`). */
  routes: readonly Route<AdminGrant>[];
  /** The flag and webhook routes of `/api/v1`. */
  envRoutes: readonly Route[];
}

/** The dashboard's handler: `false` for a path not its own (the API's). */
export type DashboardHandler = ((
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  query: string,
) => Promise<void> | void | false) & {
  /** The admin API's routes as its document lists them (`./document.ts`). */
  readonly routes: readonly Route<Authenticated>[];
};

/** Answers the dashboard's paths; `false` for any other path (the API's). */
export function createDashboardHandler(deps: DashboardHandlerDeps): DashboardHandler {
  const { auth, sessions, origins, admin, assets, envRoutes } = deps;
  const isSameOrigin = (req: IncomingMessage) => origins.matches(req);
  const streams = new SessionStreams();
  sessions.onEnded((id, endedBefore) => streams.end(id, endedBefore));

  /**
   * How the request is authenticated. A session is checked again against every sign-out
   * committed so far, by any instance (a settled read), before it is trusted.
   */
  async function authenticated(req: IncomingMessage): Promise<'cookie' | 'bearer' | undefined> {
    const how = auth.authenticate(req);
    return how === 'cookie' ? sessions.settled(() => auth.authenticate(req)) : how;
  }

  const signIn = sessionRoute({ auth, sessions, isSameOrigin, authenticated });
  const document = adminDocumentRoute(() => served);
  const routes = [document, ...deps.routes];
  // What the admin API serves, as its document lists it.
  const served = adminApiRoutes([signIn, ...routes], envRoutes as readonly Route<Authenticated>[]);

  /** An admin API request but the session endpoints. */
  async function adminApi(req: IncomingMessage, res: ServerResponse, path: string, query: string) {
    const rest = path.slice(PREFIX.length).replace(/\/$/, '');
    const how = await authenticated(req);
    if (!how) throw adminUnauthorized();
    const changes = req.method !== 'GET' && req.method !== 'HEAD';
    if (changes && how === 'cookie' && !isSameOrigin(req)) throw crossOrigin();
    // The event stream of a session is ended when the session is, by whichever instance.
    const session = how === 'cookie' && rest === 'events' ? auth.sessionOf(req) : undefined;
    if (session) streams.add(session, res);
    for (const [name, value] of Object.entries(ADMIN_HEADERS)) res.setHeader(name, value);

    const scoped = ENV_SCOPE.exec(rest);
    // The admin API's own: keys, history, and the list of flags with their versions (`./routes.ts`).
    const own = /^(keys|history)(\/|$)/.test(scoped?.[3] ?? '') || (scoped?.[3] === 'flags' && !changes);
    if (scoped && !own) {
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
  }

  const handle = (
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    query: string,
  ): Promise<void> | void | false => {
    if (!path.startsWith(PREFIX)) {
      if (req.method !== 'GET' && req.method !== 'HEAD') return false;
      return assets.serve(req, res, path) ? undefined : false;
    }
    if (path.slice(PREFIX.length).replace(/\/$/, '') === 'session') {
      for (const [name, value] of Object.entries(ADMIN_HEADERS)) res.setHeader(name, value);
      return invokeRoute(signIn, {}, ADMIN, req, res, path, query);
    }
    return adminApi(req, res, path, query);
  };
  return Object.assign(handle, { routes: served });
}

/** Open event streams, by the session that authenticated them. */
class SessionStreams {
  readonly #bySession = new Map<string, { expires: number; answers: Set<ServerResponse> }>();

  add(session: Session, res: ServerResponse): void {
    let entry = this.#bySession.get(session.id);
    if (!entry) {
      entry = { expires: session.expires, answers: new Set() };
      this.#bySession.set(session.id, entry);
    }
    const { answers } = entry;
    answers.add(res);
    res.once('close', () => {
      answers.delete(res);
      if (answers.size === 0 && this.#bySession.get(session.id) === entry) this.#bySession.delete(session.id);
    });
  }

  /** Ends the streams of session `id`, and of every session expiring before `endedBefore`. */
  end(id: string, endedBefore: number | undefined): void {
    for (const [sessionId, { expires, answers }] of this.#bySession) {
      if (sessionId !== id && (endedBefore === undefined || expires >= endedBefore)) continue;
      this.#bySession.delete(sessionId);
      // Ended cleanly (the stream's last chunk), as at shutdown: the page sees a stream that ended.
      for (const res of answers) res.end();
    }
  }
}
