/**
 * The compiled form of flags and segments (`docs/protocol.md` §12): what `compile.ts` builds and
 * `evaluate.ts` reads, and the reasons an evaluation answers with. Types only, so the evaluator
 * needs nothing of the compiler (which evaluates a flag nothing can vary once, when compiling).
 */
import type { EvaluationReason, FlagType } from '../types.js';
import type { CompiledClause } from './clauses.js';
import type { CompiledServe } from './split.js';
import type { JsonValue, TargetingFields } from './types.js';

/** Why a flag served what it served (`docs/protocol.md` §12.4): the SDK's reasons that evaluating gives. */
export type TargetingReason = Exclude<EvaluationReason, 'FLAG_NOT_FOUND' | 'NOT_READY'>;

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
  /**
   * No targets, rules, prerequisites or custom fallthrough: it answers with the reasons of a flag
   * without targeting (`ON`, `ROLLOUT_IN`...).
   */
  plain: boolean;
  /** Plain and not malformed: the evaluator's short way (`quickVariant`) decides it. */
  quick: boolean;
  /** The kind of value it serves: its type, `boolean` for a rollout (a literal, compared by identity). */
  kind: string;
  /** A `rollout` flag. */
  rollout: boolean;
  /**
   * The variant index every user is served, when nothing can vary it (disabled, or `isStatic`),
   * and its reason: the evaluator answers it at once. -1 otherwise.
   */
  answer: number;
  answerReason: TargetingReason;
  /** Why it cannot be evaluated, when it cannot. */
  malformed: string | undefined;
  /** The evaluation that last decided it as a prerequisite (`evaluate.ts`), and what it served then. */
  seenAt: number;
  served: number;
}

export interface CompiledSegment {
  included: ReadonlySet<string>;
  excluded: ReadonlySet<string>;
  rules: ReadonlyArray<readonly CompiledClause[]>;
  malformed: string | undefined;
  /** The evaluation that last decided it (`evaluate.ts`), and whether the user was in it then. */
  seenAt: number;
  holds: boolean;
}
