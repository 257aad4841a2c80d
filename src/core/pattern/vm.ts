/**
 * The machine: a Pike VM without captures. It keeps the set of program states alive at the
 * current input position and advances all of them over one code point at a time, so no input
 * position is looked at twice: O(program size × input length), whatever the pattern. Unanchored
 * search starts the program again at every position. Everything is allocated once, when the
 * pattern is compiled; a generation counter marks the states already in a set.
 */
import { Assert, Op, PATTERN_LIMITS, type Program } from './program.js';

/** States visited by every machine so far: read by the linearity tests only. */
export let steps = 0;

/** ASCII word characters (`\b` is ASCII in RE2); `NaN` (outside the input) is not one. */
const word = (c: number): boolean => c === 95 || (c > 47 && c < 58) || ((c | 32) > 96 && (c | 32) < 123);

const holds = (assertion: number, s: string, pos: number): boolean => {
  const before = s.charCodeAt(pos - 1);
  const after = s.charCodeAt(pos);
  switch (assertion) {
    case Assert.BeginText:
      return pos === 0;
    case Assert.EndText:
      return pos === s.length;
    case Assert.BeginLine:
      return pos === 0 || before === 10;
    case Assert.EndLine:
      return pos === s.length || after === 10;
    default:
      return (word(before) !== word(after)) === (assertion === Assert.WordBoundary);
  }
};

export function machine({ code, ranges, sets }: Program): { test(input: string): boolean } {
  const mark = new Uint32Array(code.length);
  const stack = new Int32Array(code.length);
  const one = new Int32Array(code.length / 3);
  const two = new Int32Array(code.length / 3);
  let gen = 0;
  /** Starts with `\A` (or `^` without `(?m)`): no restart, and no state left means no match. */
  const anchored = code[0] === Op.Assert && code[1] === Assert.BeginText;

  /**
   * Adds state `pc` at input position `pos` to `list` (which holds `count`), following the
   * instructions that consume nothing; the new count, or -1 when `Match` is reached.
   */
  const add = (list: Int32Array, count: number, pc: number, s: string, pos: number): number => {
    let sp = 0;
    stack[sp++] = pc;
    while (sp) {
      pc = stack[--sp]!;
      if (mark[pc] === gen) continue;
      mark[pc] = gen;
      steps++;
      const op = code[pc];
      if (op === Op.Split) {
        stack[sp++] = pc + code[pc + 2]!;
        stack[sp++] = pc + code[pc + 1]!;
      } else if (op === Op.Assert) {
        if (holds(code[pc + 1]!, s, pos)) stack[sp++] = pc + 3;
      } else if (op === Op.Match) return -1;
      else list[count++] = pc;
    }
    return count;
  };

  /** Whether the state at `pc` consumes code point `c` (at `pos` in `s`). */
  const consumes = (pc: number, c: number, s: string, pos: number): boolean => {
    let k = code[pc + 1]!;
    if (code[pc] === Op.Set) {
      const re = sets[k]!;
      re.lastIndex = pos;
      return re.test(s);
    }
    for (const end = code[pc + 2]!; k < end && c >= ranges[k]!; k += 2) if (c <= ranges[k + 1]!) return true;
    return false;
  };

  return {
    test(s: string): boolean {
      const n = s.length;
      if (n > PATTERN_LIMITS.input) return false;
      // A call takes at most 65,538 generations: start again long before the counter wraps.
      if (gen > 4e9) {
        gen = 0;
        mark.fill(0);
      }
      let list = one;
      let other = two;
      let pos = 0;
      gen++;
      let count = add(list, 0, 0, s, 0);
      for (;;) {
        if (count < 0) return true;
        if (pos >= n || (!count && anchored)) return false;
        const c = s.codePointAt(pos)!;
        const width = c > 0xffff ? 2 : 1;
        let found = 0;
        gen++;
        for (let k = 0; k < count && found >= 0; k++) {
          const pc = list[k]!;
          if (consumes(pc, c, s, pos)) found = add(other, found, pc + 3, s, pos + width);
        }
        pos += width;
        if (found >= 0 && !anchored) found = add(other, found, 0, s, pos);
        count = found;
        const done = list;
        list = other;
        other = done;
      }
    },
  };
}
