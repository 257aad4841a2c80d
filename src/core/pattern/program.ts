/**
 * What the parser and the machine share: the limits and the program. A program is one
 * `Int32Array` of instructions, each three numbers `op, x, y`; a program counter is the index
 * of an instruction's `op`, and jumps are relative to it.
 */

export const PATTERN_LIMITS = {
  /** Longer patterns are refused (UTF-16 code units, as `String#length`). */
  length: 1000,
  /** Longer inputs never match (UTF-16 code units). */
  input: 65_536,
  /** RE2's limit on a repetition count, and on nested counts multiplied together. */
  repeat: 1000,
  /** Instructions once counted repetitions are expanded (RE2 has a memory budget instead). */
  program: 5000,
} as const;

export enum Op {
  /** Consume one code point inside the sorted pairs `ranges[x]`..`ranges[y - 1]` (lo, hi). */
  Ranges,
  /**
   * Consume one code point that the sticky RegExp `sets[x]` matches there: a class with Unicode
   * properties (`\pL`) or Unicode case folding, left to the runtime's own tables.
   */
  Set,
  /** Go on at both `pc + x` and `pc + y` (a jump when they are equal). */
  Split,
  /** Go on at the next instruction if the empty-width assertion `x` holds. */
  Assert,
  Match,
}

/** Assertions, in the order of `\A \z \b \B`, then `^` and `$` under `(?m)` (`vm.ts` reads their bits). */
export enum Assert {
  BeginText,
  EndText,
  WordBoundary,
  NotWordBoundary,
  BeginLine,
  EndLine,
}

/**
 * Why a pattern is refused. The parser throws only this number and where (`Refusal`): the
 * words, which only the server's validation needs, are in `messages.ts`.
 */
export enum Why {
  Possessive,
  Repeated,
  BadRepetition,
  NothingToRepeat,
  /** `(?=`, `(?!`, `(?<=`, `(?<!`, and `(?P=` (a backreference). */
  Lookaround,
  BadName,
  MissingParen,
  /** A `(?` group of flags that is not one: unknown, badly negated or unclosed. */
  Flags,
  AnyByte,
  /** An escape that is not one (`\\e`, `\\x{110000}`, a backreference, a trailing `\\`). */
  Escape,
  /** A `\\p` or `\\P` class that is not one. */
  Property,
  MissingBracket,
  UnknownPosix,
  BadRange,
  TooLong,
  UnexpectedParen,
  TooLarge,
  NestedRepetition,
}

/** A refused pattern: why, and the offending construct, `src.slice(at, end)`. */
export class Refusal extends Error {
  constructor(
    readonly why: Why,
    readonly at: number,
    readonly end: number,
  ) {
    super(`bad pattern at ${at}`);
  }
}

export interface Program {
  code: Int32Array;
  ranges: Int32Array;
  sets: RegExp[];
}
