/**
 * RE2 syntax to a program, refusing what RE2 refuses and what a linear-time matcher cannot run,
 * each error naming its position. The grammar, as RE2's `parse.cc` reads it: an alternation of
 * sequences of atoms, each with at most one repetition operator (`*`, `+`, `?`, `{n}`, `{n,}`,
 * `{n,m}`, each maybe lazy, which changes no yes-or-no answer); `(?flags)` holds to the end of
 * its group.
 */
import { addNamed, addRange, type CharSet, charSet, finish, MAX_RUNE } from './charset.js';
import { alt, cat, type Piece, rep } from './pieces.js';
import { Assert, Op, PATTERN_LIMITS, type Program, Refusal, Why } from './program.js';

/** Flags, in the order of `imsU` (`U` swaps greedy and lazy: no yes-or-no answer changes). */
const FOLD = 1;
const MULTI_LINE = 2;
const DOT_NL = 4;

/** Counted repetition as RE2 reads it (no leading zeros); anything else after `{` is literal. */
const COUNTED = /\{(0|[1-9]\d{0,8})(,(0|[1-9]\d{0,8})?)?\}/y;
const HEX = /\{([\da-fA-F]+)\}|[\da-fA-F]{2}/y;
const OCTAL = /[0-7]{1,3}/y;
/** A group's flags after `(?`, as RE2 takes them (`messages.ts` tells what is wrong with others). */
const FLAGS = /[imsU]*(?:-[imsU]+)?[:)]/y;
/** A group name (RE2: letters, marks, digits and connectors). */
const NAME = /^[\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]+$/u;

const sticky = (re: RegExp, src: string, at: number): RegExpExecArray | null => {
  re.lastIndex = at;
  return re.exec(src);
};

export function parse(src: string, caseInsensitive: boolean): Program {
  const ranges: number[] = [];
  const sets: RegExp[] = [];
  let i = 0;
  let flags = caseInsensitive ? FOLD : 0;
  /** Refuses the construct `src.slice(at, end)`. */
  const fail = (why: Why, at = i, end = i): never => {
    throw new Refusal(why, at, end);
  };
  const folded = () => (flags & FOLD) > 0;
  const one = (set: CharSet, fold = folded()): Piece => finish(set, fold, ranges, sets);

  /** Consumes the code point at `i` (a surrogate pair is one; a lone surrogate stands for itself). */
  const next = (): number => {
    const c = src.codePointAt(i)!;
    i += c > 0xffff ? 2 : 1;
    return c;
  };
  const literal = (c: number): Piece => {
    const set = charSet();
    addRange(set, c, c, folded());
    return one(set);
  };

  function alternation(): Piece {
    let p = sequence();
    for (let at = i; src[i] === '|'; at = i) {
      i++;
      p = alt(p, sequence(), at);
    }
    return p;
  }

  function sequence(): Piece {
    const seq: Piece = [];
    while (i < src.length && src[i] !== '|' && src[i] !== ')') {
      const start = i;
      let item = atom(seq);
      if (!item) continue;
      const at = i;
      const r = repetition();
      if (r) {
        if (src[i] === '?') i++; // lazy
        const again = i;
        if (repetition()) fail(src[again] === '+' ? Why.Possessive : Why.Repeated, again);
        item = rep(item, r[0], r[1], at);
      }
      cat(seq, item, start);
    }
    return seq;
  }

  /** A repetition operator at `i`, consumed: [min, max], max -1 when unbounded. */
  function repetition(): [number, number] | undefined {
    const c = src[i];
    if (c === '*' || c === '+' || c === '?') {
      i++;
      return [c === '+' ? 1 : 0, c === '?' ? 1 : -1];
    }
    const m = sticky(COUNTED, src, i);
    if (!m) return undefined;
    const min = +m[1]!;
    const max = m[2] ? (m[3] ? +m[3] : -1) : min;
    const most = PATTERN_LIMITS.repeat;
    if (min > most || max > most || (max >= 0 && max < min)) fail(Why.BadRepetition, i, COUNTED.lastIndex);
    i = COUNTED.lastIndex;
    return [min, max];
  }

  /** One atom; `undefined` for a flag group, which only changes the flags. */
  function atom(seq: Piece): Piece | undefined {
    const at = i;
    switch (src[i]) {
      case '(':
        return group();
      case '[':
        return bracket();
      case '.': {
        i++;
        const set = charSet();
        set.r.push(...(flags & DOT_NL ? [0, MAX_RUNE] : [0, 9, 11, MAX_RUNE]));
        return one(set, false);
      }
      case '^':
        i++;
        return [Op.Assert, flags & MULTI_LINE ? Assert.BeginLine : Assert.BeginText, 0];
      case '$':
        i++;
        return [Op.Assert, flags & MULTI_LINE ? Assert.EndLine : Assert.EndText, 0];
      case '\\':
        return escapeAtom(seq);
      case '*':
      case '+':
      case '?':
        return fail(Why.NothingToRepeat);
      case '{':
        if (repetition()) fail(Why.NothingToRepeat, at);
    }
    return literal(next());
  }

  function group(): Piece | undefined {
    const at = i++;
    if (src[i] !== '?') return body(flags, at);
    i++;
    const look = sticky(/<?[=!]|P=/y, src, i);
    if (look) fail(Why.Lookaround, at, i + look[0].length);
    if (src.startsWith('P<', i) || src[i] === '<') {
      const start = src.indexOf('<', i) + 1;
      const end = src.indexOf('>', start);
      if (end < 0 || !NAME.test(src.slice(start, end))) fail(Why.BadName, at);
      i = end + 1;
      return body(flags, at);
    }
    // Flags, some maybe negated after a `-`, then `)` (they hold to the end of the group) or `:`
    // (a group of their own).
    if (!sticky(FLAGS, src, i)) fail(Why.Flags, at);
    let f = flags;
    for (let negated = false; i < FLAGS.lastIndex - 1; i++) {
      const bit = 'imsU'.indexOf(src[i]!);
      if (bit < 0) negated = true;
      else f = negated ? f & ~(1 << bit) : f | (1 << bit);
    }
    if (src[i++] === ':') return body(f, at);
    flags = f;
    return undefined;
  }

  /** A group's alternation, under flags `f`, through its `)`. */
  function body(f: number, at: number): Piece {
    const outer = flags;
    flags = f;
    const p = alternation();
    flags = outer;
    if (src[i++] !== ')') fail(Why.MissingParen, at);
    return p;
  }

  /** An escape outside brackets: an assertion, `\Q...\E`, a class or one code point. */
  function escapeAtom(seq: Piece): Piece | undefined {
    const at = i;
    const c = src[i + 1] ?? '';
    const assertion = c ? 'AzbB'.indexOf(c) : -1;
    if (assertion >= 0) {
      i += 2;
      return [Op.Assert, assertion, 0];
    }
    if (c === 'C') fail(Why.AnyByte);
    if (c === 'Q') {
      // Literal text up to \E; a repetition after it repeats its last code point.
      const end = src.indexOf('\\E', i + 2);
      const stop = end < 0 ? src.length : end;
      let last: Piece | undefined;
      for (i += 2; i < stop; last = literal(next())) if (last) cat(seq, last, at);
      i = end < 0 ? i : end + 2;
      return last;
    }
    const set = charSet();
    const code = escaped(set);
    if (code >= 0) return literal(code);
    // Alone, \PL is [^\pL]: folded, then negated, as in RE2 (a RegExp's \P{..} with i is not).
    if (set.p[1] === 'P') {
      set.neg = true;
      set.p = `\\p${set.p.slice(2)}`;
    }
    return one(set);
  }

  /** The escape at `i`: a code point, or -1 after adding a class (`\d`, `\pL`...) to `set`. */
  function escaped(set?: CharSet): number {
    const at = i++;
    const c = src[i++]!; // `undefined` after a trailing `\`: refused below
    if (set && 'dDsSwW'.includes(c)) {
      addNamed(set, c.toLowerCase(), c < 'a', folded());
      return -1;
    }
    if (set && (c === 'p' || c === 'P')) {
      property(set, c === 'P', at);
      return -1;
    }
    const simple = 'afnrtv'.indexOf(c);
    if (simple >= 0) return [7, 12, 10, 13, 9, 11][simple]!;
    if (c === 'x') {
      const m = sticky(HEX, src, i);
      const code = m ? parseInt(m[1] ?? m[0], 16) : MAX_RUNE + 1;
      if (code > MAX_RUNE) fail(Why.Escape, at);
      i = HEX.lastIndex;
      return code;
    }
    if (c >= '0' && c <= '9') {
      // Octal: \0 and up to two more digits, or \1..\7 and one or two more; else a backreference.
      const digits = sticky(OCTAL, src, i - 1)?.[0] ?? '';
      if (c === '0' || digits.length > 1) {
        i += digits.length - 1;
        return parseInt(digits, 8);
      }
      fail(Why.Escape, at);
    }
    if (c < '\x80' && !/[\dA-Za-z]/.test(c)) return c.charCodeAt(0);
    return fail(Why.Escape, at);
  }

  /** `\pL`, `\p{Greek}`, `\p{^Greek}`, `\PL`: a general category, a script or `Any`. */
  function property(set: CharSet, negated: boolean, at: number): void {
    let name = src[i++] ?? '';
    if (name === '{') {
      const end = src.indexOf('}', i);
      if (end < 0) fail(Why.Property, at);
      name = src.slice(i, end);
      i = end + 1;
    }
    if (name[0] === '^') {
      negated = !negated;
      name = name.slice(1);
    }
    const known = (p: string) => {
      try {
        return new RegExp(`\\p{${p}}`, 'u');
      } catch {
        return undefined;
      }
    };
    const js = /^\w+$/.test(name)
      ? (name === 'Any' ? [name] : [`gc=${name}`, `sc=${name}`]).find(known)
      : undefined;
    if (!js) fail(Why.Property, at);
    set.p += `\\${negated ? 'P' : 'p'}{${js}}`;
    set.js = true;
  }

  /** A bracketed class: `[...]`, `[^...]`, with ranges, escapes and `[:alpha:]`. */
  function bracket(): Piece {
    const at = i++;
    const set = charSet();
    const fold = folded();
    if (src[i] === '^') {
      i++;
      set.neg = true;
    }
    // A `]` first is literal; so is a `-` that makes no range.
    for (let first = true; first || src[i] !== ']'; first = false) {
      if (i >= src.length) fail(Why.MissingBracket, at);
      const start = i;
      const end = src.startsWith('[:', i) ? src.indexOf(':]', i + 2) : -1;
      if (end >= 0) {
        const name = src.slice(i + 2, end);
        const negated = name[0] === '^';
        const base = negated ? name.slice(1) : name;
        i = end + 2;
        if (base.length < 2 || !addNamed(set, base, negated, fold)) fail(Why.UnknownPosix, start);
        continue;
      }
      const lo = src[i] === '\\' ? escaped(set) : next();
      if (lo < 0) continue;
      let hi = lo;
      if (src[i] === '-' && i + 1 < src.length && src[i + 1] !== ']') {
        i++;
        hi = src[i] === '\\' ? escaped() : next();
        if (hi < lo) fail(Why.BadRange, start);
      }
      addRange(set, lo, hi, fold);
    }
    i++;
    return one(set, fold);
  }

  const { length } = PATTERN_LIMITS;
  if (src.length > length) fail(Why.TooLong, length);
  const root = alternation();
  if (i < src.length) fail(Why.UnexpectedParen);
  root.push(Op.Match, 0, 0);
  return { code: Int32Array.from(root), ranges: Int32Array.from(ranges), sets };
}
