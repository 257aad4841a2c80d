/**
 * The machine: a Pike VM without captures. It keeps the set of program states alive at the
 * current input position and advances all of them over one code point at a time, so no input
 * position is looked at twice: O(program size × input length), whatever the pattern. Unanchored
 * search starts the program again at every position. Everything is allocated once, when the
 * pattern is compiled; a generation counter marks the states already in the set.
 */
import { Assert, Op, PATTERN_LIMITS, type Program } from './program.js';

/** How many states the last `test` call visited: read by the linearity tests only. */
export let lastSteps = 0;

/** ASCII word characters (`\b` is ASCII in RE2); -1 (outside the input) is not one. */
const word = (c: number): boolean => c === 95 || (c > 47 && c < 58) || ((c | 32) > 96 && (c | 32) < 123);

/** Whether `assertion` holds at `pos` of `s` (`Assert`: bit 1 for the word boundaries, bit 0 for the ends). */
function holds(assertion: Assert, s: string, pos: number): boolean {
  // Never read outside the string: engines take a slow path for that.
  const before = pos > 0 ? s.charCodeAt(pos - 1) : -1;
  const after = pos < s.length ? s.charCodeAt(pos) : -1;
  if (assertion & 2) return (word(before) !== word(after)) === (assertion === Assert.WordBoundary);
  const c = assertion & 1 ? after : before;
  // The text's edge, or (`(?m)`'s lines) a newline.
  return c < 0 || (assertion > Assert.NotWordBoundary && c === 10);
}

/** Whether the state at `pc` consumes the code point at `pos` of `s`. */
function consumes({ code, ranges, sets }: Program, pc: number, s: string, pos: number): boolean {
  let k = code[pc + 1]!;
  if (code[pc] === Op.Set) {
    const re = sets[k]!;
    re.lastIndex = pos;
    return re.test(s);
  }
  const c = s.codePointAt(pos)!;
  for (const end = code[pc + 2]!; k < end && c >= ranges[k]!; k += 2) if (c <= ranges[k + 1]!) return true;
  return false;
}

export function machine(program: Program): { test(input: string): boolean } {
  const { code } = program;
  const mark = new Uint32Array(code.length);
  /** Successors to add: at most every state, plus two per state added. */
  const stack = new Int32Array(code.length + 1);
  const list = new Int32Array(code.length / 3);
  let gen = 1;
  /** Starts with `\A` (or `^` without `(?m)`): no restart, and no state left means no match. */
  const anchored = code[0] === Op.Assert && code[1] === Assert.BeginText;

  /**
   * Whether no assertion is where the program starts: then its first states (gathered in `list`
   * here) are the same at every position, and while they are all that is alive the machine skips
   * ahead to the next code point one of them may consume instead of stepping: over the ASCII ones
   * that none consumes (`starts`), or with `indexOf` when they consume one code point only (a
   * pattern that starts with a literal, say).
   */
  let skips = true;
  let firsts = 0;
  for (let sp = 1; sp; ) {
    const pc = stack[--sp]!;
    if (mark[pc] === gen) continue;
    mark[pc] = gen;
    if (code[pc] === Op.Split) {
      stack[sp++] = pc + code[pc + 1]!;
      stack[sp++] = pc + code[pc + 2]!;
    } else if (code[pc] === Op.Assert) skips = false;
    else list[firsts++] = pc; // a consuming state, or Match (which consumes nothing)
  }
  const starts = new Uint8Array(128);
  for (let c = 0; c < 128 && skips; c++)
    for (let k = 0; k < firsts; k++)
      if (consumes(program, list[k]!, String.fromCharCode(c), 0)) starts[c] = 1;
  const r = code[list[0]! + 1]!;
  const lead =
    skips &&
    firsts === 1 &&
    code[list[0]!] === Op.Ranges &&
    code[list[0]! + 2] === r + 2 &&
    program.ranges[r] === program.ranges[r + 1]
      ? String.fromCodePoint(program.ranges[r]!)
      : '';

  return {
    test(s: string): boolean {
      const n = s.length;
      if (n > PATTERN_LIMITS.input) return false;
      // A call takes at most 65,538 generations: start again before the counter leaves the small
      // integers (2 ** 30), which engines keep unboxed (no allocation per increment).
      if (gen > 0x3ffe0000) {
        gen = 0;
        mark.fill(0);
      }
      let pos = 0;
      let sp = 1;
      stack[0] = 0;
      /** Whether the states are the first ones only (nothing under way). */
      let fresh = true;
      let visited = 0;
      let matched = false;
      run: for (;;) {
        // The states at `pos`: the stacked ones and all they reach without consuming.
        gen++;
        let count = 0;
        while (sp) {
          const pc = stack[--sp]!;
          if (mark[pc] === gen) continue;
          mark[pc] = gen;
          visited++;
          const op = code[pc];
          if (op === Op.Split) {
            stack[sp++] = pc + code[pc + 2]!;
            stack[sp++] = pc + code[pc + 1]!;
          } else if (op === Op.Assert) {
            if (holds(code[pc + 1]!, s, pos)) stack[sp++] = pc + 3;
          } else if (op === Op.Match) {
            matched = true;
            break run;
          } else list[count++] = pc;
        }
        if (fresh && lead) {
          pos = s.indexOf(lead, pos);
          if (pos < 0) break;
        }
        for (; fresh && skips && pos < n; pos++) {
          const c = s.charCodeAt(pos);
          if (c > 127 || starts[c]) break;
        }
        if (pos >= n || (!count && anchored)) break;
        // Each state that consumes the code point at `pos` goes on to its next instruction.
        for (let k = 0; k < count; k++) if (consumes(program, list[k]!, s, pos)) stack[sp++] = list[k]! + 3;
        fresh = !sp;
        pos += s.codePointAt(pos)! > 0xffff ? 2 : 1;
        if (!anchored) stack[sp++] = 0;
      }
      lastSteps = visited;
      return matched;
    },
  };
}
