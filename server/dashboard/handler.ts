/**
 * The dashboard's share of the request pipeline (`docs/protocol.md` §10): the page and its
 * files, the session endpoints, and the admin API, authenticated by the admin credential with
 * the CSRF rule. An environment's flags and webhooks go to the very routes of `/api/v1`, as
 * the dashboard (`actor: dashboard` in the history).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../errors.js';
import { invokeRoute } from '../http/app.js';
import {
  type Authenticated,
  decodeSegment,
  leastRole,
  type MethodSpec,
  matchRoute,
  type Route,
} from '../http/router.js';
import type { AdminService } from '../state/admin/admin-service.js';
import type { Grant } from '../state/admin/key-ring.js';
import type { SessionService } from '../state/admin/session-service.js';
import { ADMIN_TOKEN_ACTOR } from '../state/kernel/actors.js';
import type { Role } from '../state/kernel/model.js';
import type { BaseOp } from '../state/kernel/ops.js';
import type { PeopleOp } from '../state/people/ops.js';
import type { PeopleService } from '../state/people/people-service.js';
import { adminApiRoutes, adminDocumentRoute } from './document.js';
import type { OidcRelyingParty } from './oidc.js';
import { answerOidc, isOidcPath, ssoRoute } from './oidc-routes.js';
import type { OwnOrigins } from './origins.js';
import { invitationRoute } from './people-routes.js';
import { identify as identifyRequest, type Principal, roleAtLeast, roleOf } from './principal.js';
import type { AdminGrant } from './routes.js';
import type { AdminAuth, Session } from './session.js';
import { adminUnauthorized, crossOrigin, sessionRoute } from './session-route.js';
import type { SignInThrottle } from './sign-in-throttle.js';
import type { DashboardAssets } from './static.js';

const PREFIX = '/admin/api/';
const ENV_SCOPE = /^environments\/([^/]+)\/([^/]+)\/(.+)$/;
/** The project a route's path names, for the role inside it. */
const PROJECT_OF = /^(?:environments|projects)\/([^/]+)/;

/** Headers of every admin API answer. */
const ADMIN_HEADERS: Record<string, string> = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

/** The grant of the routes answered before any credential is asked for (they check their own). */
const NOBODY: AdminGrant = {
  access: 'full',
  actor: ADMIN_TOKEN_ACTOR,
  principal: { via: 'adminToken', user: null, actor: ADMIN_TOKEN_ACTOR, by: 'bearer' },
  require() {},
};

export interface DashboardHandlerDeps {
  auth: AdminAuth;
  /** Sessions from before accounts, signed out on the server. */
  sessions: SessionService;
  people: PeopleService;
  throttle: SignInThrottle;
  /** The origins a request's `Origin` must name (CSRF). */
  origins: OwnOrigins;
  admin: AdminService;
  assets: DashboardAssets;
  /** The admin API's own routes (`./routes.ts`, `./people-routes.ts`). */
  routes: readonly Route<AdminGrant>[];
  /** The flag and webhook routes of `/api/v1`. */
  envRoutes: readonly Route[];
  /** Single sign-on (`./oidc.ts`); none without it. */
  oidc?: OidcRelyingParty | undefined;
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
  /** Follows every committed op (`Applier.onCommitted`): ends the event streams of sessions that ended. */
  readonly committed: (op: BaseOp) => void;
};

/**
 * Refuses (`403` naming the role needed) unless the principal's role inside `project` is at
 * least `needed` (`docs/protocol.md` §10.6).
 */
function requireRole(principal: Principal, needed: Role, action: string, project: string | undefined): void {
  const has = roleOf(principal, project);
  if (roleAtLeast(has, needed)) return;
  const where = project === undefined ? '' : ` in project ${JSON.stringify(project)}`;
  throw new ApiError(
    403,
    'FORBIDDEN',
    `cannot ${action}: needs the ${needed} role${where}; you are ${has === 'viewer' ? 'a' : 'an'} ${has}`,
  );
}

/** Refuses the request unless its principal's role allows the method it calls (when there is one). */
function requireSpecRole(
  principal: Principal,
  spec: MethodSpec<never> | undefined,
  project: string | undefined,
) {
  if (spec) requireRole(principal, leastRole(spec), spec.action, project);
}

const specOf = <G extends Authenticated>(route: Route<G>, method: string | undefined) =>
  route.methods[method === 'HEAD' ? 'GET' : (method ?? 'GET')];

/** Answers the dashboard's paths; `false` for any other path (the API's). */
export function createDashboardHandler(deps: DashboardHandlerDeps): DashboardHandler {
  const { auth, sessions, people, throttle, origins, admin, assets, envRoutes } = deps;
  const isSameOrigin = (req: IncomingMessage) => origins.matches(req);
  const streams = new SessionStreams();
  sessions.onEnded((id, endedBefore) => streams.end(id, endedBefore));

  /** Who the request is; a session is checked again against every sign-out committed so far, by any instance. */
  const identify = (req: IncomingMessage): Promise<Principal | undefined> =>
    identifyRequest(req, {
      auth,
      people,
      legacyLive: (r) => sessions.settled(() => auth.authenticate(r) === 'cookie'),
    });

  const signIn = sessionRoute({ auth, sessions, people, throttle, isSameOrigin, identify });
  const accept = invitationRoute({ people, auth, isSameOrigin });
  const sso = ssoRoute(deps.oidc);
  const document = adminDocumentRoute(() => served);
  const routes = [document, ...deps.routes];
  // What the admin API serves, as its document lists it.
  const served = adminApiRoutes(
    [signIn, accept, sso, ...routes],
    envRoutes as readonly Route<Authenticated>[],
  );

  /** An admin API request but the session endpoints. */
  async function adminApi(req: IncomingMessage, res: ServerResponse, path: string, query: string) {
    const rest = path.slice(PREFIX.length).replace(/\/$/, '');
    const principal = await identify(req);
    if (!principal) throw adminUnauthorized();
    const changes = req.method !== 'GET' && req.method !== 'HEAD';
    if (changes && principal.by === 'cookie' && !isSameOrigin(req)) throw crossOrigin();
    // The event stream of a session is ended when the session is, by whichever instance.
    if (principal.session && rest === 'events') streams.add(principal.session, res);
    for (const [name, value] of Object.entries(ADMIN_HEADERS)) res.setHeader(name, value);
    const projectMatch = PROJECT_OF.exec(rest);
    const project = projectMatch ? decodeSegment(projectMatch[1]!) : undefined;

    const scoped = ENV_SCOPE.exec(rest);
    // The admin API's own: keys, history, change requests, and the list of flags with their versions (`./routes.ts`).
    const own =
      /^(keys|history|change-requests)(\/|$)/.test(scoped?.[3] ?? '') ||
      (scoped?.[3] === 'flags' && !changes);
    if (scoped && !own) {
      const env = admin.environment(decodeSegment(scoped[1]!), decodeSegment(scoped[2]!));
      const match = matchRoute(envRoutes, `/api/v1/${scoped[3]}`);
      if (!match) throw new ApiError(404, 'NOT_FOUND', `no admin route for ${JSON.stringify(path)}`);
      requireSpecRole(principal, specOf(match.route, req.method) as MethodSpec<never> | undefined, project);
      const grant: Grant = {
        env,
        access: 'full',
        id: 'dashboard',
        source: 'dashboard',
        actor: principal.actor,
        createdAt: null,
        revoked: false,
      };
      return invokeRoute(match.route, match.params, grant, req, res, path, query);
    }
    const match = matchRoute(routes, `/${rest}`);
    if (!match) throw new ApiError(404, 'NOT_FOUND', `no admin route for ${JSON.stringify(path)}`);
    requireSpecRole(principal, specOf(match.route, req.method) as MethodSpec<never> | undefined, project);
    const action = specOf(match.route, req.method)?.action ?? 'do that';
    const grant: AdminGrant = {
      access: 'full',
      actor: principal.actor,
      principal,
      require: (needed, inProject) => requireRole(principal, needed, action, inProject),
    };
    return invokeRoute(match.route, match.params, grant, req, res, path, query);
  }

  const handle = (
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    query: string,
  ): Promise<void> | void | false => {
    if (isOidcPath(path)) return answerOidc(deps.oidc, req, res, path, query);
    if (!path.startsWith(PREFIX)) {
      if (req.method !== 'GET' && req.method !== 'HEAD') return false;
      return assets.serve(req, res, path) ? undefined : false;
    }
    const rest = path.slice(PREFIX.length).replace(/\/$/, '');
    if (rest === 'session' || rest === 'invitations/accept' || rest === 'sso') {
      for (const [name, value] of Object.entries(ADMIN_HEADERS)) res.setHeader(name, value);
      const route = rest === 'session' ? signIn : rest === 'sso' ? sso : accept;
      return invokeRoute(route, {}, NOBODY, req, res, path, query);
    }
    return adminApi(req, res, path, query);
  };

  /** Ends the event streams of sessions that ended: signed out, or their user disabled or removed. */
  const committed = (op: BaseOp): void => {
    const ended = endedSessionsOf(op as PeopleOp);
    for (const id of ended) streams.end(id, undefined);
  };
  return Object.assign(handle, { routes: served, committed });
}

/** The sessions an op ends (read after it is applied: a removed user's are gone already, so by their ids in the op). */
function endedSessionsOf(op: PeopleOp): string[] {
  if (op.t === 'logout') return [op.id];
  return [];
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
