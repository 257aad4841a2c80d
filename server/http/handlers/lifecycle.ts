/**
 * The admin API's lifecycle routes (`docs/protocol.md` §10.3): rename and delete projects and
 * environments, and copy flags from one environment to another (a preview, then the copy).
 * Mounted by the dashboard's admin routes, behind the admin credential.
 */
import type { CopyPreview, EnvView, ProjectView } from '../../../src/core/admin-wire.js';
import * as A from '../../../src/core/schemas/admin.js';
import { checked, validationError } from '../../errors.js';
import type { AdminService, ProjectView as StoredProjectView } from '../../state/admin/admin-service.js';
import type { LifecycleService } from '../../state/admin/lifecycle-service.js';
import type { CopyService } from '../../state/copy/copy-service.js';
import type { Actor, Environment } from '../../state/kernel/model.js';
import { refuseUnapproved } from '../approvals.js';
import { errorAnswer, ok } from '../openapi.js';
import { sendEmpty, sendJson } from '../respond.js';
import { type Authenticated, defineRoute, type Route } from '../router.js';

export interface LifecycleRouteDeps {
  admin: AdminService;
  lifecycle: LifecycleService;
  copies: CopyService;
  /** An environment as the overview shows it. */
  envView: (env: Environment) => EnvView;
  /** A project as the overview shows it, with its environments. */
  projectView: (project: StoredProjectView) => ProjectView;
}

/** `{key}` of a rename: the flag key rules (§3.1). */
const newKey = (body: unknown): string => checked(A.KeyInput, body).key;

/** The environment `PROJECT/ENVIRONMENT` names (its form checked by the schema; 404 when none). */
function envNamed(admin: AdminService, name: string): Environment {
  const [project, env] = name.split('/') as [string, string];
  return admin.environment(project, env);
}

/** The body of a copy's preview or of the copy (`apply`: with the revisions the preview showed). */
function copyBody(admin: AdminService, body: unknown, apply: boolean) {
  const fields = apply
    ? checked(A.CopyFlagsApplyInput, body)
    : { ...checked(A.CopyFlagsInput, body), expectedRevision: 0, expectedSourceRevision: undefined };
  const source = envNamed(admin, fields.from);
  const target = envNamed(admin, fields.to);
  if (source === target) throw validationError('"from" and "to" must be two environments');
  const { flags, expectedRevision, expectedSourceRevision } = fields;
  return { source, target, flags, expectedRevision, expectedSourceRevision };
}

const MANAGED = '`CONFIG_MANAGED`: the config file or the default set-up names it';
const COPY_404 = errorAnswer('`NOT_FOUND`: no such environment, or a flag named is not in `from`');

/** A grant that names who acts and, in the admin API, refuses them below a role inside a project. */
type ActingGrant = Authenticated & {
  actor: Actor;
  require?: (role: 'viewer' | 'editor' | 'admin', project: string) => void;
};

/** Refuses a copy unless the caller may read its source and write its target (their roles there). */
function mayCopy(grant: ActingGrant, request: { source: Environment; target: Environment }, writes: boolean) {
  grant.require?.('viewer', request.source.project);
  grant.require?.(writes ? 'editor' : 'viewer', request.target.project);
}

export function lifecycleRoutes<G extends ActingGrant>(deps: LifecycleRouteDeps): Route<G>[] {
  const { admin, lifecycle, copies, envView, projectView } = deps;
  return [
    defineRoute<G>(
      'projects/:project',
      {
        PATCH: {
          readOnly: false,
          role: 'admin',
          body: true,
          action: 'rename projects',
          doc: {
            summary: 'Rename a project (one the dashboard made)',
            body: A.KeyInput,
            answers: {
              200: ok('The project as renamed', A.ProjectView),
              404: errorAnswer('`NOT_FOUND`: no such project'),
              409: errorAnswer(`\`CONFLICT\`: a project of that key exists; ${MANAGED}`),
            },
          },
          handler: async ({ res, params, body, grant }) =>
            sendJson(
              res,
              200,
              projectView(await lifecycle.renameProject(params.project!, newKey(body), grant.actor)),
            ),
        },
        DELETE: {
          readOnly: false,
          role: 'admin',
          body: false,
          action: 'delete projects',
          doc: {
            summary: 'Delete a project (one the dashboard made), its environments, their flags and keys',
            answers: {
              204: { description: 'Deleted' },
              404: errorAnswer('`NOT_FOUND`: no such project'),
              409: errorAnswer(MANAGED),
            },
          },
          handler: async ({ res, params, grant }) => {
            await lifecycle.deleteProject(params.project!, grant.actor);
            sendEmpty(res, 204);
          },
        },
      },
      true,
    ),
    defineRoute<G>(
      'environments/:project/:env',
      {
        PATCH: {
          readOnly: false,
          role: 'admin',
          body: true,
          action: 'change environments',
          doc: {
            summary:
              'Rename an environment (one the dashboard made; its keys keep working), set the approvals its changes need, or both',
            body: A.EnvPatchInput,
            answers: {
              200: ok('The environment as changed', A.EnvView),
              404: errorAnswer('`NOT_FOUND`: no such project or environment'),
              409: errorAnswer(
                `\`CONFLICT\`: an environment of that key exists; ${MANAGED} (a rename), or sets its approvals`,
              ),
            },
          },
          handler: async ({ res, params, body, grant }) => {
            const change = checked(A.EnvPatchInput, body);
            const env = await lifecycle.updateEnvironment(params.project!, params.env!, change, grant.actor);
            sendJson(res, 200, envView(env));
          },
        },
        DELETE: {
          readOnly: false,
          role: 'admin',
          body: false,
          action: 'delete environments',
          doc: {
            summary: 'Delete an environment (one the dashboard made): its flags, webhooks and keys',
            answers: {
              204: { description: 'Deleted' },
              404: errorAnswer('`NOT_FOUND`: no such project or environment'),
              409: errorAnswer(MANAGED),
            },
          },
          handler: async ({ res, params, grant }) => {
            await lifecycle.deleteEnvironment(params.project!, params.env!, grant.actor);
            sendEmpty(res, 204);
          },
        },
      },
      true,
    ),
    defineRoute<G>(
      'copy-flags/preview',
      {
        POST: {
          readOnly: false,
          role: 'viewer',
          body: true,
          action: 'copy flags',
          doc: {
            summary: 'What copying flags from one environment to another would do',
            body: A.CopyFlagsInput,
            answers: { 200: ok('What the copy would do', A.CopyPreview), 404: COPY_404 },
          },
          handler: async ({ res, body, grant }) => {
            const request = copyBody(admin, body, false);
            mayCopy(grant, request, false);
            const preview: CopyPreview = await copies.preview(request);
            sendJson(res, 200, preview);
          },
        },
      },
      true,
    ),
    defineRoute<G>(
      'copy-flags',
      {
        POST: {
          readOnly: false,
          // The target is in the body: the handler checks it (`refuseUnapproved`).
          approval: true,
          body: true,
          action: 'copy flags',
          doc: {
            summary: 'Copy flags from one environment to another, as previewed',
            description:
              'The segments their rules name come along when the target has none of that key; the target records the copy (`copiedFrom`), the source too (`copiedTo`).',
            body: A.CopyFlagsApplyInput,
            answers: {
              200: ok('What the copy did', A.CopyPreview),
              404: COPY_404,
              409: errorAnswer(
                '`REVISION_CHANGED`: an environment moved since the preview; `CONFLICT`: a flag named cannot be copied',
              ),
            },
          },
          handler: async ({ res, body, grant }) => {
            const request = copyBody(admin, body, true);
            mayCopy(grant, request, true);
            // A copy writes the target's flags directly: not where changes need approvals.
            refuseUnapproved(request.target, false);
            const done: CopyPreview = await copies.apply(request, grant.actor);
            sendJson(res, 200, done);
          },
        },
      },
      true,
    ),
  ];
}
