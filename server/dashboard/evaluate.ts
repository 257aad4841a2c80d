/**
 * "Who gets what" (`docs/protocol.md` §10.3): `POST /admin/api/evaluate` evaluates one flag of an
 * environment for a user the page describes, as saved and, when the page sends one, as its
 * unsaved edit, with the SDK's own compiler and evaluator (`src/core/targeting`) against the
 * environment's segments and flags (prerequisites). `matches` patterns are parsed here, so the
 * page carries no parser. The edit is checked exactly as a `PATCH` of the flag would be, and
 * nothing is written.
 */
import { type Static, Type } from '@sinclair/typebox';
import type { Refused, Served } from '../../src/core/admin-wire.js';
import { EvaluateAnswer, EvaluateInput } from '../../src/core/schemas/admin.js';
import { compileFlag } from '../../src/core/targeting/compile.js';
import { evaluate } from '../../src/core/targeting/detail.js';
import type { TargetingContext } from '../../src/core/targeting/evaluate.js';
import { checkPattern, compileMatches } from '../../src/core/targeting/patterns.js';
import { validateUpdateFlag } from '../../src/core/validation.js';
import { ApiError, checked } from '../errors.js';
import { errorAnswer, ok } from '../http/openapi.js';
import { sendJson } from '../http/respond.js';
import { defineRoute, type Route } from '../http/router.js';
import type { AdminService } from '../state/admin/admin-service.js';
import { compiledFlag, targetingContext } from '../state/flags/compiled.js';
import type { FlagService } from '../state/flags/flag-service.js';
import { applyTargeting } from '../state/flags/targeting.js';
import type { Ledger } from '../state/kernel/ledger.js';
import type { Environment, StoredFlag } from '../state/kernel/model.js';

/**
 * The body as it is checked: `draft` only as an object here, since what a `PATCH` would refuse in
 * it is the answer's `draft` (`Refused`), not a `400`.
 */
const EvaluateBody = Type.Composite(
  [
    Type.Omit(EvaluateInput, ['draft']),
    Type.Object({
      draft: Type.Optional(
        Type.Object({}, { errorMessage: "must be the flag's fields as a PATCH sends them" }),
      ),
    }),
  ],
  { additionalProperties: false },
);

/** The body: `{environment: "P/E", flag, user, draft?}`. */
function bodyOf(admin: AdminService, body: unknown) {
  const { environment, flag, user, draft } = checked(EvaluateBody, body);
  const [project, name] = environment.split('/') as [string, string];
  return { env: admin.environment(project, name), key: flag, user: user as Record<string, unknown>, draft };
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
    if (error instanceof ApiError && (error.code === 'VALIDATION_ERROR' || error.code === 'CONFLICT'))
      return { error: error.code, message: error.message };
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
  const { reason } = why;
  // An evaluation of a flag that exists: never FLAG_NOT_FOUND or NOT_READY.
  if (reason === 'ERROR' || reason === 'FLAG_NOT_FOUND' || reason === 'NOT_READY')
    return { value: null, reason: 'ERROR', errorCode: 'MALFORMED_FLAG', error: errorMessage ?? '' };
  return { value: value ?? null, ...why, reason };
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
          doc: {
            summary: 'What a flag serves a user, as saved and as an unsaved edit (nothing is written)',
            body: EvaluateInput,
            answers: {
              200: ok(
                "The saved flag's answer, and the draft's (or why a `PATCH` would refuse it)",
                EvaluateAnswer,
              ),
              404: errorAnswer('`NOT_FOUND`: no such environment or flag'),
            },
          },
          handler: async ({ res, body }) => {
            const { env, key, user, draft } = bodyOf(admin, body);
            const answer = await ledger.readSettled(env.id, () => {
              const flag = flags.requireFlag(env, key);
              const context = targetingContext(env);
              const out: Static<typeof EvaluateAnswer> = {
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
