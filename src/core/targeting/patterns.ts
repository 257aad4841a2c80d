/**
 * The `matches` operator's patterns, compiled by the linear-time matcher (`../pattern`): given
 * to `compileFlag`/`compileSegment` by whoever evaluates `matches`, so a bundle that never does
 * carries no matcher. `caseInsensitive` compiles the pattern as if in `(?i)` (Unicode simple
 * case folding, as RE2): the attribute is not lowercased.
 */
import { compilePattern, PatternError, patternProblem } from '../pattern/index.js';
import { MalformedClause, type PatternCompiler } from './clauses.js';
import type { PatternCheck } from './validate-shape.js';

export const compileMatches: PatternCompiler = (source, caseInsensitive) => {
  let pattern: ReturnType<typeof compilePattern>;
  try {
    pattern = compilePattern(source, caseInsensitive);
  } catch (error) {
    if (error instanceof PatternError) throw new MalformedClause(error.message);
    throw error;
  }
  return (value) => typeof value === 'string' && pattern.test(value);
};

/** Refuses, when saved, a pattern the matcher cannot run: the reason with its position. */
export const checkPattern: PatternCheck = patternProblem;
