/**
 * The admin API's own routes (`docs/protocol.md` §10.3): overview, projects, environments
 * (their rename, deletion and the copy of flags: `../http/handlers/lifecycle.ts`), API keys,
 * history, "who gets what" (`./evaluate.ts`) and the event stream. Flags and webhooks of an environment are not here: the handler
 * sends them to the same routes as `/api/v1` (`server/http/handlers/`).
 */

import type {
  ApiKeyView,
  CreatedApiKey,
  EnvView,
  HistoryEntry,
  Overview,
  ProjectView,
  VersionedFlag,
} from '../../src/core/admin-wire.js';
import { lifecycleRoutes } from '../http/handlers/lifecycle.js';
import { sendEmpty, sendJson } from '../http/respond.js';
import { defineRoute, type Route } from '../http/router.js';
import type { AdminService, ProjectView as StoredProjectView } from '../state/admin/admin-service.js';
import type { LifecycleService } from '../state/admin/lifecycle-service.js';
import type { CopyService } from '../state/copy/copy-service.js';
import type { FlagService } from '../state/flags/flag-service.js';
import { toFlag } from '../state/flags/representation.js';
import type { Ledger } from '../state/kernel/ledger.js';
import type { Environment } from '../state/kernel/model.js';
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
  /** Settled reads (`docs/protocol.md` §7.3). */
  ledger: Ledger;
  hub: StreamHub;
  events: AdminEvents;
  lifecycle: LifecycleService;
  copies: CopyService;
}

export function adminRoutes(deps: AdminRouteDeps): Route<AdminGrant>[] {
  const { admin, flags, ledger, hub, events } = deps;
  const envOf = (params: Record<string, string>) => admin.environment(params.project!, params.env!);
  /** An environment as the overview lists it. */
  const envView = (env: Environment): EnvView => ({
    project: env.project,
    key: env.environment,
    source: env.source,
    createdAt: env.createdAt,
    streams: hub.countOf(env.id),
    flags: env.flags.size,
    revision: env.revision,
  });
  /** A project as the overview lists it, with its environments. */
  const projectView = (project: StoredProjectView): ProjectView => ({
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
            const projects = await ledger.readSettled(null, () => admin.projects().map(projectView));
            sendJson(res, 200, { projects } satisfies Overview);
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
            sendJson(res, 201, {
              ...(await admin.createProject(validateNewKey(body))),
              environments: [],
            } satisfies ProjectView),
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
            const keys: ApiKeyView[] = await ledger.readSettled(env.id, () => admin.listKeys(env));
            sendJson(res, 200, keys);
          },
        },
        POST: {
          readOnly: false,
          body: true,
          action: 'create keys',
          handler: async ({ res, params, body }) => {
            const env = envOf(params);
            const { access, name } = validateNewApiKey(body);
            const created: CreatedApiKey = await admin.createKey(env, access, name);
            sendJson(res, 201, created);
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
            const list: VersionedFlag[] = await ledger.readSettled(env.id, () =>
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
            const history: HistoryEntry[] = await flags.history(envOf(params), flag, limit);
            sendJson(res, 200, history);
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
    ...evaluateRoutes<AdminGrant>(admin, flags, ledger),
  ];
}
