/**
 * The admin API's own routes (`docs/protocol.md` §10.3): overview, projects, environments,
 * API keys, history and the event stream. Flags and webhooks of an environment are not here:
 * the handler sends them to the same routes as `/api/v1` (`server/http/handlers/`).
 */

import { sendEmpty, sendJson } from '../http/respond.js';
import { defineRoute, type Route } from '../http/router.js';
import type { AdminService } from '../state/admin-service.js';
import type { FlagService } from '../state/service.js';
import type { StreamHub } from '../stream/hub.js';
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
  /** Headers of every admin answer (no caching, no sniffing). */
  headers: Record<string, string>;
}

export function adminRoutes({ admin, flags, hub, events, headers }: AdminRouteDeps): Route<AdminGrant>[] {
  const envOf = (params: Record<string, string>) => admin.environment(params.project!, params.env!);
  return [
    defineRoute<AdminGrant>(
      'overview',
      {
        GET: {
          readOnly: true,
          body: false,
          action: 'read',
          handler: async ({ res }) => {
            const projects = admin.projects().map((project) => ({
              ...project,
              environments: admin.environments
                .filter((env) => env.project === project.key)
                .map((env) => ({
                  project: env.project,
                  key: env.environment,
                  source: env.source,
                  createdAt: env.createdAt,
                  streams: hub.countOf(env.id),
                  flags: env.flags.size,
                  revision: env.revision,
                })),
            }));
            await flags.settled(); // after reading: answer only what is durable (§7.3)
            sendJson(res, 200, { projects }, headers);
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
            sendJson(
              res,
              201,
              { ...(await admin.createProject(validateNewKey(body))), environments: [] },
              headers,
            ),
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
            const view = {
              project: env.project,
              key: env.environment,
              source: env.source,
              createdAt: env.createdAt,
            };
            sendJson(
              res,
              201,
              { ...view, streams: 0, flags: env.flags.size, revision: env.revision },
              headers,
            );
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
            const keys = admin.listKeys(envOf(params));
            await flags.settled();
            sendJson(res, 200, keys, headers);
          },
        },
        POST: {
          readOnly: false,
          body: true,
          action: 'create keys',
          handler: async ({ res, params, body }) => {
            const env = envOf(params);
            const { access, name } = validateNewApiKey(body);
            sendJson(res, 201, await admin.createKey(env, access, name), headers);
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
            sendEmpty(res, 204, headers);
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
            sendJson(res, 200, await flags.history(envOf(params), flag, limit), headers);
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
          handler: ({ req, res }) => events.subscribe(req, res, headers),
        },
      },
      true,
    ),
  ];
}
