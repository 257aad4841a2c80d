/**
 * Flags and segments compiled when they load (`docs/protocol.md` §12): variants by index, targets
 * as one map, clauses with parsed values, splits with their hash prefix. Evaluation then only
 * reads. A flag this SDK cannot use (an operator from a newer server, a dangling variant) compiles
 * to a malformed flag, which evaluates to the caller's default with reason `ERROR`.
 */
import type { FlagType } from '../types.js';
import { type CompiledClause, compileClause, type PatternCompiler } from './clauses.js';
import { type CompiledServe, compileServe, SPLIT_TOTAL } from './split.js';
import type { JsonValue, Segment, TargetingFields } from './types.js';

/** The fields of a flag on the wire that evaluation reads. */
export interface FlagSource extends TargetingFields {
  key: string;
  type: FlagType | 'string' | 'number' | 'json';
  enabled: boolean;
  percentage?: number;
  version?: number;
}

export interface CompiledRule {
  id: string;
  clauses: readonly CompiledClause[];
  serve: CompiledServe;
}

export interface CompiledFlag {
  key: string;
  type: FlagSource['type'];
  enabled: boolean;
  version: number | undefined;
  /** Variant names and values, by index. */
  names: readonly string[];
  values: readonly JsonValue[];
  off: number;
  /** User key to the index of the first target's variant that lists it. */
  targets: ReadonlyMap<string, number> | undefined;
  rules: readonly CompiledRule[];
  prerequisites: ReadonlyArray<{ flag: string; variants: ReadonlySet<string> }>;
  fallthrough: CompiledServe;
  /** No targets, rules, prerequisites or custom fallthrough: today's reasons (`ON`, `ROLLOUT_IN`...). */
  plain: boolean;
  /** Why it cannot be evaluated, when it cannot. */
  malformed: string | undefined;
}

export interface CompiledSegment {
  included: ReadonlySet<string>;
  excluded: ReadonlySet<string>;
  rules: ReadonlyArray<readonly CompiledClause[]>;
  malformed: string | undefined;
}

const BOOLEAN_VARIANTS: Record<string, JsonValue> = { on: true, off: false };

/** Compiles a flag; never throws (a flag it cannot use is `malformed`). */
export function compileFlag(flag: FlagSource, patterns?: PatternCompiler): CompiledFlag {
  const binary = flag.type === 'boolean' || flag.type === 'rollout';
  const variants = binary ? BOOLEAN_VARIANTS : (flag.variants ?? {});
  const names = Object.keys(variants);
  const compiled: CompiledFlag = {
    key: flag.key,
    type: flag.type,
    enabled: flag.enabled,
    version: flag.version,
    names,
    values: names.map((name) => variants[name]!),
    off: 0,
    targets: undefined,
    rules: [],
    prerequisites: [],
    fallthrough: undefined as unknown as CompiledServe,
    plain: !flag.targets?.length && !flag.rules?.length && !flag.prerequisites?.length && !flag.fallthrough,
    malformed: undefined,
  };
  try {
    const indexOf = (name: string | null): number => {
      const index = name === null ? -1 : names.indexOf(name);
      if (index < 0) throw new Error(`no variant ${JSON.stringify(name)}`);
      return index;
    };
    if (names.length === 0) throw new Error('a flag has variants');
    compiled.off = indexOf(binary ? 'off' : (flag.offVariant ?? names[0]!));
    const salt = flag.salt ?? flag.key;
    const percentage = flag.type === 'rollout' ? (flag.percentage ?? 0) : 0;
    // A rollout's fallthrough is its percentage, as a split of `on` and `off` (NaN: no one).
    const onWeight = percentage >= 100 ? SPLIT_TOTAL : percentage > 0 ? Math.round(percentage * 1000) : 0;
    compiled.fallthrough = compileServe(
      flag.type === 'rollout'
        ? {
            split: [
              { variant: 'on', weight: onWeight },
              { variant: 'off', weight: SPLIT_TOTAL - onWeight },
            ],
          }
        : (flag.fallthrough ?? { variant: binary ? 'on' : names[0]! }),
      salt,
      indexOf,
    );
    if (flag.targets?.length) {
      const targets = new Map<string, number>();
      for (const target of flag.targets) {
        const index = indexOf(target.variant);
        for (const key of target.keys) if (!targets.has(key)) targets.set(key, index);
      }
      compiled.targets = targets;
    }
    compiled.rules = (flag.rules ?? []).map((rule) => ({
      id: rule.id,
      clauses: rule.clauses.map((clause) => compileClause(clause, patterns)),
      serve: compileServe(rule.serve, salt, (name) => (name === null ? -1 : indexOf(name))),
    }));
    compiled.prerequisites = (flag.prerequisites ?? []).map((p) => ({
      flag: p.flag,
      variants: new Set(p.variants),
    }));
  } catch (error) {
    compiled.malformed = (error as Error).message;
  }
  return compiled;
}

/** Compiles a segment; never throws (one it cannot use is `malformed`: no one is in it). */
export function compileSegment(segment: Segment, patterns?: PatternCompiler): CompiledSegment {
  const compiled: CompiledSegment = {
    included: new Set(segment.included),
    excluded: new Set(segment.excluded),
    rules: [],
    malformed: undefined,
  };
  try {
    compiled.rules = segment.rules.map((rule) => {
      const clauses = rule.clauses.map((clause) => compileClause(clause, patterns));
      if (clauses.some((clause) => clause.segments)) throw new Error('segments do not reference segments');
      return clauses;
    });
  } catch (error) {
    compiled.malformed = (error as Error).message;
  }
  return compiled;
}
