/**
 * Evaluation of a compiled flag (`docs/protocol.md` §12.4), the one implementation for the SDK,
 * OFREP and the test kit:
 *
 * 1. disabled: the off variant, `OFF`;
 * 2. prerequisites in order; one that does not serve one of its variants: the off variant,
 *    `PREREQUISITE_FAILED`;
 * 3. targets: `TARGET_MATCH`;
 * 4. rules in order, the first that matches and does not land on a `null` slice: `RULE_MATCH`
 *    (a split without a bucket value skips its rule, unless all its weight is on one slice);
 * 5. the fallthrough: `FALLTHROUGH`; a split without a bucket value: the off variant,
 *    `MISSING_USER_KEY`.
 *
 * A plain flag (no targets, rules, prerequisites or custom fallthrough) answers with the reasons
 * of a flag without targeting: `ON`, `OFF`, `ROLLOUT_IN`, `ROLLOUT_OUT`, `MISSING_USER_KEY`, and
 * takes the short way (steps 1 and 5 only): there is no second evaluator. A malformed flag, a
 * dangling prerequisite or segment, or prerequisites deeper than 5: `ERROR`, the caller's
 * default.
 *
 * The answer is a variant index. Why is left in `lastOutcome`, which the caller reads before it
 * evaluates again: one object for every evaluation, so that evaluating allocates nothing.
 */

import { murmur3Continue } from '../murmur3.js';
import type { User } from '../types.js';
import { type AttributePath, attributeOf } from './attributes.js';
import { type CompiledClause, clauseHolds, Test } from './clauses.js';
import type { CompiledFlag, CompiledSegment, TargetingReason } from './compiled.js';
import { pointOf, served } from './split.js';

/** What the last evaluation found, besides the variant: read it before evaluating again. */
export interface Outcome {
  reason: TargetingReason;
  /** `RULE_MATCH`: the rule's index and id. */
  ruleIndex: number;
  ruleId: string;
  /** `PREREQUISITE_FAILED`: the flag that failed. */
  prerequisiteKey: string;
  /** A plain rollout decided by the user's bucket: the bucket, 1..100; else 0. */
  bucket: number;
  /** `ERROR`: what went wrong. */
  error: string;
}

/** The one outcome record every evaluation writes (see `Outcome`): read it before evaluating again. */
export const lastOutcome: Outcome = {
  reason: 'OFF',
  ruleIndex: -1,
  ruleId: '',
  prerequisiteKey: '',
  bucket: 0,
  error: '',
};

/** The flags and segments a flag's prerequisites and clauses refer to. */
export interface TargetingContext {
  flag(key: string): CompiledFlag | undefined;
  segment(key: string): CompiledSegment | undefined;
}

/** Prerequisites nested deeper than this are refused when saved; met anyway, they are an error. */
const MAX_DEPTH = 5;

class EvaluationError extends Error {}

const fail = (why: string): never => {
  throw new EvaluationError(why);
};

/**
 * Whether every clause holds (no clauses: everyone). A clause on the attribute the clause before
 * it read (the same `path`) tests the value read then: a rule reads `age` once for
 * `age >= 18 and age < 65`.
 */
function allHold(
  clauses: readonly CompiledClause[],
  user: User | undefined,
  context: TargetingContext,
): boolean {
  // No attribute is `/` (that is a pointer, an array): a string, so that comparing paths stays
  // a comparison of strings.
  let path: AttributePath = '/';
  let value: unknown;
  for (let i = 0; i < clauses.length; i++) {
    const clause = clauses[i]!;
    let holds = false;
    if (clause.test === Test.InSegment) {
      const segments = clause.operands;
      for (let k = 0; k < segments.length && !holds; k++) holds = inSegment(segments[k]!, user, context);
    } else {
      if (clause.path !== path) {
        path = clause.path;
        value = attributeOf(user, path);
      }
      holds = clauseHolds(clause, value);
    }
    if (holds === clause.negate) return false;
  }
  return true;
}

/**
 * The evaluation under way: a segment or prerequisite decided in it is not decided again
 * (`docs/protocol.md` §12.10), however often the flag's graph names it. Evaluation is
 * synchronous, so a counter on the compiled objects is enough: no allocation.
 */
let evaluation = 0;

/** Whether `user` is in segment `key`: included, else not when excluded, else when a rule holds. */
function inSegment(key: string, user: User | undefined, context: TargetingContext): boolean {
  const segment = context.segment(key) ?? fail(`no segment ${key}`);
  if (segment.malformed) fail(`segment ${key}: ${segment.malformed}`);
  if (segment.seenAt === evaluation) return segment.holds;
  let holds = false;
  const userKey = attributeOf(user, 'key');
  if (typeof userKey === 'string' && segment.included.has(userKey)) holds = true;
  else if (!(typeof userKey === 'string' && segment.excluded.has(userKey)))
    for (let i = 0; i < segment.rules.length && !holds; i++)
      holds = allHold(segment.rules[i]!, user, context);
  segment.seenAt = evaluation;
  segment.holds = holds;
  return holds;
}

/** The variant index a prerequisite serves, decided once per evaluation (a plain flag the short way). */
function servedBy(
  parent: CompiledFlag,
  user: User | undefined,
  context: TargetingContext,
  depth: number,
): number {
  if (parent.seenAt === evaluation) return parent.served;
  const index = parent.quick ? quickVariant(parent, user) : variantOf(parent, user, context, depth);
  parent.seenAt = evaluation;
  parent.served = index;
  return index;
}

/** Records why (a plain rollout's `bucket`, else 0) and answers `index`. */
function settle(reason: TargetingReason, index: number, bucket = 0): number {
  lastOutcome.reason = reason;
  lastOutcome.bucket = bucket;
  return index;
}

function variantOf(
  flag: CompiledFlag,
  user: User | undefined,
  context: TargetingContext,
  depth: number,
): number {
  if (flag.malformed) fail(flag.malformed);
  if (!flag.enabled) return settle('OFF', flag.off);
  for (let i = 0; i < flag.prerequisites.length; i++) {
    const prerequisite = flag.prerequisites[i]!;
    const parent = context.flag(prerequisite.flag);
    if (!parent || depth >= MAX_DEPTH) fail(`prerequisite ${prerequisite.flag} cannot be evaluated`);
    if (!prerequisite.variants.has(parent!.names[servedBy(parent!, user, context, depth + 1)]!)) {
      lastOutcome.prerequisiteKey = prerequisite.flag;
      return settle('PREREQUISITE_FAILED', flag.off);
    }
  }
  if (flag.targets) {
    const key = attributeOf(user, 'key');
    const target = typeof key === 'string' ? flag.targets.get(key) : undefined;
    if (target !== undefined) return settle('TARGET_MATCH', target);
  }
  for (let i = 0; i < flag.rules.length; i++) {
    const rule = flag.rules[i]!;
    if (!allHold(rule.clauses, user, context)) continue;
    const index = served(rule.serve, user);
    if (index < 0) continue;
    lastOutcome.ruleIndex = i;
    lastOutcome.ruleId = rule.id;
    return settle('RULE_MATCH', index);
  }
  return fallthrough(flag, user);
}

/**
 * The fallthrough's variant: `FALLTHROUGH`; for a plain flag the reasons of a flag without
 * targeting (`ON`, a rollout's `ROLLOUT_IN` / `ROLLOUT_OUT` with the user's bucket where it
 * decided); a split without a bucket value: the off variant, `MISSING_USER_KEY`.
 */
function fallthrough(flag: CompiledFlag, user: User | undefined): number {
  const serve = flag.fallthrough;
  const index = served(serve, user);
  if (index < 0) return settle('MISSING_USER_KEY', flag.off);
  if (!flag.plain) return settle('FALLTHROUGH', index);
  if (!flag.rollout) return settle('ON', index);
  // The bucket of the key that decided (a string, `served`), hashed again: of the rollouts with a
  // split, only one of a fraction of a percent comes here (`quickVariant` decides the others).
  const bucket =
    serve.fixed === -1
      ? Math.floor(pointOf(serve.prefix!, attributeOf(user, 'key') as string) / 1000) + 1
      : 0;
  return settle(index === flag.off ? 'ROLLOUT_OUT' : 'ROLLOUT_IN', index, bucket);
}

/**
 * The short way of a plain flag (`flag.quick`: nothing but its fallthrough, a boolean or a
 * rollout say), or of a flag whose answer is compiled in: steps 1 and 5 only, the same answer
 * and reason as the whole way. The hot path of `isEnabled`: no try, no evaluation counter.
 */
export function quickVariant(flag: CompiledFlag, user: User | undefined): number {
  if (flag.answer >= 0) return settle(flag.answerReason, flag.answer);
  if (!flag.rollout) return fallthrough(flag, user);
  // A rollout of a whole percentage: its split of `on` and `off` by the user's key, a string
  // (`served`, §6); `f < 1000 p` is `bucket <= p`, so the hash modulo 100 decides.
  const key = attributeOf(user, 'key');
  if (typeof key !== 'string' || key === '') return settle('MISSING_USER_KEY', flag.off);
  const serve = flag.fallthrough;
  const bucket = murmur3Continue(serve.prefix!, key, 100) + 1;
  const index = bucket * 1000 <= serve.bounds[0]! ? serve.slices[0]! : serve.slices[1]!;
  return settle(index === flag.off ? 'ROLLOUT_OUT' : 'ROLLOUT_IN', index, bucket);
}

/**
 * The index of the variant `flag` serves `user`, with why in `lastOutcome`; -1 with reason `ERROR`
 * when it cannot be evaluated (the caller answers its default).
 */
export function evaluateVariant(
  flag: CompiledFlag,
  user: User | undefined,
  context: TargetingContext,
): number {
  if (flag.quick || flag.answer >= 0) return quickVariant(flag, user);
  evaluation++;
  try {
    return variantOf(flag, user, context, 0);
  } catch (error) {
    if (!(error instanceof EvaluationError)) throw error;
    lastOutcome.error = error.message;
    return settle('ERROR', -1);
  }
}
