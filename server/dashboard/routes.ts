/**
 * The admin API's own routes (`docs/protocol.md` §10.3): overview, projects, environments
 * (their rename, deletion and the copy of flags: `../http/handlers/lifecycle.ts`), API keys,
 * history, "who gets what" (`./evaluate.ts`) and the event stream. Flags and webhooks of an environment are not here: the handler
 * sends them to the same routes as `/api/v1` (`server/http/handlers/`).
 */

import { Type } from '@sinclair/typebox';
import type {
  ApiKeyView,
  CreatedApiKey,
  EnvView,
  HistoryEntry,
  Overview,
  ProjectView,
  VersionedFlag,
} from '../../src/core/admin-wire.js';
import * as A from '../../src/core/schemas/admin.js';
import { lifecycleRoutes } from '../http/handlers/lifecycle.js';
import { errorAnswer, ok } from '../http/openapi.js';
import { sendEmpty, sendJson } from '../http/respond.js';
import { defineRoute, type Route } from '../http/router.js';
import type { AdminService, ProjectView as StoredProjectView } from '../state/admin/admin-service.js';
import type { LifecycleService } from '../state/admin/lifecycle-service.js';
import type { CopyService } from '../state/copy/copy-service.js';
import type { FlagService } from '../state/flags/flag-service.js';
import { toFlag } from '../state/flags/representation.js';
import type { Ledger } from '../state/kernel/ledger.js';
import type { Actor, Environment, Role } from '../state/kernel/model.js';
import type { StreamHub } from '../stream/hub.js';
import { evaluateRoutes } from './evaluate.js';
import type { AdminEvents } from './events.js';
import type { Principal } from './principal.js';
import { historyQuery, validateNewApiKey, validateNewKey } from './validate.js';

const NO_ENV = errorAnswer('`NOT_FOUND`: no such project or environment');

/** The event stream's body, in words: its frames are described, not schemed (`docs/protocol.md` §10.5). */
const EVENT_STREAM = Type.String({
  description:
    'Server-sent events: `streams` first and as they move (data: a `StreamCounts`), `change` for every committed flag change (data: an `AdminChangeEvent`), `structure` when projects, environments or keys change (`{}`), `changeRequest` when a change request moves (`{env, id, state}`), and `ping` (`{}`).',
});

/** An admin API request's grant: who it is (`./principal.ts`), acting across environments as their role allows. */
export interface AdminGrant {
  access: 'full';
  actor: Actor;
  principal: Principal;
  /** Refuses (`403` naming it) unless the principal's role inside `project` is at least `role`: for a route whose projects are in its body. */
  require(role: Role, project: string): void;
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
    approvals: env.approvals ?? 0,
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
          doc: {
            summary: 'Every project and its environments',
            answers: { 200: ok('The projects, with their environments', A.Overview) },
          },
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
          role: 'admin',
          body: true,
          action: 'create projects',
          doc: {
            summary: 'Create a project',
            body: A.KeyInput,
            answers: {
              201: ok('Created, without environments yet', A.ProjectView),
              409: errorAnswer('`CONFLICT`: a project of that key exists'),
            },
          },
          handler: async ({ res, body, grant }) =>
            sendJson(res, 201, {
              ...(await admin.createProject(validateNewKey(body), grant.actor)),
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
          role: 'admin',
          body: true,
          action: 'create environments',
          doc: {
            summary: 'Create an environment of a project',
            body: A.KeyInput,
            answers: {
              201: ok('Created', A.EnvView),
              404: errorAnswer('`NOT_FOUND`: no such project'),
              409: errorAnswer('`CONFLICT`: an environment of that key exists in the project'),
            },
          },
          handler: async ({ res, body, params, grant }) => {
            const env = await admin.createEnvironment(params.project!, validateNewKey(body), grant.actor);
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
          doc: {
            summary: "The environment's API keys (never their values)",
            answers: { 200: ok('The keys', Type.Array(A.ApiKeyView)), 404: NO_ENV },
          },
          handler: async ({ res, params }) => {
            const env = envOf(params);
            const keys: ApiKeyView[] = await ledger.readSettled(env.id, () => admin.listKeys(env));
            sendJson(res, 200, keys);
          },
        },
        POST: {
          readOnly: false,
          role: 'admin',
          body: true,
          action: 'create keys',
          doc: {
            summary: 'Create an API key for the environment',
            body: A.NewApiKeyInput,
            answers: { 201: ok('Created: the only answer that shows the key', A.CreatedApiKey), 404: NO_ENV },
          },
          handler: async ({ res, params, body, grant }) => {
            const env = envOf(params);
            const { access, name, bypassApprovals } = validateNewApiKey(body);
            const created: CreatedApiKey = await admin.createKey(
              env,
              access,
              name,
              grant.actor,
              bypassApprovals,
            );
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
          role: 'admin',
          body: false,
          action: 'revoke keys',
          doc: {
            summary: 'Revoke an API key: its requests are refused and its streams closed at once',
            answers: {
              204: { description: 'Revoked' },
              404: errorAnswer('`NOT_FOUND`: no key of that id, or no such project or environment'),
              409: errorAnswer('`CONFLICT`: a key of the config file (remove it there)'),
            },
          },
          handler: async ({ res, params, grant }) => {
            await admin.revokeKey(envOf(params), params.id!, grant.actor);
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
          doc: {
            summary: "The environment's flags, each with its version",
            description: 'As `GET /api/v1/flags`, each flag with its `version` (its `ETag`, §3.3).',
            answers: { 200: ok('The flags, by key', Type.Array(A.VersionedFlag)), 404: NO_ENV },
          },
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
          doc: {
            summary: "The environment's flag and segment changes, newest first",
            query: {
              flag: {
                schema: Type.String(),
                description: "Only this flag's changes (a segment's: `segment:KEY`).",
              },
              limit: { schema: A.HistoryLimit, description: 'At most this many entries (200 unless given).' },
            },
            answers: { 200: ok('The changes', Type.Array(A.HistoryEntry)), 404: NO_ENV },
          },
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
          doc: {
            summary: "The dashboard's event stream",
            description:
              'Not counted against `maxStreams`; a stream opened by a session ends when the session does.',
            answers: {
              200: { description: 'The stream', schema: EVENT_STREAM, mediaType: 'text/event-stream' },
            },
          },
          handler: ({ req, res }) => events.subscribe(req, res),
        },
      },
      true,
    ),
    ...lifecycleRoutes<AdminGrant>({ ...deps, envView, projectView }),
    ...evaluateRoutes<AdminGrant>(admin, flags, ledger),
  ];
}
