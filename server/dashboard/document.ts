/**
 * The admin API as its document describes it (`GET /admin/api/openapi.json`, `docs/protocol.md`
 * §10, §3.5): its own routes, and the routes of `/api/v1` it serves for an environment under
 * `environments/:project/:env/` (`./handler.ts`), with their own descriptions. Behind the admin
 * credential, as every admin route: the admin token as a bearer, or the session cookie.
 */
import { documentRoute } from '../http/handlers/openapi.js';
import { errorAnswer, openApiDocument } from '../http/openapi.js';
import type { AnswerDoc } from '../http/operation-doc.js';
import { type Authenticated, defineRoute, leastRole, type MethodSpec, type Route } from '../http/router.js';
import type { AdminGrant } from './routes.js';
import { SESSION_COOKIE } from './session.js';

/** The path of an environment's routes under the admin API. */
export const ENV_SCOPE = 'environments/:project/:env/';

const NO_ENV = 'no such project or environment';

const DESCRIPTION =
  "Flagwire's admin API, the dashboard's: projects, environments, API keys, history, copying flags, " +
  '"who gets what" and its event stream; and, under `environments/{project}/{env}/`, the flags, ' +
  'segments, webhooks and usage of `/api/v1` (their changes recorded as `actor: dashboard`). ' +
  'The protocol, in words: docs/protocol.md §10.';

/** An `/api/v1` route's method as the admin API serves it: its `404` also for an unknown environment. */
function scopedSpec<G extends Authenticated>(spec: MethodSpec<G>): MethodSpec<G> {
  if (!spec.doc) return spec;
  const own = spec.doc.answers[404];
  const notFound: AnswerDoc = own
    ? { ...own, description: `${own.description}, or ${NO_ENV}` }
    : errorAnswer(`\`NOT_FOUND\`: ${NO_ENV}.`);
  return { ...spec, doc: { ...spec.doc, answers: { ...spec.doc.answers, 404: notFound } } };
}

/**
 * The admin API's routes as served: `own` (answered first; the list of flags with their versions
 * is one) and each of `envRoutes` under `environments/:project/:env/`, for the methods `own` does
 * not answer at that path.
 */
export function adminApiRoutes(
  own: readonly Route<AdminGrant>[],
  envRoutes: readonly Route<Authenticated>[],
): Route<Authenticated>[] {
  const byPattern = new Map(own.map((route) => [route.pattern, route as Route<Authenticated>]));
  for (const route of envRoutes) {
    const pattern = `${ENV_SCOPE}${route.pattern}`;
    const mine = byPattern.get(pattern);
    const methods: Partial<Record<string, MethodSpec<Authenticated>>> = { ...mine?.methods };
    for (const [method, spec] of Object.entries(route.methods))
      if (spec && !methods[method]) methods[method] = scopedSpec(spec);
    byPattern.set(pattern, defineRoute<Authenticated>(pattern, methods, true, false));
  }
  return [...byPattern.values()];
}

/** `GET /admin/api/openapi.json`: the document of `routes()` (read once, on the first request). */
export function adminDocumentRoute(routes: () => readonly Route<Authenticated>[]): Route<AdminGrant> {
  const route = documentRoute<AdminGrant>(
    'openapi.json',
    () =>
      openApiDocument<Authenticated>({
        title: 'Flagwire admin API',
        description: DESCRIPTION,
        server: '/admin/api',
        routes: routes(),
        security: [
          {
            name: 'adminToken',
            scheme: {
              type: 'http',
              scheme: 'bearer',
              description:
                '`Authorization: Bearer <admin token>` (the token the server prints at start, acting as an admin) or `Bearer fw_pat_...` (a personal access token, acting as its user with their role).',
            },
          },
          {
            name: 'session',
            scheme: {
              type: 'apiKey',
              in: 'cookie',
              name: SESSION_COOKIE,
              description:
                "The session cookie `POST /session` sets; a change it authenticates must come from the server's own `Origin` (CSRF).",
            },
          },
        ],
        refusals: (method, spec) => {
          const role = leastRole(spec);
          const why = [
            ...(role === 'viewer'
              ? []
              : [`a caller below the ${role} role (the message names the role needed)`]),
            ...(method === 'GET'
              ? []
              : ["a change by the session cookie, not from the server's own `Origin` (CSRF)"]),
          ];
          return {
            401: errorAnswer(
              '`UNAUTHORIZED`: no admin credential, or not a valid one (ended, revoked, expired, disabled).',
            ),
            ...(why.length > 0 && { 403: errorAnswer(`\`FORBIDDEN\`: ${why.join('; or ')}.`) }),
          };
        },
      }),
    false,
  );
  // Matched as the admin API's routes are: at its own root, not under `/api/v1`.
  return { ...route, root: true };
}
