/**
 * "Who gets what" (`docs/protocol.md` §10.3): `POST /admin/api/evaluate` evaluates one flag of an
 * environment for a user the page describes, as saved and, when the page sends one, as its
 * unsaved edit, with the SDK's own compiler and evaluator (`src/core/targeting`) against the
 * environment's segments and flags (prerequisites). `matches` patterns are parsed here, so the
 * page carries no parser. The edit is checked exactly as a `PATCH` of the flag would be, and
 * nothing is written.
 */
import type { EvaluateAnswer, Refused, Served } from '../../src/core/admin-wire.js';
import { compileFlag } from '../../src/core/targeting/compile.js';
import { evaluate } from '../../src/core/targeting/detail.js';
import type { TargetingContext } from '../../src/core/targeting/evaluate.js';
import { checkPattern, compileMatches } from '../../src/core/targeting/patterns.js';
import { flagKeyProblem, validateUpdateFlag } from '../../src/core/validation.js';
import { ApiError, validationError } from '../errors.js';
import { sendJson } from '../http/respond.js';
import { defineRoute, type Route } from '../http/router.js';
import type { AdminService } from '../state/admin/admin-service.js';
import { compiledFlag, targetingContext } from '../state/flags/compiled.js';
import type { FlagService } from '../state/flags/flag-service.js';
import { applyTargeting } from '../state/flags/targeting.js';
import type { Ledger } from '../state/kernel/ledger.js';
import type { Environment, StoredFlag } from '../state/kernel/model.js';

const MAX_ATTRIBUTES = 1000;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The body: `{environment: "P/E", flag, user, draft?}`. */
function bodyOf(admin: AdminService, body: unknown) {
  if (!isObject(body)) throw validationError('request body must be a JSON object');
  for (const name of Object.keys(body))
    if (!['environment', 'flag', 'user', 'draft'].includes(name))
      throw validationError(
        `unknown field ${JSON.stringify(name.slice(0, 100))} (allowed: environment, flag, user, draft)`,
      );
  const parts = typeof body.environment === 'string' ? body.environment.split('/') : [];
  if (parts.length !== 2 || parts.some((p) => flagKeyProblem(p) !== undefined))
    throw validationError('"environment" must be "PROJECT/ENVIRONMENT", e.g. "acme/staging"');
  const env = admin.environment(parts[0]!, parts[1]!);
  if (typeof body.flag !== 'string') throw validationError('"flag" must be a flag key');
  const { user } = body;
  if (!isObject(user)) throw validationError('"user" must be an object: {"key": "...", "attribute": ...}');
  if (user.key !== undefined && user.key !== null && typeof user.key !== 'string')
    throw validationError('"user.key" must be a string');
  if (Object.keys(user).length > MAX_ATTRIBUTES)
    throw validationError(`"user" may have at most ${MAX_ATTRIBUTES} attributes`);
  if ('draft' in body && !isObject(body.draft))
    throw validationError('"draft" must be the flag\'s fields as a PATCH sends them');
  return { env, key: body.flag, user, draft: body.draft as Record<string, unknown> | undefined };
}

/** The flag as `draft` (a `PATCH` body) would make it, or why it would be refused. */
function drafted(env: Environment, before: StoredFlag, draft: Record<string, unknown>): StoredFlag | Refused {
  const patch = validateUpdateFlag(draft, before.type);
  if (!patch.ok) return { error: 'VALIDATION_ERROR', message: patch.message };
  const after: StoredFlag = { ...before };
  const { enabled, percentage, description } = patch.value;
  if (enabled !== undefined) after.enabled = enabled;
  if (percentage !== undefined && before.type === 'rollout') after.percentage = percentage;
  if (description !== undefined) after.description = description;
  try {
    // The very check of a PATCH: the same validation against the environment as it is.
    applyTargeting(env, after, patch.value, checkPattern);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'VALIDATION_ERROR')
      return { error: 'VALIDATION_ERROR', message: error.message };
    throw error;
  }
  return after;
}

/** Evaluates as the SDK's `getDetail` does: the one evaluation path, with the flag's own values. */
function serve(
  compiled: ReturnType<typeof compileFlag>,
  user: Record<string, unknown>,
  context: TargetingContext,
): Served {
  const {
    value,
    errorMessage,
    errorCode: _code,
    version: _version,
    ...why
  } = evaluate(compiled, user as never, context);
  if (why.reason === 'ERROR')
    return { value: null, reason: 'ERROR', errorCode: 'MALFORMED_FLAG', error: errorMessage ?? '' };
  return { value: value ?? null, ...why };
}

export function evaluateRoutes<G extends { access: 'full' }>(
  admin: AdminService,
  flags: FlagService,
  ledger: Ledger,
): Route<G>[] {
  return [
    defineRoute<G>(
      'evaluate',
      {
        POST: {
          readOnly: true,
          body: true,
          action: 'evaluate flags',
          handler: async ({ res, body }) => {
            const { env, key, user, draft } = bodyOf(admin, body);
            const answer = await ledger.readSettled(env.id, () => {
              const flag = flags.requireFlag(env, key);
              const context = targetingContext(env);
              const out: EvaluateAnswer = {
                saved: serve(compiledFlag(flag), user, context),
              };
              if (draft) {
                const edited = drafted(env, flag, draft);
                out.draft =
                  'error' in edited ? edited : serve(compileFlag(edited, compileMatches), user, context);
              }
              return out;
            });
            sendJson(res, 200, answer);
          },
        },
      },
      true,
    ),
  ];
}
