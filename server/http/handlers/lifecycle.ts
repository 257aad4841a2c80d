/**
 * The admin API's lifecycle routes (`docs/protocol.md` §10.3): rename and delete projects and
 * environments, and copy flags from one environment to another (a preview, then the copy).
 * Mounted by the dashboard's admin routes, behind the admin credential.
 */
import type { CopyPreview, EnvView, ProjectView } from '../../../src/core/admin-wire.js';
import { flagKeyProblem } from '../../../src/core/validation.js';
import { validationError } from '../../errors.js';
import type { AdminService, ProjectView as StoredProjectView } from '../../state/admin/admin-service.js';
import type { LifecycleService } from '../../state/admin/lifecycle-service.js';
import type { CopyService } from '../../state/copy/copy-service.js';
import type { Environment } from '../../state/kernel/model.js';
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

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The body's fields, refusing any other (the message lists those allowed). */
function fieldsOf(body: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (!isObject(body)) throw validationError('request body must be a JSON object');
  for (const name of Object.keys(body))
    if (!allowed.includes(name)) {
      const shown = name.length > 100 ? `${name.slice(0, 100)}…` : name;
      throw validationError(`unknown field ${JSON.stringify(shown)} (allowed: ${allowed.join(', ')})`);
    }
  return body;
}

/** `{key}` of a rename: the flag key rules (§3.1). */
function newKey(body: unknown): string {
  const { key } = fieldsOf(body, ['key']);
  const problem = flagKeyProblem(key);
  if (problem) throw validationError(problem);
  return key as string;
}

/** `"PROJECT/ENVIRONMENT"` of field `field`, as the environment it names (404 when none). */
function envNamed(admin: AdminService, value: unknown, field: string): Environment {
  const parts = typeof value === 'string' ? value.split('/') : [];
  if (parts.length !== 2 || parts.some((p) => flagKeyProblem(p) !== undefined))
    throw validationError(`"${field}" must be "PROJECT/ENVIRONMENT", e.g. "acme/staging"`);
  return admin.environment(parts[0]!, parts[1]!);
}

const MAX_FLAGS = 10_000;

/** The body of a copy's preview or of the copy (`apply`: with the revisions the preview showed). */
function copyBody(admin: AdminService, body: unknown, apply: boolean) {
  const allowed = ['from', 'to', 'flags', ...(apply ? ['expectedRevision', 'expectedSourceRevision'] : [])];
  const fields = fieldsOf(body, allowed);
  const { flags } = fields;
  if (
    flags !== undefined &&
    (!Array.isArray(flags) ||
      flags.length === 0 ||
      flags.length > MAX_FLAGS ||
      flags.some((k) => typeof k !== 'string') ||
      new Set(flags).size !== flags.length)
  )
    throw validationError(
      `"flags" must be a list of 1 to ${MAX_FLAGS} distinct flag keys, or left out (every flag)`,
    );
  const revision = (name: string, required: boolean): number | undefined => {
    const value = fields[name];
    if (value === undefined && !required) return undefined;
    if (!Number.isSafeInteger(value) || (value as number) < 0)
      throw validationError(`"${name}" must be the revision the preview answered (an integer from 0)`);
    return value as number;
  };
  const expectedRevision = apply ? revision('expectedRevision', true)! : 0;
  const expectedSourceRevision = apply ? revision('expectedSourceRevision', false) : undefined;
  const source = envNamed(admin, fields.from, 'from');
  const target = envNamed(admin, fields.to, 'to');
  if (source === target) throw validationError('"from" and "to" must be two environments');
  return { source, target, flags: flags as string[] | undefined, expectedRevision, expectedSourceRevision };
}

export function lifecycleRoutes<G extends Authenticated>(deps: LifecycleRouteDeps): Route<G>[] {
  const { admin, lifecycle, copies, envView, projectView } = deps;
  return [
    defineRoute<G>(
      'projects/:project',
      {
        PATCH: {
          readOnly: false,
          body: true,
          action: 'rename projects',
          handler: async ({ res, params, body }) =>
            sendJson(res, 200, projectView(await lifecycle.renameProject(params.project!, newKey(body)))),
        },
        DELETE: {
          readOnly: false,
          body: false,
          action: 'delete projects',
          handler: async ({ res, params }) => {
            await lifecycle.deleteProject(params.project!);
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
          body: true,
          action: 'rename environments',
          handler: async ({ res, params, body }) => {
            const env = await lifecycle.renameEnvironment(params.project!, params.env!, newKey(body));
            sendJson(res, 200, envView(env));
          },
        },
        DELETE: {
          readOnly: false,
          body: false,
          action: 'delete environments',
          handler: async ({ res, params }) => {
            await lifecycle.deleteEnvironment(params.project!, params.env!);
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
          body: true,
          action: 'copy flags',
          handler: async ({ res, body }) => {
            const preview: CopyPreview = await copies.preview(copyBody(admin, body, false));
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
          body: true,
          action: 'copy flags',
          handler: async ({ res, body }) => {
            const done: CopyPreview = await copies.apply(copyBody(admin, body, true), { type: 'dashboard' });
            sendJson(res, 200, done);
          },
        },
      },
      true,
    ),
  ];
}
