/**
 * Flags and segments compiled when they load (`docs/protocol.md` §12): variants by index, targets
 * as one map, clauses with parsed values, splits with their hash prefix. Evaluation then only
 * reads. A flag this SDK cannot use (an operator from a newer server, a dangling variant) compiles
 * to a malformed flag, which evaluates to the caller's default with reason `ERROR`. The shapes it
 * builds are in `compiled.ts` (the evaluator reads them without importing the compiler).
 */
import { compileClause, type PatternCompiler, Test } from './clauses.js';
import type { CompiledFlag, CompiledSegment, FlagSource } from './compiled.js';
import { evaluateVariant, lastOutcome, type TargetingContext } from './evaluate.js';
import { type CompiledServe, compileServe, SPLIT_TOTAL } from './split.js';
import type { Clause, JsonValue, Segment } from './types.js';

export type { CompiledFlag, CompiledRule, CompiledSegment, FlagSource } from './compiled.js';

const BOOLEAN_VARIANTS: Record<string, JsonValue> = { on: true, off: false };

/** What a flag nothing can vary needs of its environment to be answered: nothing. */
const NO_CONTEXT: TargetingContext = { flag: () => undefined, segment: () => undefined };

const clausesOf = (rule: { clauses: Clause[] }, patterns: PatternCompiler | undefined) =>
  rule.clauses.map((clause) => compileClause(clause, patterns));

/** Compiles a flag; never throws (a flag it cannot use is `malformed`). */
export function compileFlag(flag: FlagSource, patterns?: PatternCompiler): CompiledFlag {
  const { key, type, targets, rules, prerequisites, fallthrough } = flag;
  const binary = type === 'boolean' || type === 'rollout';
  const variants = binary ? BOOLEAN_VARIANTS : (flag.variants ?? {});
  const names = Object.keys(variants);
  const compiled: CompiledFlag = {
    key,
    type,
    enabled: flag.enabled,
    version: flag.version,
    names,
    values: Object.values(variants),
    off: 0,
    targets: undefined,
    rules: [],
    prerequisites: [],
    fallthrough: undefined as unknown as CompiledServe,
    plain: !targets?.length && !rules?.length && !prerequisites?.length && !fallthrough,
    malformed: undefined,
    quick: false,
    kind: binary ? 'boolean' : type,
    rollout: type === 'rollout',
    answer: -1,
    answerReason: 'OFF',
    seenAt: 0,
    served: -1,
  };
  try {
    const indexOf = (name: string | null): number => {
      const index = names.indexOf(name as string);
      if (index < 0) throw new Error(`no variant ${name}`);
      return index;
    };
    compiled.off = indexOf(binary ? 'off' : (flag.offVariant ?? names[0]!));
    const salt = flag.salt ?? key;
    // A rollout's fallthrough is its percentage, as a split of `on` and `off` (NaN: no one).
    const percentage = flag.percentage ?? 0;
    const on = percentage > 0 ? Math.round(Math.min(percentage, 100) * 1000) : 0;
    compiled.fallthrough = compileServe(
      type === 'rollout'
        ? {
            split: [
              { variant: 'on', weight: on },
              { variant: 'off', weight: SPLIT_TOTAL - on },
            ],
          }
        : (fallthrough ?? { variant: binary ? 'on' : names[0]! }),
      salt,
      indexOf,
    );
    // A plain rollout buckets string keys only, as the rollout formula does (§6).
    if (type === 'rollout' && compiled.plain) compiled.fallthrough.integers = false;
    if (targets?.length) {
      const map = new Map<string, number>();
      for (const target of targets) {
        const index = indexOf(target.variant);
        for (const user of target.keys) if (!map.has(user)) map.set(user, index);
      }
      compiled.targets = map;
    }
    compiled.rules = (rules ?? []).map((rule) => ({
      id: rule.id,
      clauses: clausesOf(rule, patterns),
      serve: compileServe(rule.serve, salt, (name) => (name === null ? -1 : indexOf(name))),
    }));
    compiled.prerequisites = (prerequisites ?? []).map((p) => ({
      flag: p.flag,
      variants: new Set(p.variants),
    }));
  } catch (error) {
    compiled.malformed = (error as Error).message;
  }
  // Nothing can vary it (disabled, or `isStatic`): the evaluator's own answer (the whole
  // way), once, compiled in.
  if (compiled.malformed === undefined && (!compiled.enabled || isStatic(compiled))) {
    compiled.answer = evaluateVariant(compiled, undefined, NO_CONTEXT);
    compiled.answerReason = lastOutcome.reason;
  }
  // A rollout of a whole percentage (every one the server stores, §3) takes the short way.
  compiled.quick =
    compiled.plain &&
    compiled.malformed === undefined &&
    (!compiled.rollout || compiled.fallthrough.bounds[0]! % 1000 === 0);
  return compiled;
}

/**
 * Whether `flag` serves every user its fallthrough's one variant, nothing in it able to vary the
 * answer: enabled, no targets, rules or prerequisites, and a fallthrough on one variant (a rollout
 * at 0 or 100 %, or a split with all its weight on one slice, included). Such an answer is
 * OpenFeature's `STATIC`; a disabled flag's is `DISABLED`, and where targeting exists and the
 * fallthrough served, `DEFAULT` or `SPLIT` (`docs/protocol.md` §11.2). The one place this is
 * decided: the SDK's detail, the dashboard and OFREP ask it.
 */
export const isStatic = (flag: CompiledFlag): boolean =>
  flag.enabled &&
  flag.malformed === undefined &&
  flag.targets === undefined &&
  flag.rules.length === 0 &&
  flag.prerequisites.length === 0 &&
  flag.fallthrough.fixed !== -1;

/** Compiles a segment; never throws (one it cannot use is `malformed`: no one is in it). */
export function compileSegment(segment: Segment, patterns?: PatternCompiler): CompiledSegment {
  const compiled: CompiledSegment = {
    included: new Set(segment.included),
    excluded: new Set(segment.excluded),
    rules: [],
    malformed: undefined,
    seenAt: 0,
    holds: false,
  };
  try {
    compiled.rules = segment.rules.map((rule) => {
      const clauses = clausesOf(rule, patterns);
      if (clauses.some((clause) => clause.test === Test.InSegment))
        throw new Error('a segment names a segment');
      return clauses;
    });
  } catch (error) {
    compiled.malformed = (error as Error).message;
  }
  return compiled;
}
