/**
 * What the server says when it refuses a pattern (`at 7: lookahead (?= is not supported (RE2
 * syntax)`). Only `compilePattern`/`patternProblem` use these words: the SDK, which compiles
 * patterns the server has already accepted, does not carry them.
 */
import { PATTERN_LIMITS, type Refusal, Why } from './program.js';

const UNSUPPORTED = '% is not supported (RE2 syntax)';

/** Each refusal's words; `%` stands for the offending construct. */
const MESSAGES: Record<Why, string | ((src: string, at: number, end: number) => string)> = {
  [Why.Possessive]: `possessive quantifier${UNSUPPORTED.slice(1)}`,
  [Why.Repeated]: 'repeated quantifier',
  [Why.BadRepetition]: `bad repetition %: counts go from 0 to ${PATTERN_LIMITS.repeat}, the least first`,
  [Why.NothingToRepeat]: 'missing argument to repetition operator',
  [Why.Lookaround]: (src, at, end) => {
    const construct = src.slice(at, end);
    const what = construct[2] === 'P' ? 'backreference' : construct[2] === '<' ? 'lookbehind' : 'lookahead';
    return `${what} ${construct}${UNSUPPORTED.slice(1)}`;
  },
  [Why.BadName]: 'bad group name',
  [Why.MissingParen]: 'missing )',
  [Why.Flags]: flagsProblem,
  [Why.AnyByte]: `\\C (any byte)${UNSUPPORTED.slice(1)}`,
  [Why.Escape]: escapeProblem,
  [Why.Property]: propertyProblem,
  [Why.MissingBracket]: 'missing ]',
  [Why.UnknownPosix]: 'unknown POSIX class %',
  [Why.BadRange]: 'bad range %',
  [Why.TooLong]: `a pattern is at most ${PATTERN_LIMITS.length} characters`,
  [Why.UnexpectedParen]: 'unexpected )',
  [Why.TooLarge]: `pattern too large: over ${PATTERN_LIMITS.program} instructions`,
  [Why.NestedRepetition]: `nested repetition over ${PATTERN_LIMITS.repeat} in all`,
};

/**
 * Which refusal a `(?` group of flags at `at` is, found as RE2 reads flags: the first character
 * that is not one (or a first `-`), a `-` with no flag after it, or the end of the pattern.
 */
function flagsProblem(src: string, at: number): string {
  let negated = false;
  for (let i = at + 2; ; ) {
    const c = src[i++];
    if (c === undefined) return 'missing )';
    if (c === '-' && !negated) negated = true;
    else if (c === ')' || c === ':')
      return `bad flags ${src.slice(at, i)}`; // a `-` with no flag after it
    else if (!'imsU'.includes(c)) return `group ${src.slice(at, i)}${UNSUPPORTED.slice(1)}`;
  }
}

/** What is wrong with the escape at `at`: its letter tells. */
function escapeProblem(src: string, at: number): string {
  const c = src[at + 1];
  if (c === undefined) return 'trailing \\';
  if (c >= '1' && c <= '9') return `backreference ${src.slice(at, at + 2)}${UNSUPPORTED.slice(1)}`;
  // `\x` names the character after it: `\xZ`, `\x{`.
  return `invalid escape ${src.slice(at, c === 'x' ? at + 3 : at + 2)}`;
}

/** What is wrong with the `\p` or `\P` class at `at`: an unclosed or unknown name. */
function propertyProblem(src: string, at: number): string {
  const end = src[at + 2] === '{' ? src.indexOf('}', at + 3) : at + 2;
  return end < 0
    ? `missing } in ${src.slice(at, at + 3)}`
    : `unknown Unicode class ${src.slice(at, end + 1)}`;
}

/** The reason for `refusal` of `src`, naming the construct (without the position). */
export function reason(src: string, { why, at, end }: Refusal): string {
  const words = MESSAGES[why];
  return typeof words === 'string' ? words.replace('%', () => src.slice(at, end)) : words(src, at, end);
}
