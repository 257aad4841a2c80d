/**
 * Evaluation of a compiled flag (CONTRACT "Evaluation", `docs/protocol.md` §12.4), the one
 * implementation for the SDK, OFREP and the test kit:
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
 * A plain flag (no targets, rules, prerequisites or custom fallthrough) keeps today's reasons:
 * `ON`, `OFF`, `ROLLOUT_IN`, `ROLLOUT_OUT`, `MISSING_USER_KEY`. A malformed flag, a dangling
 * prerequisite or segment, or prerequisites deeper than 5: `ERROR`, the caller's default.
 *
 * The answer is a variant index; why is left in `OUTCOME`, module scratch, so that evaluating
 * allocates nothing.
 */
import type { User } from '../types.js';
import { allHold, type SegmentLookup } from './clauses.js';
import type { CompiledFlag, CompiledSegment } from './compile.js';
import { sliceAt, splitPoint } from './split.js';

/** Why a flag served what it served (`docs/protocol.md` §12.4). */
export type TargetingReason =
  | 'OFF'
  | 'ON'
  | 'ROLLOUT_IN'
  | 'ROLLOUT_OUT'
  | 'MISSING_USER_KEY'
  | 'PREREQUISITE_FAILED'
  | 'TARGET_MATCH'
  | 'RULE_MATCH'
  | 'FALLTHROUGH'
  | 'ERROR';

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

export const OUTCOME: Outcome = {
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

/** Whether `user` is in `segment`: included, else not when excluded, else when a rule holds. */
function inSegment(segment: CompiledSegment, user: User | undefined, lookup: SegmentLookup): boolean {
  if (segment.malformed) throw new EvaluationError(`segment: ${segment.malformed}`);
  const key = typeof user === 'string' ? user : user?.key;
  if (typeof key === 'string') {
    if (segment.included.has(key)) return true;
    if (segment.excluded.has(key)) return false;
  }
  for (let i = 0; i < segment.rules.length; i++) if (allHold(segment.rules[i]!, user, lookup)) return true;
  return false;
}

/** The segment lookup of clauses, over a context (one per context, made once). */
const lookups = new WeakMap<TargetingContext, SegmentLookup>();

function lookupOf(context: TargetingContext): SegmentLookup {
  let lookup = lookups.get(context);
  if (!lookup) {
    const made: SegmentLookup = {
      inSegment(key, user) {
        const segment = context.segment(key);
        if (!segment) throw new EvaluationError(`no segment ${JSON.stringify(key)}`);
        return inSegment(segment, user, made);
      },
    };
    lookup = made;
    lookups.set(context, lookup);
  }
  return lookup;
}

function settle(reason: TargetingReason, index: number): number {
  OUTCOME.reason = reason;
  return index;
}

function variantOf(
  flag: CompiledFlag,
  user: User | undefined,
  context: TargetingContext,
  depth: number,
): number {
  if (flag.malformed) throw new EvaluationError(flag.malformed);
  OUTCOME.bucket = 0;
  if (!flag.enabled) return settle('OFF', flag.off);
  for (let i = 0; i < flag.prerequisites.length; i++) {
    const prerequisite = flag.prerequisites[i]!;
    const parent = context.flag(prerequisite.flag);
    if (!parent || depth >= MAX_DEPTH)
      throw new EvaluationError(`prerequisite ${JSON.stringify(prerequisite.flag)} cannot be evaluated`);
    const served = variantOf(parent, user, context, depth + 1);
    if (!prerequisite.variants.has(parent.names[served]!)) {
      OUTCOME.prerequisiteKey = prerequisite.flag;
      OUTCOME.bucket = 0;
      return settle('PREREQUISITE_FAILED', flag.off);
    }
  }
  OUTCOME.bucket = 0;
  if (flag.targets) {
    const key = typeof user === 'string' ? user : user?.key;
    const target = typeof key === 'string' ? flag.targets.get(key) : undefined;
    if (target !== undefined) return settle('TARGET_MATCH', target);
  }
  const lookup = flag.rules.length > 0 ? lookupOf(context) : undefined;
  for (let i = 0; i < flag.rules.length; i++) {
    const rule = flag.rules[i]!;
    if (!allHold(rule.clauses, user, lookup!)) continue;
    const { serve } = rule;
    let index = serve.fixed;
    if (index === -1) {
      const point = splitPoint(serve, user);
      if (point < 0) continue;
      index = sliceAt(serve, point);
    }
    if (index < 0) continue;
    OUTCOME.ruleIndex = i;
    OUTCOME.ruleId = rule.id;
    return settle('RULE_MATCH', index);
  }
  const { fallthrough } = flag;
  const rollout = flag.plain && flag.type === 'rollout';
  let index = fallthrough.fixed;
  if (index === -1) {
    const point = splitPoint(fallthrough, user);
    if (point < 0) return settle('MISSING_USER_KEY', flag.off);
    index = sliceAt(fallthrough, point);
    if (rollout) OUTCOME.bucket = Math.floor(point / 1000) + 1;
  }
  if (rollout) return settle(index === flag.off ? 'ROLLOUT_OUT' : 'ROLLOUT_IN', index);
  return settle(flag.plain ? 'ON' : 'FALLTHROUGH', index);
}

/**
 * The index of the variant `flag` serves `user`, with why in `OUTCOME`; -1 with reason `ERROR`
 * when it cannot be evaluated (the caller answers its default).
 */
export function evaluateVariant(
  flag: CompiledFlag,
  user: User | undefined,
  context: TargetingContext,
): number {
  try {
    return variantOf(flag, user, context, 0);
  } catch (error) {
    if (!(error instanceof EvaluationError)) throw error;
    OUTCOME.error = error.message;
    OUTCOME.bucket = 0;
    return settle('ERROR', -1);
  }
}
