/**
 * A `matches` program as the server sends it to SDKs (`docs/protocol.md` §12.6): the server
 * parses the pattern once and every SDK only runs the program (`vm.ts`), so no SDK bundle
 * carries the parser. The SDK checks the program before running it: a program that could make
 * the machine read outside itself, or a set that is more than one class, is refused (the flag is
 * malformed), so a bad program can give wrong answers but never hang or throw at evaluation.
 */
import { Op, PATTERN_LIMITS, type Program } from './program.js';

/** `code` and `ranges` as numbers; each set as its class (`[...]`) and flags (`uy` or `iuy`). */
export interface WireProgram {
  code: number[];
  ranges: number[];
  sets: Array<[string, string]>;
}

export const toWire = ({ code, ranges, sets }: Program): WireProgram => ({
  code: Array.from(code),
  ranges: Array.from(ranges),
  sets: sets.map((re) => [re.source, re.flags]),
});

/** One class: `[`, then no unescaped `]` until the last character. */
const CLASS = /^\[(?:[^\\\]]|\\[\s\S])*\]$/;

const ints = (x: unknown, max: number): x is number[] =>
  Array.isArray(x) && x.every((n) => Number.isInteger(n) && n >= 0 && n <= max);

/** The program of `value` (a `WireProgram`); throws when it is not one that is safe to run. */
export function fromWire(value: unknown): Program {
  const { code, ranges, sets } = (value ?? {}) as Partial<WireProgram>;
  const n = (code?.length ?? 0) as number;
  if (
    !ints(ranges, 0x10ffff) ||
    !Array.isArray(sets) ||
    !Array.isArray(code) ||
    n < 3 ||
    n % 3 ||
    n > PATTERN_LIMITS.program * 3 ||
    !code.every(Number.isInteger)
  )
    throw new Error('bad program');
  const jump = (pc: number, to: number) => to % 3 === 0 && pc + to >= 0 && pc + to < n;
  for (let pc = 0; pc < n; pc += 3) {
    const [op, x, y] = code.slice(pc, pc + 3) as [Op, number, number];
    if (
      !(
        op === Op.Match ||
        (op === Op.Split
          ? jump(pc, x) && jump(pc, y)
          : pc + 3 < n &&
            (op === Op.Assert
              ? x >= 0 && x < 6
              : op === Op.Set
                ? x >= 0 && x < sets.length
                : op === Op.Ranges && x >= 0 && x <= y && y <= ranges.length && (y - x) % 2 === 0))
      )
    )
      throw new Error('bad program');
  }
  return {
    code: Int32Array.from(code),
    ranges: Int32Array.from(ranges),
    sets: sets.map(([source, flags]) => {
      if (!CLASS.test(source) || (flags !== 'uy' && flags !== 'iuy')) throw new Error('bad program');
      return new RegExp(source, flags);
    }),
  };
}
