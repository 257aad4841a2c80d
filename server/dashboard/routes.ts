/**
 * The admin API's own routes (`docs/protocol.md` §10.3): overview, projects, environments
 * (their rename, deletion and the copy of flags: `../http/handlers/lifecycle.ts`), API keys,
 * history, "who gets what" (`./evaluate.ts`) and the event stream. Flags and webhooks of an environment are not here: the handler
 * sends them to the same routes as `/api/v1` (`server/http/handlers/`).
 */

import { lifecycleRoutes } from '../http/handlers/lifecycle.js';
import { sendEmpty, sendJson } from '../http/respond.js';
import { defineRoute, type Route } from '../http/router.js';
import type { AdminService, ProjectView } from '../state/admin-service.js';
import type { CopyService } from '../state/copy-service.js';
import type { LifecycleService } from '../state/lifecycle-service.js';
import type { Environment } from '../state/model.js';
import { toFlag } from '../state/representation.js';
import type { FlagService } from '../state/service.js';
import type { StreamHub } from '../stream/hub.js';
import { evaluateRoutes } from './evaluate.js';
import type { AdminEvents } from './events.js';
import { historyQuery, validateNewApiKey, validateNewKey } from './validate.js';

/** The dashboard's admin: full access, across environments. */
export interface AdminGrant {
  access: 'full';
}

export interface AdminRouteDeps {
  admin: AdminService;
  flags: FlagService;
  hub: StreamHub;
  events: AdminEvents;
  lifecycle: LifecycleService;
  copies: CopyService;
}

export function adminRoutes(deps: AdminRouteDeps): Route<AdminGrant>[] {
  const { admin, flags, hub, events } = deps;
  const envOf = (params: Record<string, string>) => admin.environment(params.project!, params.env!);
  /** An environment as the overview lists it. */
  const envView = (env: Environment) => ({
    project: env.project,
    key: env.environment,
    source: env.source,
    createdAt: env.createdAt,
    streams: hub.countOf(env.id),
    flags: env.flags.size,
    revision: env.revision,
  });
  /** A project as the overview lists it, with its environments. */
  const projectView = (project: ProjectView) => ({
    ...project,
    environments: admin.environments.filter((env) => env.project === project.key).map(envView),
  });
  return [
    defineRoute<AdminGrant>(
      'overview',
      {
        GET: {
          readOnly: true,
          body: false,
          action: 'read',
          handler: async ({ res }) => {
            // A settled read (§7.3): answers only what is durable.
            const projects = await flags.readSettled(null, () => admin.projects().map(projectView));
            sendJson(res, 200, { projects });
          },
        },
      },
      true,
    ),
    defineRoute<AdminGrant>(
      'projects',
      {
        POST: {
          readOnly: false,
          body: true,
          action: 'create projects',
          handler: async ({ res, body }) =>
            sendJson(res, 201, { ...(await admin.createProject(validateNewKey(body))), environments: [] }),
        },
      },
      true,
    ),
    defineRoute<AdminGrant>(
      'projects/:project/environments',
      {
        POST: {
          readOnly: false,
          body: true,
          action: 'create environments',
          handler: async ({ res, body, params }) => {
            const env = await admin.createEnvironment(params.project!, validateNewKey(body));
            sendJson(res, 201, envView(env));
          },
        },
      },
      true,
    ),
    defineRoute<AdminGrant>(
      'environments/:project/:env/keys',
      {
        GET: {
          readOnly: true,
          body: false,
          action: 'list keys',
          handler: async ({ res, params }) => {
            const env = envOf(params);
            sendJson(res, 200, await flags.readSettled(env.id, () => admin.listKeys(env)));
          },
        },
        POST: {
          readOnly: false,
          body: true,
          action: 'create keys',
          handler: async ({ res, params, body }) => {
            const env = envOf(params);
            const { access, name } = validateNewApiKey(body);
            sendJson(res, 201, await admin.createKey(env, access, name));
          },
        },
      },
      true,
    ),
    defineRoute<AdminGrant>(
      'environments/:project/:env/keys/:id',
      {
        DELETE: {
          readOnly: false,
          body: false,
          action: 'revoke keys',
          handler: async ({ res, params }) => {
            await admin.revokeKey(envOf(params), params.id!);
            sendEmpty(res, 204);
          },
        },
      },
      true,
    ),
    defineRoute<AdminGrant>(
      'environments/:project/:env/flags',
      {
        // As `GET /api/v1/flags`, each flag with its `version` (its `ETag`, §3.3): the page's quick
        // changes from the list send it as `If-Match`. `POST` is the API's route (`./handler.ts`).
        GET: {
          readOnly: true,
          body: false,
          action: 'list flags',
          handler: async ({ res, params }) => {
            const env = envOf(params);
            const list = await flags.readSettled(env.id, () =>
              [...env.flags.values()]
                .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
                .map((flag) => ({ ...toFlag(flag), version: flag.version })),
            );
            sendJson(res, 200, list);
          },
        },
      },
      true,
    ),
    defineRoute<AdminGrant>(
      'environments/:project/:env/history',
      {
        GET: {
          readOnly: true,
          body: false,
          action: 'read history',
          handler: async ({ res, params, query }) => {
            const { flag, limit } = historyQuery(query);
            sendJson(res, 200, await flags.history(envOf(params), flag, limit));
          },
        },
      },
      true,
    ),
    defineRoute<AdminGrant>(
      'events',
      {
        GET: {
          readOnly: true,
          body: false,
          action: 'follow events',
          handler: ({ req, res }) => events.subscribe(req, res),
        },
      },
      true,
    ),
    ...lifecycleRoutes<AdminGrant>({ ...deps, envView, projectView }),
    ...evaluateRoutes<AdminGrant>(admin, flags),
  ];
}
