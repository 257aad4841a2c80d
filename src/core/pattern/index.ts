/**
 * The `matches` operator's pattern matcher: RE2 syntax, unanchored search, linear time in every
 * runtime (a pattern typed in a dashboard runs in every app that evaluates the flag). `parse.ts`
 * reads the pattern into a small program (`pieces.ts`, `charset.ts`) that `vm.ts` runs as a set of NFA
 * states advanced together over the input's code points: no backtracking.
 *
 * The SDK compiles with `parse` and `machine` directly (`../targeting/patterns.ts`): a pattern
 * it cannot compile only needs to be malformed there, so it does not carry `messages.ts`.
 */
import { PatternError } from './error.js';
import { reason } from './messages.js';
import { parse } from './parse.js';
import { PATTERN_LIMITS, Refusal } from './program.js';
import { machine } from './vm.js';

export { PATTERN_LIMITS, PatternError };

/** A compiled pattern. `test` allocates nothing and may be called any number of times. */
export interface Pattern {
  /** Whether some part of `input` matches; an input over 65,536 UTF-16 code units never does. */
  test(input: string): boolean;
}

/**
 * Compiles an RE2 pattern; `caseInsensitive` is `(?i)` around the whole pattern.
 *
 * @throws PatternError (`code` `INVALID_PATTERN`) when RE2 refuses the pattern, or it uses what
 *   a linear-time matcher cannot run (lookaround, backreferences), or it exceeds the limits.
 */
export function compilePattern(source: string, caseInsensitive = false): Pattern {
  try {
    return machine(parse(source, caseInsensitive));
  } catch (error) {
    if (error instanceof Refusal) throw new PatternError(error.at, reason(source, error));
    throw error;
  }
}

/** Why `source` is refused (`PatternError`'s message), or `undefined` when it compiles. */
export function patternProblem(source: string): string | undefined {
  try {
    compilePattern(source);
  } catch (error) {
    if (error instanceof PatternError) return error.message;
    throw error;
  }
  return undefined;
}
