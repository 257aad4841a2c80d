/**
 * What the server says when it refuses a pattern (`at 7: lookahead (?= is not supported (RE2
 * syntax)`). Only `compilePattern`/`patternProblem` use these words: the SDK, which compiles
 * patterns the server has already accepted, does not carry them.
 */
import { PATTERN_LIMITS, type Refusal, Why } from './program.js';

const UNSUPPORTED = '% is not supported (RE2 syntax)';

/** Each refusal's words; `%` stands for the offending construct. */
const MESSAGES: Record<Why, string | ((construct: string) => string)> = {
  [Why.Possessive]: `possessive quantifier${UNSUPPORTED.slice(1)}`,
  [Why.Repeated]: 'repeated quantifier',
  [Why.BadRepetition]: `bad repetition %: counts go from 0 to ${PATTERN_LIMITS.repeat}, the least first`,
  [Why.NothingToRepeat]: 'missing argument to repetition operator',
  [Why.Lookaround]: (construct) =>
    `${construct[2] === 'P' ? 'backreference' : construct[2] === '<' ? 'lookbehind' : 'lookahead'} ${UNSUPPORTED.replace('%', construct)}`,
  [Why.BadName]: 'bad group name',
  [Why.MissingParen]: 'missing )',
  [Why.Group]: `group ${UNSUPPORTED}`,
  [Why.BadFlags]: 'bad flags %',
  [Why.AnyByte]: `\\C (any byte)${UNSUPPORTED.slice(1)}`,
  [Why.TrailingBackslash]: 'trailing \\',
  [Why.BadEscape]: 'invalid escape %',
  [Why.Backreference]: `backreference ${UNSUPPORTED}`,
  [Why.MissingBrace]: 'missing } in %',
  [Why.UnknownProperty]: 'unknown Unicode class %',
  [Why.MissingBracket]: 'missing ]',
  [Why.UnknownPosix]: 'unknown POSIX class %',
  [Why.BadRange]: 'bad range %',
  [Why.TooLong]: `a pattern is at most ${PATTERN_LIMITS.length} characters`,
  [Why.UnexpectedParen]: 'unexpected )',
  [Why.TooLarge]: `pattern too large: over ${PATTERN_LIMITS.program} instructions`,
  [Why.NestedRepetition]: `nested repetition over ${PATTERN_LIMITS.repeat} in all`,
};

/** The reason for `refusal` of `src`, naming the construct (without the position). */
export function reason(src: string, { why, at, end }: Refusal): string {
  const words = MESSAGES[why];
  const construct = src.slice(at, end);
  return typeof words === 'string' ? words.replace('%', () => construct) : words(construct);
}
