/**
 * The one error a pattern can fail with: a stable `code` and a message that starts with the
 * position of the offending construct (`at 7: lookahead (?= is not supported (RE2 syntax)`).
 */
export class PatternError extends Error {
  readonly code = 'INVALID_PATTERN';

  constructor(
    /** Where the construct starts: an offset into the pattern, in UTF-16 code units, from 0. */
    readonly index: number,
    reason: string,
  ) {
    super(`at ${index}: ${reason}`);
  }
}
