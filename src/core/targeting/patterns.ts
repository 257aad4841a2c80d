/**
 * The `matches` operator's patterns, compiled by the linear-time matcher (`../pattern`): given
 * to `compileFlag`/`compileSegment` by whoever evaluates `matches`, so a bundle that never does
 * carries no matcher. `caseInsensitive` compiles the pattern as if in `(?i)` (Unicode simple
 * case folding, as RE2): the attribute is not lowercased.
 *
 * A pattern the matcher refuses makes its flag or segment malformed, with a short reason (`bad
 * pattern at 7`): the server refused it with the whole reason when it was saved (`checkPattern`).
 */
import { patternProblem } from '../pattern/index.js';
import { parse } from '../pattern/parse.js';
import { machine } from '../pattern/vm.js';
import type { PatternCompiler } from './clauses.js';
import type { PatternCheck } from './validate-shape.js';

export const compileMatches: PatternCompiler = (source, caseInsensitive) => {
  const pattern = machine(parse(source, caseInsensitive));
  return (value) => typeof value === 'string' && pattern.test(value);
};

/** Refuses, when saved, a pattern the matcher cannot run: the reason with its position. */
export const checkPattern: PatternCheck = patternProblem;
