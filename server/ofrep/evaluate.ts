/**
 * OFREP evaluation (`docs/protocol.md` §11): the request's context, one flag or all of them
 * evaluated by the SDK's one evaluation path (`evaluate`, `src/core/targeting/detail.ts`) and
 * mapped by the one OpenFeature mapping (`src/core/openfeature-outcome.ts`), and the bulk
 * answer's ETag.
 */

import { canonicalJson } from '../../src/core/canonical-json.js';
import { isObject } from '../../src/core/is-object.js';
import { CONTEXT_BOUNDS, CONTEXT_BYTES, jsonProblem } from '../../src/core/json-limits.js';
import { openFeatureOutcome } from '../../src/core/openfeature-outcome.js';
import { checkSchema } from '../../src/core/schemas/check.js';
import { OfrepEvaluationRequest } from '../../src/core/schemas/ofrep.js';
import { evaluate } from '../../src/core/targeting/detail.js';
import { kind } from '../../src/core/targeting/validate-shape.js';
import { contentEtag } from '../http/etag.js';
import { compiledFlag, targetingContext } from '../state/flags/compiled.js';
import type { Environment } from '../state/kernel/model.js';

/** An OFREP error: its status, and the body `{key?, errorCode, errorDetails}`. */
export class OfrepError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    message: string,
  ) {
    super(message);
  }
}

export interface OfrepContext {
  /** The whole context, as sent. */
  raw: Record<string, unknown>;
  targetingKey: string | undefined;
  /** The context as targeting reads it: its attributes, with the `targetingKey` as `key` (made once per request). */
  user: Record<string, unknown>;
}

/** `{context: {...}}`; a missing body or context is an empty context (the server provider may send `{}`). */
export function parseContext(body: unknown): OfrepContext {
  if (body === undefined) return { raw: {}, targetingKey: undefined, user: { key: undefined } };
  const checked = checkSchema(OfrepEvaluationRequest, body);
  if (!checked.ok) throw new OfrepError(400, 'INVALID_CONTEXT', checked.message);
  const context: Record<string, unknown> = checked.value.context ?? {};
  // Own properties only (§12.2): an inherited `targetingKey` is no key.
  const key = Object.hasOwn(context, 'targetingKey') ? context.targetingKey : undefined;
  // One rule for single and bulk evaluation (§11.2): a context past its bounds is refused whole.
  const problem =
    jsonProblem(context, CONTEXT_BOUNDS) ??
    (Buffer.byteLength(JSON.stringify(context)) > CONTEXT_BYTES
      ? `it is larger than ${CONTEXT_BYTES} bytes of JSON`
      : undefined);
  if (problem) throw new OfrepError(400, 'INVALID_CONTEXT', `the context is refused: ${problem}`);
  const targetingKey = typeof key === 'string' && key !== '' ? key : undefined;
  return { raw: context, targetingKey, user: { ...context, key: targetingKey } };
}

/**
 * Told of one evaluation, in Flagwire's words (§13.5): the flag's version (`undefined`: no such
 * flag), the variant served (`null`: none) and the reason.
 */
export type EvaluationCounter = (
  key: string,
  version: number | undefined,
  variant: string | null,
  reason: string,
) => void;

/** One flag's OFREP answer: a success, or a failure with its own `errorCode`; `count` is told of it. */
export function evaluateOne(
  env: Environment,
  key: string,
  context: OfrepContext,
  count?: EvaluationCounter,
): Record<string, unknown> {
  const flag = env.flags.get(key);
  if (!flag) {
    count?.(key, undefined, null, 'FLAG_NOT_FOUND');
    return { key, errorCode: 'FLAG_NOT_FOUND', errorDetails: `flag ${key} not found` };
  }
  // The SDK's one evaluation path: the context's attributes, the targetingKey as the user key.
  const detail = evaluate(compiledFlag(flag), context.user, targetingContext(env));
  count?.(key, flag.version, detail.variant ?? null, detail.reason);
  const outcome = openFeatureOutcome(detail, key);
  if (outcome.errorCode) return { key, errorCode: outcome.errorCode, errorDetails: outcome.errorMessage };
  const { value, reason, variant, metadata } = outcome;
  // OFREP carries a json flag's value as `objectFlag`, an object (§12.1): a flag saved before
  // other values were refused answers why, as an error, and keeps serving them to the SDK.
  if (flag.type === 'json' && !isObject(value))
    return {
      key,
      errorCode: 'GENERAL',
      errorDetails: `json flag ${key} serves variant "${variant}", which is ${kind(value)}: OFREP carries objects only; give the flag object variants`,
    };
  // OFREP's reasons (§11.2) have no DEFAULT: a fixed fallthrough after targeting was looked at
  // is the answer of that evaluation, TARGETING_MATCH, marked `fallthrough` in the metadata.
  if (reason === 'DEFAULT')
    return { key, value, reason: 'TARGETING_MATCH', variant, metadata: { ...metadata, fallthrough: true } };
  return { key, value, reason, variant, metadata };
}

/** The HTTP status of a single evaluation's failure. */
export const failureStatus = (errorCode: string): number => (errorCode === 'FLAG_NOT_FOUND' ? 404 : 400);

/**
 * How long one bulk evaluation may run (§11.3): past it, the flags not evaluated yet answer
 * `GENERAL`, so a context at its bounds cannot hold the server (every environment) for long.
 */
export const BULK_BUDGET_MS = 200;

/**
 * Every flag of the environment, sorted by key; `count` is told of each evaluated (§13.5).
 * `spent` is told how many flags the budget left unevaluated, when it ran out.
 */
export function evaluateAll(
  env: Environment,
  context: OfrepContext,
  count?: EvaluationCounter,
  spent?: (left: number) => void,
): Array<Record<string, unknown>> {
  const keys = [...env.flags.keys()].sort();
  // Compiling is done once per stored version, not per request: outside the budget.
  const targeting = targetingContext(env);
  for (const flag of env.flags.values()) compiledFlag(flag);
  for (const key of env.segments.keys()) targeting.segment(key);
  const deadline = performance.now() + BULK_BUDGET_MS;
  const out: Array<Record<string, unknown>> = [];
  for (let i = 0; i < keys.length; i++) {
    if (performance.now() > deadline) {
      for (let j = i; j < keys.length; j++)
        out.push({
          key: keys[j],
          errorCode: 'GENERAL',
          errorDetails: `not evaluated: this bulk request spent its ${BULK_BUDGET_MS} ms; evaluate the flag alone`,
        });
      spent?.(keys.length - i);
      break;
    }
    out.push(evaluateOne(env, keys[i]!, context, count));
  }
  return out;
}

/**
 * The bulk answer's ETag: the environment's history (epoch, revision), the key (its stream URL
 * is the key's), the whole context (the
 * web provider keeps its `If-None-Match` across context changes that keep the `targetingKey`),
 * and the stream token's window (so a client whose stream URL expired gets a new one in a 200).
 */
export function bulkEtag(env: Environment, keyId: string, context: OfrepContext, window: number): string {
  return contentEtag(`${env.epoch}\0${env.revision}\0${keyId}\0${window}\0${canonicalJson(context.raw)}`);
}
