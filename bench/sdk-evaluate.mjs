/**
 * Benchmark: local evaluation, `client.isEnabled(flagKey, user)` of an offline client (100 flags),
 * over 1,000,000 users made up front, keys `user-<n>` and UUIDs; a boolean and a 50 % rollout flag.
 * Floors in the same process, in alternating passes: a bare `Map.get` (boolean), and `Map.get` plus
 * murmur3_x86_32 inlined in the loop (rollout). The figure: the median over rounds of the per-round
 * ratio SDK/floor (CPU time). Usage counting (issue 24): the same calls of a client that counts
 * for usage reports against the one that does not, in the same run: at most 5 ns more. Garbage per call: a second process with `--expose-gc` and a 64 MB young
 * generation (no scavenge inside a pass; a GC inside voids the figure). The measuring process:
 * `lib/evaluate-child.mjs`. Settings: FLAGWIRE_BENCH_EVAL_ROUNDS (7), _PASSES (3), _USERS (1000000).
 */
import { join } from 'node:path';
import { BENCH_DIR, dist, fmt, knob, median, runJson, table, verdict } from './lib/util.mjs';

const TARGET_ROLLOUT_RATIO = 1.3;
const TARGET_BOOLEAN_RATIO = 2;
/** Usage counting on against off (issue 24): at most this many ns more per call (median per round). */
const TARGET_USAGE_NS = 5;
/** "About zero": below this many bytes per call (a 16-byte object every 320 calls). */
const TARGET_BYTES_PER_CALL = 0.05;
const SEMI_SPACE_MB = 64;
const CHILD = join(BENCH_DIR, 'lib', 'evaluate-child.mjs');

export async function run({ log }) {
  const s = {
    rounds: knob('FLAGWIRE_BENCH_EVAL_ROUNDS', 7),
    passes: knob('FLAGWIRE_BENCH_EVAL_PASSES', 3),
    users: knob('FLAGWIRE_BENCH_EVAL_USERS', 1_000_000),
    warmupPasses: 3,
    garbageSamples: 3,
    semiSpaceMb: SEMI_SPACE_MB,
  };
  const sdk = dist().url('index.js');
  log(`  SDK ${sdk}; ${fmt.int(s.users)} users x 2 key sets; ${s.rounds} rounds x ${s.passes} passes`);
  const config = JSON.stringify({ sdkUrl: sdk, ...s });
  const timing = await runJson(CHILD, ['timing', config]);
  const semi = [`--min-semi-space-size=${SEMI_SPACE_MB}`, `--max-semi-space-size=${SEMI_SPACE_MB}`];
  const garbage = await runJson(CHILD, ['garbage', config], { execArgv: ['--expose-gc', ...semi] });

  const rows = [];
  const cases = timing.cases.map((t) => {
    const { id, sdk: gs, floor: gf } = garbage.cases.find((c) => c.id === t.id);
    const usage = id.endsWith('/usage-on');
    const target = id.startsWith('rollout') ? TARGET_ROLLOUT_RATIO : TARGET_BOOLEAN_RATIO;
    // Usage cases: the median over rounds of (on - off) ns per call.
    const extraNs = median(t.nsPerRound.map((ns, i) => ns - t.baseNsPerRound[i]));
    const ratioMet = usage ? extraNs <= TARGET_USAGE_NS : t.ratioMedian <= target;
    const gcClean = gs.gcs === 0 && gf.gcs === 0;
    const bytesMet = gcClean && gs.perUnit <= TARGET_BYTES_PER_CALL;
    rows.push([
      `isEnabled, ${t.flag}, keys ${t.keys}${usage ? ', usage on' : ''}`,
      t.floor,
      fmt.ns(t.nsMedian),
      fmt.ns(t.baseNsMedian),
      fmt.x(t.ratioMedian),
      fmt.x(t.wallRatioMedian),
      usage
        ? `+${extraNs.toFixed(1)} ns <= +${TARGET_USAGE_NS} ns: ${verdict(ratioMet)}`
        : `<= ${target}x: ${verdict(ratioMet)}`,
      `${fmt.bytes(gs.perUnit)} / ${fmt.bytes(gf.perUnit)}${gcClean ? '' : ' (GC ran!)'}`,
      verdict(bytesMet),
    ]);
    return {
      ...t,
      target: usage
        ? { extraNsAtMost: TARGET_USAGE_NS, extraNs, met: ratioMet }
        : { ratioAtMost: target, met: ratioMet },
      garbage: { sdk: gs, floor: gf, bytesMet },
    };
  });
  const met = cases.every((c) => c.target.met && c.garbage.bytesMet);
  const result = { settings: { ...s, sdk }, cases, garbageControlBytes: garbage.controlBytes, met };
  const header =
    'sdk-evaluate|floor|SDK CPU/call|floor CPU/call|SDK/floor|(wall)|target|garbage/call SDK / floor|~0 B';
  return { result, text: table(header, rows) };
}
