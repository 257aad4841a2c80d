/**
 * The client's typed evaluation (`docs/protocol.md` §9.1, §12.4) over the store's entries: a
 * plain flag (boolean or rollout without targeting) through today's evaluation
 * (`../core/evaluate.ts`), anything else through the one targeting evaluator
 * (`../core/targeting/evaluate.ts`). `servedValue` is the hot path of `isEnabled`, `getString`,
 * `getNumber` and `getJson`: one map lookup, nothing allocated; `servedDetail` builds the answer
 * with why. Both count the evaluation in the entry's usage counters when it has them
 * (`usage-counts.ts`, `docs/protocol.md` §13.2): one increment.
 */
import { evaluateDetail, evaluateFlag } from '../core/evaluate.js';
import { attributeOf } from '../core/targeting/attributes.js';
import { isStatic } from '../core/targeting/compile.js';
import { evaluateVariant, OUTCOME, type TargetingContext } from '../core/targeting/evaluate.js';
import type { FlagDetail, User } from '../core/types.js';
import type { FlagEntry } from './flag-store.js';
import { slot } from './usage-counts.js';

/** What a call asks for: `boolean` (`isEnabled`) fits `boolean` and `rollout` flags. */
export type ValueKind = 'boolean' | 'string' | 'number' | 'json';

/** The kind of value a flag of `type` serves. */
const kindOf = (type: string): string => (type === 'rollout' ? 'boolean' : type);

/** The kind `getDetail(key, user, defaultValue)` asks for: objects, arrays and `null` ask for `json`. */
export const kindOfDefault = (value: unknown): ValueKind => {
  const type = typeof value;
  return type === 'boolean' || type === 'string' || type === 'number' ? type : 'json';
};

/** Whether a flag of `type` answers a call for `kind`. */
const fits = (type: string, kind: ValueKind): boolean => kindOf(type) === kind;

/**
 * The counter slots of a plain flag's answers (variants `on` 0, `off` 1) and of the caller's
 * default, `slot(variant, reason)` written out (`(variant + 1) * 10` plus the reason's index in
 * `COUNTED_REASONS`), so the minifier inlines them: `OFF` is `slot(1, 'OFF')`, `ON` `slot(0, 'ON')`,
 * `IN` `slot(0, 'ROLLOUT_IN')`, `OUT` `slot(1, 'ROLLOUT_OUT')`, `MISSING` `slot(1,
 * 'MISSING_USER_KEY')`, `DEFAULT` `slot(-1, 'ERROR')`. test/usage-plain-slots.test.ts holds them to it.
 */
const OFF = 21;
const ON = 10;
const IN = 12;
const OUT = 23;
const MISSING = 24;
const DEFAULT = 9;

/** The slot of what a plain flag answered `user` (`evaluateFlag` says only the value). */
function plainSlot(flag: FlagEntry['flag'], user: User | undefined, value: boolean): number {
  if (!flag.enabled) return OFF;
  if (flag.type !== 'rollout') return ON;
  if (value) return IN;
  const p = flag.percentage ?? 0;
  return p > 0 && p < 100 && !attributeOf(user, 'key') ? MISSING : OUT;
}

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
  if (entry.plain && kind === 'boolean') {
    const value = evaluateFlag(entry.flag, user, defaultValue === true, entry.prefix);
    if (n) n[plainSlot(entry.flag, user, value)]!++;
    return value;
  }
  if (!fits(compiled.type, kind)) {
    if (n) n[DEFAULT]!++;
    return defaultValue;
  }
  const index = evaluateVariant(compiled, user, context);
  if (n) n[slot(index, OUTCOME.reason)]!++;
  return index < 0 ? defaultValue : compiled.values[index];
}

/**
 * `servedValue` with why (`loaded`: whether flags are loaded, for `NOT_READY`). `named`: a plain
 * flag's answer names its variant, and says `static` where it is (`getDetail`; `isEnabledDetail`
 * answers as it always has).
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
  const { version } = entry.flag;
  if (!fits(compiled.type, kind)) {
    if (n) n[DEFAULT]!++;
    return { value: defaultValue, reason: 'ERROR', errorCode: 'TYPE_MISMATCH', version };
  }
  if (entry.plain) {
    const detail = evaluateDetail(entry.flag, user, defaultValue === true, loaded, entry.prefix);
    if (n) n[slot(detail.value ? 0 : 1, detail.reason)]!++;
    if (named) {
      detail.variant = detail.value ? 'on' : 'off';
      if (isStatic(compiled)) detail.static = true;
    }
    return detail as FlagDetail<unknown> as FlagDetail<T>;
  }
  const index = evaluateVariant(compiled, user, context);
  const { reason } = OUTCOME;
  if (n) n[slot(index, reason)]!++;
  if (index < 0) return { value: defaultValue, reason: 'ERROR', errorCode: 'MALFORMED_FLAG', version };
  const detail: FlagDetail<T> = {
    value: compiled.values[index] as T,
    variant: compiled.names[index]!,
    reason,
    version,
  };
  if (reason === 'RULE_MATCH') {
    detail.ruleIndex = OUTCOME.ruleIndex;
    detail.ruleId = OUTCOME.ruleId;
    if (compiled.rules[OUTCOME.ruleIndex]!.serve.bounds.length > 0) detail.split = true;
  } else if (reason === 'PREREQUISITE_FAILED') {
    detail.prerequisiteKey = OUTCOME.prerequisiteKey;
  } else if (reason === 'FALLTHROUGH' || reason === 'ROLLOUT_IN' || reason === 'ROLLOUT_OUT') {
    if (compiled.fallthrough.bounds.length > 0) detail.split = true;
  }
  if (OUTCOME.bucket > 0) detail.bucket = OUTCOME.bucket;
  if (isStatic(compiled)) detail.static = true;
  return detail;
}
