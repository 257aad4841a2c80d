/**
 * The one evaluation path with why (`docs/protocol.md` §9.1, §12.4): `evaluate(flag, user,
 * context)` is a compiled flag's answer for a user as `getDetail` gives it, used by the SDK
 * client, OFREP, the dashboard's "who gets what" and the test kit (through the client). It reads
 * what `evaluateVariant` (the evaluator, `evaluate.ts`) left in `lastOutcome`; only this answer
 * allocates. A flag that cannot be evaluated answers `value: undefined` (the caller's default),
 * reason `ERROR`, `MALFORMED_FLAG` and what went wrong.
 */
import type { FlagDetail, User } from '../types.js';
import { type CompiledFlag, isStatic } from './compile.js';
import { evaluateVariant, lastOutcome, type TargetingContext } from './evaluate.js';
import type { JsonValue } from './types.js';

export function evaluate(
  flag: CompiledFlag,
  user: User | undefined,
  context: TargetingContext,
): FlagDetail<JsonValue | undefined> {
  const index = evaluateVariant(flag, user, context);
  const { reason } = lastOutcome;
  const detail: FlagDetail<JsonValue | undefined> =
    index < 0
      ? { value: undefined, reason: 'ERROR', errorCode: 'MALFORMED_FLAG', errorMessage: lastOutcome.error }
      : { value: flag.values[index], variant: flag.names[index]!, reason };
  if (flag.version !== undefined) detail.version = flag.version;
  if (index < 0) return detail;
  // A split chose: a rule's or the fallthrough's (a plain rollout says so by its reason and bucket).
  if (reason === 'RULE_MATCH') {
    detail.ruleIndex = lastOutcome.ruleIndex;
    detail.ruleId = lastOutcome.ruleId;
    if (flag.rules[lastOutcome.ruleIndex]!.serve.bounds.length > 0) detail.split = true;
  } else if (reason === 'PREREQUISITE_FAILED') detail.prerequisiteKey = lastOutcome.prerequisiteKey;
  else if (reason === 'FALLTHROUGH' && flag.fallthrough.bounds.length > 0) detail.split = true;
  if (lastOutcome.bucket > 0) detail.bucket = lastOutcome.bucket;
  if (isStatic(flag)) detail.static = true;
  return detail;
}
