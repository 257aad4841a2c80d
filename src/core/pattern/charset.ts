/**
 * Sets of code points, as RE2 builds them: ranges, RE2's ASCII Perl and POSIX classes, and case
 * folding. A set becomes one `RANGES` instruction, or, when it needs Unicode tables (a `\pL`
 * class, or folding beyond ASCII), one `SET` instruction: a sticky RegExp that tests a single
 * code point, so it runs in constant time in every engine.
 */
import type { Piece } from './pieces.js';
import { Op } from './program.js';

export const MAX_RUNE = 0x10ffff;

/** A set being built: `r` holds lo, hi pairs in any order; `p` holds `\p{..}` pieces. */
export interface CharSet {
  r: number[];
  p: string;
  neg: boolean;
  /** Needs the runtime's Unicode tables (`p`, or folding beyond ASCII). */
  js: boolean;
}

export const charSet = (): CharSet => ({ r: [], p: '', neg: false, js: false });

/** RE2's Perl classes (`\d \s \w`) and POSIX classes, ASCII only: pairs of lo, hi characters. */
const NAMED: Record<string, string> = {
  d: '09',
  s: '\t\n\f\r  ',
  w: '09AZ__az',
  alnum: '09AZaz',
  alpha: 'AZaz',
  ascii: '\0\x7f',
  blank: '\t\t  ',
  cntrl: '\0\x1f\x7f\x7f',
  digit: '09',
  graph: '!~',
  lower: 'az',
  print: ' ~',
  punct: '!/:@[`{~',
  space: '\t\r  ',
  upper: 'AZ',
  word: '09AZ__az',
  xdigit: '09AFaf',
};

/**
 * Adds `lo..hi`. Folded, it adds the ASCII letters' other case, and KELVIN SIGN and LONG S for
 * k and s (the only non-ASCII code points whose simple case folding lands in ASCII); beyond
 * ASCII the runtime folds (`js`).
 */
export function addRange(set: CharSet, lo: number, hi: number, fold: boolean): void {
  set.r.push(lo, hi);
  if (fold && hi > 127) set.js = true;
  for (let c = Math.max(lo, 65); fold && c <= hi && c < 123; c++) {
    const l = c | 32;
    if (l > 96 && l < 123) set.r.push(c ^ 32, c ^ 32);
    if (l === 107 || l === 115) set.r.push(l > 107 ? 0x17f : 0x212a, l > 107 ? 0x17f : 0x212a);
  }
}

/** Adds a named class (`d`, `alpha`...); negated after folding, as RE2 does. False if unknown. */
export function addNamed(set: CharSet, name: string, negated: boolean, fold: boolean): boolean {
  const spec = NAMED[name];
  if (typeof spec !== 'string') return false;
  const own = negated ? charSet() : set;
  for (let k = 0; k < spec.length; k += 2) addRange(own, spec.charCodeAt(k), spec.charCodeAt(k + 1), fold);
  if (negated) set.r.push(...complement(normalize(own.r)));
  return true;
}

/** Sorted, merged pairs. */
function normalize(r: number[]): number[] {
  const pairs: [number, number][] = [];
  for (let k = 0; k < r.length; k += 2) pairs.push([r[k]!, r[k + 1]!]);
  pairs.sort((a, b) => a[0] - b[0]);
  const out: number[] = [];
  for (const [lo, hi] of pairs) {
    const n = out.length;
    if (n && lo <= out[n - 1]! + 1) out[n - 1] = Math.max(out[n - 1]!, hi);
    else out.push(lo, hi);
  }
  return out;
}

/** Everything outside sorted, merged pairs. */
function complement(r: number[]): number[] {
  const out: number[] = [];
  let next = 0;
  for (let k = 0; k < r.length; k += 2) {
    if (r[k]! > next) out.push(next, r[k]! - 1);
    next = r[k + 1]! + 1;
  }
  if (next <= MAX_RUNE) out.push(next, MAX_RUNE);
  return out;
}

/** The instruction that consumes one code point of `set`, its ranges or RegExp stored in the program's. */
export function finish(set: CharSet, fold: boolean, ranges: number[], sets: RegExp[]): Piece {
  if (set.js) {
    const body = set.r.map((c, k) => `${k & 1 ? '-' : ''}\\u{${c.toString(16)}}`).join('') + set.p;
    const re = new RegExp(`[${set.neg ? '^' : ''}${body}]`, fold ? 'iuy' : 'uy');
    return [Op.Set, sets.push(re) - 1, 0];
  }
  const r = normalize(set.r);
  return [Op.Ranges, ranges.length, ranges.push(...(set.neg ? complement(r) : r))];
}
