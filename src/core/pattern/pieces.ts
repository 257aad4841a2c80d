/**
 * Pieces of program, Thompson's construction. A piece is instructions as `op, x, y` numbers
 * whose jumps are relative, so pieces concatenate and repeat by copying: counted repetition is
 * expanded (`x{2,4}` is `xx(x(x)?)?`, each `?` skipping to the end), and the program's size
 * bounds the work per input code point. `m`: the largest product of nested repetition counts
 * inside, which RE2 caps at 1000.
 */
import { Op, PATTERN_LIMITS, Refusal, Why } from './program.js';

export type Piece = number[] & { m?: number };

const { program, repeat } = PATTERN_LIMITS;

/** `at`: where the construct that made the program grow is. */
const tooLarge = (at: number): never => {
  throw new Refusal(Why.TooLarge, at, at);
};
const sized = (p: Piece, at: number): Piece => (p.length > 3 * program ? tooLarge(at) : p);

/** `a` then `b`, in `a`. */
export function cat(a: Piece, b: Piece, at: number): Piece {
  a.push(...b);
  a.m = Math.max(a.m ?? 1, b.m ?? 1);
  return sized(a, at);
}

/** `a` or `b`: a split into both; after `a`, a jump over `b`. */
export function alt(a: Piece, b: Piece, at: number): Piece {
  const p: Piece = [Op.Split, 3, a.length + 6, ...a, Op.Split, b.length + 3, b.length + 3, ...b];
  p.m = Math.max(a.m ?? 1, b.m ?? 1);
  return sized(p, at);
}

/** `p{min,max}`, `max` -1 when unbounded. */
export function rep(p: Piece, min: number, max: number, at: number): Piece {
  const n = p.length;
  const m = (p.m ?? 1) * Math.max(max < 0 ? min : max, 1);
  if (m > repeat) throw new Refusal(Why.NestedRepetition, at, at);
  if ((n + 3) * Math.max(min, max, 1) > 3 * program) tooLarge(at);
  const out: Piece = [];
  for (let k = max < 0 && min > 0 ? 1 : 0; k < min; k++) out.push(...p);
  // x{min,max}: each optional copy after a split that skips to the end.
  if (max >= 0) for (let k = max - min; k > 0; k--) out.push(Op.Split, 3, k * (n + 3), ...p);
  // x+ (the last of min copies): then back to it or on.
  else if (min > 0) out.push(...p, Op.Split, -n, 3);
  // x*: into x or past it; after x, back to the split.
  else out.push(Op.Split, 3, n + 6, ...p, Op.Split, -n - 3, -n - 3);
  out.m = m;
  return sized(out, at);
}
