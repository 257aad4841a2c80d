/**
 * The `matches` operator's pattern matcher (`src/core/pattern/`): RE2 syntax, unanchored
 * search, linear time in every runtime.
 *
 * - Vectors for every feature, with the answers RE2 gives (RE2's ASCII `\d \w \s \b`, `$` as
 *   the end of text without `(?m)`, `.` that only leaves out `\n`...).
 * - RE2's own search vectors (`test/fixtures/pattern-re2-search.txt`, RE2's `search_test.cc`
 *   run through RE2): every regexp but the `\C` ones (refused), against every text.
 * - Random patterns of the syntax RE2 and JavaScript read alike, on random inputs over a small
 *   alphabet: the same answer as the runtime's `RegExp` with the `u` flag.
 * - Refusals: each with the code `INVALID_PATTERN` and a message that starts with its position.
 * - The limits: 1,000-character patterns, 65,536-code-unit inputs, counts and program size.
 * - Linear time, counted rather than timed: the machine visits at most (program size) states per
 *   input position, so the catastrophic patterns' step counts grow with the input's length.
 *
 * Reproduce a random failure: PROPERTY_SEED=<seed printed by fast-check> npx vitest run test/unit/targeting/pattern.test.ts
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compilePattern,
  PATTERN_LIMITS,
  PatternError,
  patternProblem,
} from '../../../src/core/pattern/index.js';
import { parse } from '../../../src/core/pattern/parse.js';
import * as vm from '../../../src/core/pattern/vm.js';
import { PROPERTY_SEED, params } from '../../helpers/property-seed.js';

type Vector = [pattern: string, input: string, matches: boolean];

const FEATURES: Record<string, Vector[]> = {
  'literals and escapes': [
    ['abc', 'xabcx', true],
    ['abc', 'abx', false],
    ['', 'anything', true],
    ['', '', true],
    ['a\\.c', 'a.c', true],
    ['a\\.c', 'abc', false],
    ['\\\\', 'a\\b', true],
    ['\\n', 'a\nb', true],
    ['\\t\\r\\f\\v\\a', '\t\r\f\v\x07', true],
    ['\\x41', 'A', true],
    ['\\x{41}', 'A', true],
    ['\\x{1F600}', 'x😀', true],
    ['\\x{10FFFF}', '\u{10FFFF}', true],
    ['\\101', 'A', true],
    ['\\0', '\0', true],
    ['^\\08$', '\x008', true],
    ['\\141\\0141', 'a\x0c1', true],
    ['\\_\\-\\ \\{\\}\\#\\@', '_- {}#@', true],
    ['a{', 'a{', true],
    ['a{,2}', 'a{,2}', true],
    ['a{01}', 'a{01}', true],
    ['^a{1001$', 'a{1001', true],
    ['}', '}', true],
    ['\\Q.*\\E', '.*', true],
    ['\\Q.*\\E', 'ab', false],
    ['^\\Qab\\E+$', 'abbb', true],
    ['^\\Qab\\E+$', 'abab', false],
    ['\\Qa.b', 'a.b', true],
    ['\\Q\\E', 'x', true],
  ],
  'any character': [
    ['a.c', 'abc', true],
    ['a.c', 'a\nc', false],
    ['(?s)a.c', 'a\nc', true],
    ['a.c', 'a\rc', true],
    ['a.c', 'a\u2028c', true],
    ['^.$', '😀', true],
    ['^..$', '😀', false],
    ['^.$', 'é', true],
  ],
  'bracketed classes': [
    ['[abc]', 'xbx', true],
    ['[abc]', 'xyz', false],
    ['[a-c]+$', 'xxcab', true],
    ['[^a-c]', 'abc', false],
    ['[^a-c]', 'abcd', true],
    ['[]a]', ']', true],
    ['[^]a]', ']', false],
    ['[^]a]', 'b', true],
    ['[a-]', '-', true],
    ['[-a]', '-', true],
    ['[a-c-e]', '-', true],
    ['[a-c-e]', 'd', false],
    ['[\\d]', '5', true],
    ['[\\D]', '5', false],
    ['[^\\d]', 'x', true],
    ['[\\w-]', '-', true],
    ['[\\s]', '\t', true],
    ['[\\x{1F600}-\\x{1F64F}]', '😃', true],
    ['[\\x{1F600}-\\x{1F64F}]', '\ud83d', false],
    ['[^a]', '\n', true],
    ['^[^a]$', '😀', true],
    ['[\\]]', ']', true],
    ['[\\\\]', '\\', true],
    ['[.]', 'a', false],
    ['[.]', '.', true],
    ['[$^*+?(){}|]', '|', true],
    ['[\\pL]', 'é', true],
    ['[^\\pL]', 'é', false],
    ['[\\p{Greek}\\d]', '7', true],
    ['[\\p{Greek}\\d]', 'x', false],
    ['[[:a]', '[', true],
  ],
  'POSIX classes': [
    ['[[:alpha:]]', 'a', true],
    ['[[:alpha:]]', '1', false],
    ['[[:digit:]]', '7', true],
    ['[[:^digit:]]', '7', false],
    ['[[:^digit:]]', 'x', true],
    ['[[:space:]]', '\v', true],
    ['[[:upper:][:digit:]]', 'Q', true],
    ['[[:upper:][:digit:]]', 'q', false],
    ['[[:punct:]]', '!', true],
    ['[[:punct:]]', 'a', false],
    ['^[[:xdigit:]]+$', 'bEEf09', true],
    ['^[[:xdigit:]]+$', 'beefy', false],
    ['[[:word:]]', '_', true],
    ['[[:alnum:]]', 'é', false],
    ['[[:ascii:]]', 'é', false],
    ['[[:ascii:]]', '\x7f', true],
    ['[[:blank:]]', '\t', true],
    ['[[:blank:]]', '\n', false],
    ['[[:cntrl:]]', '\x7f', true],
    ['[[:graph:]]', ' ', false],
    ['[[:print:]]', ' ', true],
    ['[[:lower:]]', 'A', false],
  ],
  'Perl classes (ASCII, as RE2)': [
    ['\\d+', 'abc123', true],
    ['\\d', '٣', false],
    ['\\D', '٣', true],
    ['\\w', 'é', false],
    ['\\W', 'é', true],
    ['\\w', '_', true],
    ['\\s', '\u00a0', false],
    ['\\s', '\v', false],
    ['\\S', '\v', true],
    ['\\s', '\f', true],
    ['^\\S+$', 'a\u00a0b', true],
  ],
  'word boundaries': [
    ['\\bfoo\\b', 'a foo.', true],
    ['\\bfoo\\b', 'foobar', false],
    ['\\Bfoo', 'xfoo', true],
    ['\\Bfoo', 'foo', false],
    ['\\b', '', false],
    ['\\B', '', true],
    ['\\bé', ' é', false],
    ['x\\b', 'xé', true],
    ['\\b\\d+\\b', 'a 42 b', true],
  ],
  anchors: [
    ['^abc', 'abcd', true],
    ['^abc', 'xabc', false],
    ['abc$', 'xabc', true],
    ['abc$', 'abc\n', false],
    ['\\Aabc', 'abc', true],
    ['\\Aabc', 'x\nabc', false],
    ['abc\\z', 'abc\n', false],
    ['abc\\z', 'xabc', true],
    ['^$', '', true],
    ['^$', '\n', false],
    ['(?m)^$', '\n', true],
    ['(?m)^abc$', 'x\nabc\ny', true],
    ['^abc$', 'x\nabc\ny', false],
    ['(?m)\\Aabc', 'x\nabc', false],
    ['(?m)abc\\z', 'abc\nx', false],
    ['a^b', 'a^b', false],
    ['(?m)a$\\n^b', 'a\nb', true],
    ['^*a', 'a', true],
    ['\\b+x', ' x', true],
  ],
  groups: [
    ['(ab)+$', 'xabab', true],
    ['(?:ab)+c', 'ababc', true],
    ['(?P<year>\\d{4})-(?P<month>\\d\\d)', 'on 2024-05', true],
    ['(?<word>\\w+)!', 'hi!', true],
    ['(?P<名前>x)', 'x', true],
    ['()', 'x', true],
    ['(|a)+b', 'b', true],
    ['((((((((((x))))))))))', 'x', true],
    ['(?)a', 'a', true],
  ],
  alternation: [
    ['cat|dog', 'hotdog', true],
    ['cat|dog', 'cow', false],
    ['^(cat|dog)$', 'dog', true],
    ['^(cat|dog)$', 'cats', false],
    ['a|', 'x', true],
    ['|', '', true],
    ['^(?:a|b|c|d)+$', 'abdcx', false],
    ['^(?:a|b|c|d)+$', 'abdc', true],
    ['^(a|ab)(c|bcd)$', 'abcd', true],
  ],
  repetition: [
    ['^a*$', '', true],
    ['^a+$', '', false],
    ['^a?b$', 'b', true],
    ['^a{3}$', 'aaa', true],
    ['^a{3}$', 'aaaa', false],
    ['^a{2,}$', 'a', false],
    ['^a{2,}$', 'aaaaa', true],
    ['^a{2,3}$', 'aaaa', false],
    ['^a{0}$', '', true],
    ['^a{0,0}b$', 'ab', false],
    ['^(ab){2}$', 'abab', true],
    ['^(a{2}){3}$', 'aaaaaa', true],
    ['^(a{2}){3}$', 'aaaaa', false],
    [`^x{1000}$`, 'x'.repeat(1000), true],
    [`^x{1000}$`, 'x'.repeat(999), false],
    ['^(?:a|bc){2,3}$', 'abcbc', true],
    ['^(?:a|bc){2,3}$', 'abcbca', false],
    ['^(a*)*$', 'aaa', true],
    ['^(a*)+b$', 'aab', true],
    ['^(?:)*$', '', true],
  ],
  'lazy repetition (the same yes or no)': [
    ['^a*?$', 'aaa', true],
    ['a+?b', 'aab', true],
    ['^a??b$', 'ab', true],
    ['^a{2,3}?$', 'aaa', true],
    ['^a{2}?$', 'aa', true],
    ['^a{2,}?$', 'aaaa', true],
    ['(?U)^a+$', 'aaa', true],
    ['(?U)^a+?$', 'aaa', true],
  ],
  'inline flags': [
    ['(?i)abc', 'ABC', true],
    ['(?i)ABC', 'abc', true],
    ['a(?i)b', 'aB', true],
    ['a(?i)b', 'AB', false],
    ['(?i:a)b', 'Ab', true],
    ['(?i:a)b', 'AB', false],
    ['(?i)a(?-i)b', 'Ab', true],
    ['(?i)a(?-i)b', 'AB', false],
    ['(?i)[a-c]+$', 'xBCa', true],
    ['(?i)[^a]', 'A', false],
    ['(?i)a|b', 'B', true],
    ['(?:(?i)a)b', 'AB', false],
    ['(?sm)^a.b$', 'x\na\nb', true],
    ['(?s-m)^a.b$', 'x\na\nb', false],
    ['(?m-s)^a.b$', 'x\na\nb', false],
    ['(?i-s:A.)B', 'a\nB', false],
    ['(?i-s:A.)B', 'axB', true],
  ],
  'case folding (Unicode simple folding, as RE2)': [
    ['(?i)k', '\u212a', true],
    ['(?i)\u212a', 'k', true],
    ['(?i)s', '\u017f', true],
    ['(?i)ß', 'ẞ', true],
    ['(?i)σ', 'ς', true],
    ['(?i)é', 'É', true],
    ['(?i)[é]', 'É', true],
    ['(?i)[à-ÿ]', 'É', true],
    ['(?i)[[:upper:]]', 'a', true],
    ['(?i)[[:^upper:]]', 'a', false],
    ['(?i)\\W', '\u212a', false],
    ['\\W', '\u212a', true],
    ['(?i)\\w', '\u017f', true],
    ['(?i)\\p{Lu}', 'a', true],
    ['(?i)\\P{Lu}', 'a', false],
    ['\\P{Lu}', 'a', true],
    ['(?i)İ', 'i', false],
  ],
  'Unicode: code points and classes': [
    ['^\\pL+$', 'héllo', true],
    ['^\\pL+$', 'h3llo', false],
    ['\\pN', '٣', true],
    ['\\p{Nd}', '½', false],
    ['\\p{N}', '½', true],
    ['\\p{Greek}', 'λ', true],
    ['\\p{Greek}', 'l', false],
    ['\\p{^Greek}', 'λ', false],
    ['\\P{Greek}', 'l', true],
    ['\\P{^Greek}', 'λ', true],
    ['\\p{Han}', '日本', true],
    ['\\p{Lu}', 'É', true],
    ['\\p{Ll}', 'É', false],
    ['\\p{Cyrillic}+', 'Жук', true],
    ['^\\p{Any}$', '😀', true],
    ['^[😀-😂]$', '😁', true],
    ['^😀+$', '😀😀', true],
    ['^\\x{1F600}{2}$', '😀😀', true],
    ['^.$', '\ud800', true],
    ['\\x{D800}', 'a\ud800b', true],
  ],
};

function compiled(pattern: string, caseInsensitive = false): { test(input: string): boolean } {
  return compilePattern(pattern, caseInsensitive);
}

describe('features', () => {
  for (const [feature, vectors] of Object.entries(FEATURES)) {
    it.each(vectors)(`${feature}: %j on %j gives %s`, (pattern, input, expected) => {
      expect(compiled(pattern).test(input)).toBe(expected);
    });
  }

  it('compiles case-insensitively when asked, as (?i) around the pattern', () => {
    expect(compiled('hello', true).test('say HeLLo')).toBe(true);
    expect(compiled('hello').test('say HeLLo')).toBe(false);
    expect(compiled('[a-z]+@example\\.com$', true).test('ANN@EXAMPLE.COM')).toBe(true);
    expect(compiled('(?-i)hello', true).test('HELLO')).toBe(false);
    expect(compiled('(?-i:h)ello', true).test('hELLO')).toBe(true);
    expect(compiled('é', true).test('É')).toBe(true);
  });

  it('answers the same on every call, and machines do not share state', () => {
    const a = compiled('^(a|b)*c$');
    const b = compiled('\\bfoo');
    for (let k = 0; k < 1000; k++) {
      expect(a.test('ababc')).toBe(true);
      expect(b.test('a foo')).toBe(true);
      expect(a.test('ababd')).toBe(false);
      expect(b.test('afoo')).toBe(false);
    }
  });
});

describe("RE2's search vectors", () => {
  /** `strings` then `regexps`, each regexp followed by one line per string (see the file's first line). */
  function* searchVectors(): Generator<[pattern: string, input: string, matches: boolean]> {
    const lines = readFileSync(
      new URL('../../fixtures/pattern-re2-search.txt', import.meta.url),
      'utf8',
    ).split('\n');
    // Go-quoted strings, which JSON reads, but for raw control characters.
    const unquote = (line: string): string =>
      JSON.parse(line.replace(/[\x00-\x1f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
    let strings: string[] = [];
    let reading: 'strings' | 'regexps' = 'strings';
    for (let k = 0; k < lines.length; k++) {
      const line = lines[k]!;
      if (line === 'strings' || line === 'regexps') {
        reading = line;
        if (line === 'strings') strings = [];
      } else if (line.startsWith('"') && reading === 'strings') strings.push(unquote(line));
      else if (line.startsWith('"')) {
        const pattern = unquote(line);
        for (const input of strings) yield [pattern, input, lines[++k]!.split(';')[1] !== '-'];
      }
    }
  }
  const vectors = [...searchVectors()];

  it('has the whole file', () => {
    expect(vectors.length).toBe(1888);
  });

  it('agrees with RE2 on every vector but \\C (any byte), which it refuses', () => {
    const wrong: string[] = [];
    let run = 0;
    for (const [pattern, input, expected] of vectors) {
      if (pattern.includes('\\C')) {
        expect(patternProblem(pattern)).toMatch(/\\C \(any byte\) is not supported/);
        continue;
      }
      run++;
      if (compiled(pattern).test(input) !== expected)
        wrong.push(`${JSON.stringify(pattern)} on ${JSON.stringify(input)}: RE2 says ${expected}`);
    }
    expect(wrong).toEqual([]);
    expect(run).toBe(1808);
  });
});

describe(`agrees with RegExp where RE2 and JavaScript read a pattern alike (seed ${PROPERTY_SEED})`, () => {
  /** Inputs: no \r, \u2028, \v, \u00a0, ſ or K (where JavaScript's `.`, `^$` with m, `\s` or folding differ). */
  const ALPHABET = ['a', 'b', 'c', 'A', 'B', '1', '_', ' ', '\n', '.', 'é', 'É', 'λ', '😀'];
  /** [RE2, JavaScript] pairs. */
  const CHARS: [string, string][] = [
    ...['a', 'b', 'c', 'A', '1', ' ', 'é', '😀', '\\.', '\\n', '.'].map((c): [string, string] => [c, c]),
    ...['[ab]', '[^a]', '[a-c]', '[^\\n]', '[😀é]', '[^😀]', '\\d', '\\D', '\\w', '\\W', '\\s', '\\S'].map(
      (c): [string, string] => [c, c],
    ),
    ['\\pL', '\\p{L}'],
    ['\\p{Lu}', '\\p{Lu}'],
    ['\\P{L}', '\\P{L}'],
    ['\\p{Greek}', '\\p{Script=Greek}'],
    ['\\x{e9}', '\\u{e9}'],
    ['[[:alpha:]]', '[A-Za-z]'],
  ];
  const ASSERTIONS: [string, string][] = ['^', '$', '\\b', '\\B'].map((c) => [c, c]);
  const QUANTIFIERS = ['*', '+', '?', '{2}', '{0,2}', '{1,3}', '{2,}'];

  const pattern = fc.letrec<{ node: [string, string]; repeatable: [string, string] }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constantFrom(...CHARS),
      fc.constantFrom(...ASSERTIONS),
      fc
        .tuple(tie('repeatable'), fc.constantFrom(...QUANTIFIERS), fc.boolean())
        .map(([[re2, js], q, lazy]): [string, string] => [
          `${re2}${q}${lazy ? '?' : ''}`,
          `${js}${q}${lazy ? '?' : ''}`,
        ]),
      fc
        .array(tie('node'), { minLength: 2, maxLength: 4 })
        .map((xs): [string, string] => [xs.map((x) => x[0]).join(''), xs.map((x) => x[1]).join('')]),
      fc
        .array(tie('node'), { minLength: 2, maxLength: 3 })
        .map((xs): [string, string] => [xs.map((x) => x[0]).join('|'), xs.map((x) => x[1]).join('|')]),
    ),
    repeatable: fc.oneof(
      fc.constantFrom(...CHARS),
      fc
        .tuple(tie('node'), fc.boolean())
        .map(([[re2, js], capture]): [string, string] => [
          capture ? `(${re2})` : `(?:${re2})`,
          capture ? `(${js})` : `(?:${js})`,
        ]),
    ),
  })).node;
  const inputs = fc.array(
    fc.array(fc.constantFrom(...ALPHABET), { maxLength: 12 }).map((cs) => cs.join('')),
    { minLength: 1, maxLength: 8 },
  );
  const flags = fc.subarray(['i', 'm', 's']);

  it('gives the same answer as new RegExp(pattern, flags + "u").test(input)', () => {
    fc.assert(
      fc.property(pattern, flags, fc.boolean(), inputs, ([re2, js], flagList, asOption, texts) => {
        const i = flagList.includes('i');
        const others = flagList.filter((f) => f !== 'i' || !asOption).join('');
        const ours = compiled(others ? `(?${others})${re2}` : re2, i && asOption);
        const theirs = new RegExp(js, `${flagList.join('')}u`);
        for (const text of texts) {
          // V8 also tries \B between the halves of a surrogate pair (the specification, and we,
          // step over whole code points).
          if (re2.includes('\\B') && /[\u{10000}-\u{10FFFF}]/u.test(text)) continue;
          expect(ours.test(text), `${re2} /${flagList.join('')} on ${JSON.stringify(text)}`).toBe(
            theirs.test(text),
          );
        }
      }),
      params(1000),
    );
  });
});

describe(`any text as a pattern (seed ${PROPERTY_SEED})`, () => {
  const PIECES = [
    ...'()[]{}|*+?^$.\\-:,0123456789abxpPQEzAbBdDwWsSiU<>=!#é😀\n'.split(''),
    ...['\\p{', '\\x{', '(?', '(?P<', '[:', ':]', '[^', '{1000}', '{2,3}', '\ud800', 'Greek}', 'L}'],
  ];
  it('compiles, or is refused with a PatternError naming a position; test() never throws', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...PIECES), { maxLength: 30 }).map((xs) => xs.join('')),
        fc.boolean(),
        fc.string({ maxLength: 20 }),
        (pattern, caseInsensitive, input) => {
          let compiledPattern: { test(input: string): boolean };
          try {
            compiledPattern = compilePattern(pattern, caseInsensitive);
          } catch (error) {
            expect(error).toBeInstanceOf(PatternError);
            expect((error as PatternError).message).toMatch(/^at \d+: /);
            expect((error as PatternError).index).toBeLessThanOrEqual(pattern.length);
            return;
          }
          expect(typeof compiledPattern.test(input)).toBe('boolean');
          expect(typeof compiledPattern.test(pattern)).toBe('boolean');
        },
      ),
      params(3000),
    );
  });
});

describe('refusals', () => {
  const REFUSED: [pattern: string, index: number, reason: string][] = [
    ['(?=a)', 0, 'lookahead (?= is not supported (RE2 syntax)'],
    ['ab(?!c)', 2, 'lookahead (?! is not supported (RE2 syntax)'],
    ['(?<=a)b', 0, 'lookbehind (?<= is not supported (RE2 syntax)'],
    ['x(?<!a)b', 1, 'lookbehind (?<! is not supported (RE2 syntax)'],
    ['(a)\\1', 3, 'backreference \\1 is not supported (RE2 syntax)'],
    ['(a)\\9', 3, 'backreference \\9 is not supported (RE2 syntax)'],
    ['(?P<n>a)(?P=n)', 8, 'backreference (?P= is not supported (RE2 syntax)'],
    ['a++', 2, 'possessive quantifier is not supported (RE2 syntax)'],
    ['a*+', 2, 'possessive quantifier is not supported (RE2 syntax)'],
    ['a{2}+', 4, 'possessive quantifier is not supported (RE2 syntax)'],
    ['a**', 2, 'repeated quantifier'],
    ['a{2}{3}', 4, 'repeated quantifier'],
    ['a???', 3, 'repeated quantifier'],
    ['a{1001}', 1, 'bad repetition {1001}: counts go from 0 to 1000, the least first'],
    ['a{0,1001}', 1, 'bad repetition {0,1001}: counts go from 0 to 1000, the least first'],
    ['a{2,1}', 1, 'bad repetition {2,1}: counts go from 0 to 1000, the least first'],
    ['(a{2}){501}', 6, 'nested repetition over 1000 in all'],
    ['((a{10}){10}){11}', 13, 'nested repetition over 1000 in all'],
    ['(?:abcdef){1000}', 10, 'pattern too large: over 5000 instructions'],
    [
      '[a-z]{1000}[a-z]{1000}[a-z]{1000}[a-z]{1000}[a-z]{1000}[a-z]{1000}',
      55,
      'pattern too large: over 5000 instructions',
    ],
    ['*a', 0, 'missing argument to repetition operator'],
    ['a|*', 2, 'missing argument to repetition operator'],
    ['(+)', 1, 'missing argument to repetition operator'],
    ['{2}', 0, 'missing argument to repetition operator'],
    ['(?i)*', 4, 'missing argument to repetition operator'],
    ['(a', 0, 'missing )'],
    ['x(?:a', 1, 'missing )'],
    ['(?i', 0, 'missing )'],
    ['a)', 1, 'unexpected )'],
    ['[a', 0, 'missing ]'],
    ['x[]', 1, 'missing ]'],
    ['[^]', 0, 'missing ]'],
    ['[z-a]', 1, 'bad range z-a'],
    ['[a-\\d]', 3, 'invalid escape \\d'],
    ['[[:foo:]]', 1, 'unknown POSIX class [:foo:]'],
    ['[[:d:]]', 1, 'unknown POSIX class [:d:]'],
    ['\\p{Klingon}', 0, 'unknown Unicode class \\p{Klingon}'],
    ['\\p{Script=Greek}', 0, 'unknown Unicode class \\p{Script=Greek}'],
    ['\\p{ASCII}', 0, 'unknown Unicode class \\p{ASCII}'],
    ['\\p{L', 0, 'missing } in \\p{'],
    ['x\\p', 1, 'unknown Unicode class \\p'],
    ['\\Z', 0, 'invalid escape \\Z'],
    ['\\e', 0, 'invalid escape \\e'],
    ['\\cA', 0, 'invalid escape \\c'],
    ['\\u0041', 0, 'invalid escape \\u'],
    ['\\k<n>', 0, 'invalid escape \\k'],
    ['[\\b]', 1, 'invalid escape \\b'],
    ['\\xZZ', 0, 'invalid escape \\xZ'],
    ['\\x{110000}', 0, 'invalid escape \\x{'],
    ['\\x{}', 0, 'invalid escape \\x{'],
    ['\\é', 0, 'invalid escape \\é'],
    ['\\C', 0, '\\C (any byte) is not supported (RE2 syntax)'],
    ['a\\', 1, 'trailing \\'],
    ['(?#comment)', 0, 'group (?# is not supported (RE2 syntax)'],
    ['(?>a)', 0, 'group (?> is not supported (RE2 syntax)'],
    ['(?x)a', 0, 'group (?x is not supported (RE2 syntax)'],
    ['(?P>n)', 0, 'group (?P is not supported (RE2 syntax)'],
    ['(?-)', 0, 'bad flags (?-)'],
    ['(?i-:a)', 0, 'bad flags (?i-:'],
    ['(?--i)', 0, 'group (?-- is not supported (RE2 syntax)'],
    ['(?P<>a)', 0, 'bad group name'],
    ['(?P<a b>x)', 0, 'bad group name'],
    ['(?<n', 0, 'bad group name'],
    ['a'.repeat(1001), 1000, 'a pattern is at most 1000 characters'],
  ];

  it.each(REFUSED)('%j: at %i, %s', (pattern, index, reason) => {
    let error: unknown;
    try {
      compilePattern(pattern);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PatternError);
    expect(error).toMatchObject({ code: 'INVALID_PATTERN', index, message: `at ${index}: ${reason}` });
    expect(patternProblem(pattern)).toBe(`at ${index}: ${reason}`);
  });

  it('refuses the same way case-insensitively', () => {
    expect(() => compilePattern('(?=a)', true)).toThrow('at 0: lookahead (?= is not supported (RE2 syntax)');
  });

  it('accepts what RE2 accepts at the edges of the limits', () => {
    for (const pattern of [
      'a'.repeat(1000),
      'a{1000}',
      '(a{2}){500}',
      '((a{10}){10}){10}',
      '(?:abcd){1000}',
      '\\p{Greek}{1000}',
    ])
      expect(patternProblem(pattern), pattern.slice(0, 20)).toBeUndefined();
  });
});

describe('limits', () => {
  it('never matches an input over 65,536 UTF-16 code units', () => {
    expect(PATTERN_LIMITS.input).toBe(65_536);
    const any = compiled('');
    expect(any.test('a'.repeat(65_536))).toBe(true);
    expect(any.test('a'.repeat(65_537))).toBe(false);
    expect(compiled('^😀+$').test('😀'.repeat(32_768))).toBe(true);
    expect(compiled('😀').test(`${'😀'.repeat(32_768)}a`)).toBe(false);
    expect(compiled('b').test(`${'a'.repeat(65_535)}b`)).toBe(true);
  });

  it('takes patterns of up to 1,000 UTF-16 code units', () => {
    expect(PATTERN_LIMITS.length).toBe(1000);
    expect(compiled('😀'.repeat(500)).test('😀'.repeat(500))).toBe(true);
    expect(patternProblem(`${'😀'.repeat(500)}a`)).toBe('at 1000: a pattern is at most 1000 characters');
  });
});

describe('linear time, counted in machine steps', () => {
  /** Catastrophic for a backtracking engine, with inputs that do not match. */
  const CATASTROPHIC: [pattern: string, input: (n: number) => string][] = [
    ['(a+)+$', (n) => `${'a'.repeat(n)}!`],
    ['(a|a)*b', (n) => 'a'.repeat(n)],
    ['(a*)*b', (n) => 'a'.repeat(n)],
    ['^(\\w+\\s?)*$', (n) => `${'a'.repeat(n)}!`],
    ['(x+x+)+y', (n) => 'x'.repeat(n)],
    ['(?i)(a|A)*b', (n) => 'aA'.repeat(n / 2)],
    ['(\\p{L}+)+!', (n) => 'é'.repeat(n)],
    ['(.*){1,20}x', (n) => 'y'.repeat(n)],
  ];
  const SIZES = [10, 100, 1000, 10_000];

  function stepsOf(pattern: string, input: string): number {
    expect(compiled(pattern).test(input)).toBe(false);
    return vm.lastSteps;
  }

  it.each(CATASTROPHIC)(
    '%j: at most (program size) states per input position, growing with the input',
    (pattern, input) => {
      const size = parse(pattern, false).code.length / 3;
      const steps = SIZES.map((n) => stepsOf(pattern, input(n)));
      SIZES.forEach((n, k) => {
        expect(steps[k]).toBeLessThanOrEqual(size * (input(n).length + 1));
      });
      // Each tenfold input costs tenfold steps (within 10 %), never more.
      for (let k = 1; k < SIZES.length; k++) {
        const ratio = steps[k]! / steps[k - 1]!;
        expect(ratio, `${pattern}: ${steps.join(', ')}`).toBeGreaterThan(9);
        expect(ratio, `${pattern}: ${steps.join(', ')}`).toBeLessThan(11);
      }
    },
  );

  it('stays within the bound for a large program on a 64 KiB input', () => {
    // Russ Cox's a?ⁿaⁿ, which a backtracking engine takes 2ⁿ steps over, then a b that is not there.
    const pattern = '(?:a?){200}a{200}b';
    const size = parse(pattern, false).code.length / 3;
    const input = 'a'.repeat(65_536);
    expect(compiled(pattern).test(input)).toBe(false);
    expect(vm.lastSteps).toBeLessThanOrEqual(size * (input.length + 1));
    expect(size).toBeGreaterThan(600);
  });
});
