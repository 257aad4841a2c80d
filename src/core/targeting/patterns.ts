/**
 * The `matches` operator's patterns, run by the linear-time matcher (`../pattern`): a compiler
 * is given to `compileFlag`/`compileSegment` by whoever evaluates `matches`. The server and its
 * OFREP endpoints parse the pattern (`compileMatches`); the SDK runs the program the server
 * parsed it into, sent on the clause (`runProgram`, `docs/protocol.md` §12.6), so no SDK bundle
 * carries the parser. `caseInsensitive` compiles the pattern as if in `(?i)` (Unicode simple
 * case folding, as RE2): the attribute is not lowercased.
 *
 * A pattern the matcher refuses, or a clause without a usable program, makes its flag or segment
 * malformed, with a short reason: the server refused a bad pattern with the whole reason when it
 * was saved (`checkPattern`).
 */
import { patternProblem } from '../pattern/index.js';
import { parse } from '../pattern/parse.js';
import type { Program } from '../pattern/program.js';
import { machine } from '../pattern/vm.js';
import { fromWire } from '../pattern/wire.js';
import type { PatternCompiler } from './clauses.js';
import type { PatternCheck } from './validate-shape.js';

const matcher = (program: Program) => {
  const pattern = machine(program);
  return (value: unknown) => typeof value === 'string' && pattern.test(value);
};

/** Parses the pattern: the server, OFREP and whoever holds patterns as written. */
export const compileMatches: PatternCompiler = (source, caseInsensitive) =>
  matcher(parse(source, caseInsensitive));

/** Runs the program the server sent on the clause (`program`): the SDK. */
export const runProgram: PatternCompiler = (_source, _caseInsensitive, clause) =>
  matcher(fromWire((clause as { program?: unknown }).program));

/** Refuses, when saved, a pattern the matcher cannot run: the reason with its position. */
export const checkPattern: PatternCheck = patternProblem;
