/**
 * The request pipeline: route (404) → CORS preflight → auth (401) → method (405 with
 * `Allow`) → access level (403) → body (413/415/400) → handler. Whatever goes wrong
 * becomes a JSON error; nothing a client sends can throw past this function
 * (`docs/protocol.md` §4).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CORS_HEADERS } from '../cors.js';
import { ApiError, clientKeyRefused, forbidden, unauthorized } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Grant, KeyRing } from '../state/admin/key-ring.js';
import { notRestored } from '../state/kernel/damaged.js';
import { StorageRefusedError, StorageUnavailableError } from '../store/errors.js';
import { refuseUnapprovedGrant } from './approvals.js';
import { readJsonBody } from './body.js';
import { sendEmpty, sendError } from './respond.js';
import { type Authenticated, matchRoute, type Route, splitTarget } from './router.js';

const PREFLIGHT_HEADERS = {
  ...CORS_HEADERS,
  'access-control-allow-headers':
    'Authorization, Content-Type, Last-Event-ID, If-None-Match, If-Match, Cache-Control, X-Flagwire-Capabilities',
  'access-control-max-age': '86400',
};

function notFoundRoute(path: string): ApiError {
  const shown = path.length > 200 ? `${path.slice(0, 200)}…` : path;
  return new ApiError(404, 'NOT_FOUND', `no route for ${JSON.stringify(shown)}; the API lives under /api/v1`);
}

/**
 * Runs a matched route for an authenticated grant: method (405), access level (403, and
 * `APPROVAL_REQUIRED` for a direct write where approvals are needed), body
 * (413/415/400), handler. Shared by `/api/v1` and the dashboard's admin API, which calls the
 * same flag and webhook routes (`docs/protocol.md` §10).
 */
export function invokeRoute<G extends Authenticated>(
  route: Route<G>,
  params: Record<string, string>,
  grant: G,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  query: string,
): Promise<void> | void {
  const method = req.method ?? 'GET';
  const spec = route.methods[method === 'HEAD' ? 'GET' : method];
  if (!spec) {
    throw new ApiError(
      405,
      'METHOD_NOT_ALLOWED',
      `${method} is not allowed on ${path}; allowed: ${route.allow}`,
      {
        allow: route.allow,
      },
    );
  }
  if (grant.access === 'client') throw clientKeyRefused(spec.action);
  if (grant.access === 'read-only' && !spec.readOnly) throw forbidden(spec.action);
  if (spec.approval) refuseUnapprovedGrant(grant);
  // Requests without a body stay synchronous: no promise on the hot path (GET /sdk/flags).
  if (!spec.body) return spec.handler({ req, res, grant, params, body: undefined, query });
  return readJsonBody(req, spec.maxBodyBytes).then((body) => {
    if (body === undefined)
      throw new ApiError(400, 'VALIDATION_ERROR', 'request body is required: a JSON object');
    return spec.handler({ req, res, grant, params, body, query });
  });
}

/** Whether `error` only says that the client went away (mid-upload, say): nothing to answer or log. */
export function isClientGone(req: IncomingMessage, error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException)?.code;
  return req.socket.destroyed || code === 'ECONNRESET' || (error as Error)?.message === 'aborted';
}

/**
 * Wraps a handler so that whatever it throws or rejects with becomes a JSON error (an
 * `ApiError` as itself, anything else as a logged 500), and a client that went away is let go.
 */
/** An error as the client is answered: the storage's own errors become their HTTP answer. */
export function asApiError(error: unknown): unknown {
  if (error instanceof StorageRefusedError) return new ApiError(400, 'VALIDATION_ERROR', error.message);
  return error instanceof StorageUnavailableError
    ? new ApiError(503, 'UNAVAILABLE', error.message, { 'retry-after': '1' })
    : error;
}

export function guarded(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void> | void,
  logger: Logger,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    req.on('error', () => {});
    res.on('error', () => {});
    const fail = (thrown: unknown) => {
      const error = asApiError(thrown);
      if (!(error instanceof ApiError) && isClientGone(req, error)) {
        // The client gave up (mid-upload, say): no one to answer, nothing to log.
        res.destroy();
        return;
      }
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (error instanceof ApiError) {
        // A body we refused to read would otherwise keep the connection busy.
        sendError(res, error, !req.complete);
        return;
      }
      logger.error(
        `internal error on ${req.method} ${splitTarget(req.url)?.path ?? ''}: ${(error as Error)?.stack ?? error}`,
      );
      sendError(res, new ApiError(500, 'INTERNAL_ERROR', 'internal server error'));
    };
    try {
      handle(req, res)?.catch(fail);
    } catch (error) {
      fail(error);
    }
  };
}

/**
 * What an anonymous route (`Route.anonymous`: the OpenAPI document) runs as: no key, so no
 * environment; its handler reads nothing of the grant but the access the pipeline checks.
 */
const ANONYMOUS = { access: 'read-only' } as Authenticated as Grant;

/** The `/api/v1` (and root SDK) handler, authenticated by API keys. */
export function createApiHandler(
  routes: readonly Route[],
  keys: KeyRing,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> | void {
  return (req, res) => {
    const target = splitTarget(req.url);
    if (!target) throw notFoundRoute(req.url ?? '');
    const match = matchRoute(routes, target.path);
    if (!match) throw notFoundRoute(target.path);
    const { route, params } = match;
    if (req.method === 'OPTIONS') {
      sendEmpty(res, 204, {
        ...PREFLIGHT_HEADERS,
        allow: route.allow,
        'access-control-allow-methods': route.allow,
      });
      return;
    }
    if (route.anonymous) return invokeRoute(route, params, ANONYMOUS, req, res, target.path, target.query);
    const grant = keys.authenticateOn(req.socket, req.headers.authorization);
    if (!grant) throw unauthorized();
    const refused = notRestored(grant.env);
    if (refused) throw refused;
    return invokeRoute(route, params, grant, req, res, target.path, target.query);
  };
}
