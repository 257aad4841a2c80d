/** Benchmark `pattern`: the `matches` matcher (`src/core/pattern/` through esbuild) against `RegExp`. */
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { knob, median, REPO_DIR, table, tempDir } from './lib/util.mjs';

const now = () => Number(process.hrtime.bigint()) / 1e6;
let sink = 0;
function nsPerCall(test, input) {
  let calls = 0;
  const start = now();
  while (now() - start < 50) {
    for (let k = 0; k < 100; k++) sink += test(input) ? 1 : 0;
    calls += 100;
  }
  return ((now() - start) * 1e6) / calls;
}
/** `n` characters of text ending with `tail` (what the pattern looks for): every call reads it all. */
const text = (n, tail) =>
  `${'the quick brown fox jumps over the lazy dog 0123456789 '.repeat(Math.ceil(n / 55)).slice(0, n - tail.length)}${tail}`;
/** [name, pattern, case-insensitive, input of n characters]. */
const SAFE = [
  ['literal', 'checkout', false, (n) => text(n, '/checkout')],
  ['class', '[0-9a-f]{8}-[0-9a-f]{4}', false, (n) => text(n, 'deadbeef-cafe')],
  ['alternation', '(beta|canary|internal)-tester', false, (n) => text(n, 'canary-tester')],
  ['anchored', '^user-\\d+$', false, (n) => `user-${'7'.repeat(n - 5)}`],
  ['case-insensitive', '@example\\.com$', true, (n) => text(n, 'ann@EXAMPLE.COM')],
];
const CATASTROPHIC = [
  ['(a+)+$', (n) => `${'a'.repeat(n)}!`],
  ['(a|a)*b', (n) => 'a'.repeat(n)],
  ['(a*)*b', (n) => 'a'.repeat(n)],
  ['^(\\w+\\s?)*$', (n) => `${'a'.repeat(n)}!`],
  ['(x+x+)+y', (n) => 'x'.repeat(n)],
];
const LENGTHS = [10, 100, 1000, 10_000, 65_535];
export async function run() {
  const rounds = knob('FLAGWIRE_BENCH_PATTERN_ROUNDS', 5);
  const outfile = join(tempDir('pattern'), 'pattern.mjs');
  const entry = join(REPO_DIR, 'src', 'core', 'pattern', 'index.ts');
  await build({ entryPoints: [entry], bundle: true, format: 'esm', outfile, logLevel: 'silent' });
  const { compilePattern } = await import(pathToFileURL(outfile).href);
  const safe = [];
  for (const [name, pattern, fold, make] of SAFE) {
    const ours = compilePattern(pattern, fold);
    const theirs = new RegExp(pattern, fold ? 'iu' : 'u');
    for (const n of [20, 1024]) {
      const input = make(n);
      if (!ours.test(input) || !theirs.test(input)) throw new Error(`${pattern} should match`);
      const [o, t, ratios] = [[], [], []];
      for (let r = 0; r < rounds; r++) {
        o.push(nsPerCall((s) => ours.test(s), input));
        t.push(nsPerCall((s) => theirs.test(s), input));
        ratios.push(o[r] / t[r]);
      }
      const [ns, base, ratio] = [median(o).toFixed(0), median(t).toFixed(0), median(ratios).toFixed(1)];
      safe.push([name, n === 20 ? '20 chars' : '1 KiB', ns, base, `${ratio}x`]);
    }
  }

  const slow = [];
  for (const [pattern, input] of CATASTROPHIC) {
    // RegExp at n = 10, 12, 14...; stop when the next run would pass 1 s at the growth just seen.
    const theirs = new RegExp(pattern, 'u');
    let last = { n: 8, ms: 0 };
    let perChar;
    for (let n = 10; n < 200; n += 2) {
      const start = now();
      sink += theirs.test(input(n)) ? 1 : 0;
      const ms = now() - start;
      const growth = last.ms > 1 ? ms / last.ms : 1;
      if (last.ms > 1) perChar = growth ** (1 / 2);
      last = { n, ms };
      if (ms * growth > 1000) break;
    }
    const ours = compilePattern(pattern);
    const perCharOurs = LENGTHS.map((n) => {
      const s = input(n);
      const calls = n > 1000 ? 3 : 100;
      const start = now();
      for (let k = 0; k < calls; k++) sink += ours.test(s) ? 1 : 0;
      return (((now() - start) * 1e6) / calls / s.length).toFixed(0);
    });
    const growth = perChar ? `x${perChar.toFixed(2)} per char` : '-';
    slow.push([pattern, `n=${last.n}: ${last.ms.toFixed(0)} ms`, growth, ...perCharOurs]);
  }
  const columns = LENGTHS.map((n) => `ns/char at ${n}`).join('|');
  const text = [
    table('pattern: safe, matching at the end (ns per test())|input|flagwire|RegExp|ratio', safe),
    table(`pattern: catastrophic, no match|RegExp largest run (up to ~1 s)|RegExp growth|${columns}`, slow),
  ].join('\n\n');
  return { result: { safe, catastrophic: slow, sink }, text };
}
// Alone (`node bench/pattern.mjs`, cited by docs/protocol.md): no build needed.
if (process.argv[1] === fileURLToPath(import.meta.url)) console.log((await run()).text);
