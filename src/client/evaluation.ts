/**
 * The client's typed evaluation (`docs/protocol.md` §9.1, §12.4) over the store's entries, through
 * the one evaluator (`../core/targeting`): `evaluateVariant` for the value, `evaluate` for the
 * answer with why; a plain flag takes the evaluator's short way, not another engine. `servedValue`
 * is the hot path of `isEnabled`, `getString`, `getNumber` and `getJson`: one map lookup, nothing
 * allocated; `servedDetail` builds the answer with why. Both count the evaluation in the entry's
 * usage counters when it has them (`usage-counts.ts`, `docs/protocol.md` §13.2): one increment.
 */
import { evaluate } from '../core/targeting/detail.js';
import {
  evaluateVariant,
  lastOutcome,
  quickVariant,
  type TargetingContext,
} from '../core/targeting/evaluate.js';
import type { FlagDetail, User } from '../core/types.js';
import type { FlagEntry } from './flag-entry.js';
import { slot } from './usage-counts.js';

/** What a call asks for: `boolean` (`isEnabled`) fits `boolean` and `rollout` flags. */
export type ValueKind = 'boolean' | 'string' | 'number' | 'json';

/** The kind `getDetail(key, user, defaultValue)` asks for: objects, arrays and `null` ask for `json`. */
export const kindOfDefault = (value: unknown): ValueKind => {
  const type = typeof value;
  return type === 'boolean' || type === 'string' || type === 'number' ? type : 'json';
};

/** The counter slot of the caller's default, `slot(-1, 'ERROR')` written out (the minifier inlines it). */
const DEFAULT = 9;

/** The value `entry` serves `user`, or `defaultValue` (no flag, another kind, an error). */
export function servedValue(
  entry: FlagEntry | undefined,
  user: User | undefined,
  defaultValue: unknown,
  kind: ValueKind,
  context: TargetingContext,
): unknown {
  if (entry === undefined) return defaultValue;
  const { compiled, n } = entry;
  if (compiled.kind !== kind) {
    if (n) n[DEFAULT]!++;
    return defaultValue;
  }
  // A flag nothing can vary (disabled, or static) has its answer compiled in (`CompiledFlag.answer`).
  const answer = compiled.answer;
  if (answer >= 0) {
    if (n) n[slot(answer, compiled.answerReason)]!++;
    return compiled.values[answer];
  }
  const index = compiled.quick ? quickVariant(compiled, user) : evaluateVariant(compiled, user, context);
  if (n) n[slot(index, lastOutcome.reason)]!++;
  return index < 0 ? defaultValue : compiled.values[index];
}

/**
 * `servedValue` with why (`loaded`: whether flags are loaded, for `NOT_READY`). `named`: the
 * answer names its variant and says `static` (`getDetail`); `isEnabledDetail` answers a plain
 * boolean or rollout flag as it always has, without them.
 */
export function servedDetail<T>(
  entry: FlagEntry | undefined,
  user: User | undefined,
  defaultValue: T,
  kind: ValueKind,
  context: TargetingContext,
  loaded: boolean,
  named: boolean,
): FlagDetail<T> {
  if (entry === undefined) return { value: defaultValue, reason: loaded ? 'FLAG_NOT_FOUND' : 'NOT_READY' };
  const { compiled, n } = entry;
  if (compiled.kind !== kind) {
    if (n) n[DEFAULT]!++;
    return { value: defaultValue, reason: 'ERROR', errorCode: 'TYPE_MISMATCH', version: entry.flag.version };
  }
  const detail = evaluate(compiled, user, context) as FlagDetail<unknown>;
  if (n)
    n[slot(detail.variant === undefined ? -1 : compiled.names.indexOf(detail.variant), detail.reason)]!++;
  if (detail.reason === 'ERROR') detail.value = defaultValue;
  else if (!named && compiled.plain && kind === 'boolean') {
    delete detail.variant;
    delete detail.static;
  }
  return detail as FlagDetail<T>;
}
