/**
 * Benchmark: the `matches` operator's pattern matcher (`src/core/pattern/`) against the
 * runtime's own `RegExp.prototype.test`, in the same process.
 *
 * 1. Safe patterns (a literal, a class, an alternation, an anchored pattern, a case-insensitive
 *    one) on a 20-character and a 1 KiB input: ns per `test` call, median of alternating rounds,
 *    and the ratio to RegExp measured in the same round.
 * 2. Catastrophic patterns on inputs that do not match: RegExp only up to the length where its
 *    next run is predicted to take over 1 s (its time multiplies with each added character:
 *    exponential); the matcher up to 65,536 characters, with its time per input character
 *    (constant: linear).
 *
 * Run: `node bench/pattern.mjs` (esbuild bundles the TypeScript source into a temporary file;
 * no build needed). FLAGWIRE_BENCH_PATTERN_ROUNDS (5) rounds of about 50 ms per side.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROUNDS = Number(process.env.FLAGWIRE_BENCH_PATTERN_ROUNDS ?? 5);
const dir = mkdtempSync(join(tmpdir(), 'flagwire-pattern-'));
const outfile = join(dir, 'pattern.mjs');
await build({
  entryPoints: [fileURLToPath(new URL('../src/core/pattern/index.ts', import.meta.url))],
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  outfile,
  logLevel: 'silent',
});
const { compilePattern } = await import(pathToFileURL(outfile).href);
rmSync(dir, { recursive: true, force: true });

const now = () => Number(process.hrtime.bigint()) / 1e6;
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
let sink = 0;

/** ns per call of `test(input)`, over about `ms` milliseconds. */
function nsPerCall(test, input, ms = 50) {
  let calls = 0;
  const start = now();
  let elapsed = 0;
  while (elapsed < ms) {
    for (let k = 0; k < 100; k++) sink += test(input) ? 1 : 0;
    calls += 100;
    elapsed = now() - start;
  }
  return (elapsed * 1e6) / calls;
}

const filler = (n) => 'the quick brown fox jumps over the lazy dog 0123456789 '.repeat(Math.ceil(n / 55)).slice(0, n);
const SAFE = [
  ['literal', 'checkout', false],
  ['class', '[0-9a-f]{8}-[0-9a-f]{4}', false],
  ['alternation', '(beta|canary|internal)-tester', false],
  ['anchored', '^user-\\d+$', false],
  ['case-insensitive', '@example\\.com$', true],
];
const INPUTS = [
  ['20 chars', filler(20)],
  ['1 KiB', filler(1024)],
];

const rows = [];
for (const [name, pattern, fold] of SAFE) {
  const ours = compilePattern(pattern, fold);
  const theirs = new RegExp(pattern, fold ? 'iu' : 'u');
  for (const [label, input] of INPUTS) {
    if (ours.test(input) !== theirs.test(input)) throw new Error(`${pattern} disagrees on ${label}`);
    const o = [];
    const t = [];
    const ratios = [];
    for (let r = 0; r < ROUNDS; r++) {
      o.push(nsPerCall((s) => ours.test(s), input));
      t.push(nsPerCall((s) => theirs.test(s), input));
      ratios.push(o[r] / t[r]);
    }
    rows.push([name, label, median(o).toFixed(0), median(t).toFixed(0), `${median(ratios).toFixed(1)}x`]);
  }
}

/** A table with a header, columns padded. */
function print(title, header, body) {
  const widths = header.map((h, c) => Math.max(h.length, ...body.map((row) => String(row[c]).length)));
  console.log(`\n${title}`);
  for (const row of [header, widths.map((w) => '-'.repeat(w)), ...body])
    console.log(row.map((cell, c) => String(cell).padEnd(widths[c])).join('  '));
}
print('Safe patterns: ns per test() call', ['pattern', 'input', 'flagwire', 'RegExp', 'ratio'], rows);

const CATASTROPHIC = [
  ['(a+)+$', (n) => `${'a'.repeat(n)}!`],
  ['(a|a)*b', (n) => 'a'.repeat(n)],
  ['(a*)*b', (n) => 'a'.repeat(n)],
  ['^(\\w+\\s?)*$', (n) => `${'a'.repeat(n)}!`],
  ['(x+x+)+y', (n) => 'x'.repeat(n)],
];
const LENGTHS = [10, 100, 1000, 10_000, 65_535];
const slow = [];
for (const [pattern, input] of CATASTROPHIC) {
  const theirs = new RegExp(pattern, 'u');
  let n = 10;
  let previous;
  let last = { n, ms: 0 };
  for (;;) {
    const start = now();
    sink += theirs.test(input(n)) ? 1 : 0;
    const ms = now() - start;
    const growth = previous && ms > 1 ? ms / previous.ms : 1;
    last = { n, ms, perChar: previous && ms > 1 ? (ms / previous.ms) ** (1 / (n - previous.n)) : undefined };
    if (ms * growth > 1000 || n >= 200) break; // the next run would pass 1 s (or it is not slow)
    previous = ms > 1 ? last : undefined;
    n += 2;
  }
  const ours = compilePattern(pattern);
  const times = LENGTHS.map((length) => {
    const s = input(length);
    const calls = length > 1000 ? 3 : 100;
    const start = now();
    for (let k = 0; k < calls; k++) sink += ours.test(s) ? 1 : 0;
    return ((now() - start) * 1e6) / calls / s.length;
  });
  slow.push([
    pattern,
    `n=${last.n}: ${last.ms.toFixed(0)} ms`,
    last.perChar ? `x${last.perChar.toFixed(2)} per char` : '-',
    ...times.map((t) => t.toFixed(0)),
  ]);
}
print(
  'Catastrophic patterns, no match: RegExp up to ~1 s; flagwire ns per input character at n =',
  ['pattern', 'RegExp largest run', 'RegExp growth', ...LENGTHS.map(String)],
  slow,
);
if (sink < 0) console.log(sink);
