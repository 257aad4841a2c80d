/**
 * Benchmark: local evaluation, `client.isEnabled(flagKey, user)`, the SDK's hot path.
 *
 * A client made with `bootstrap` (100 flags) + `offline: true` (no server), evaluated over
 * 1,000,000 distinct users `{ key }` made up front, twice: keys `user-<n>` and UUID-like keys.
 * Two flags: a boolean flag and a 50 % rollout flag (both enabled). Floors, measured in the same
 * process, in alternating passes:
 *
 * - boolean: a bare `Map.get` on the same flags (plus the `enabled` read that gives the answer);
 * - rollout: the same `Map.get` plus a straightforward murmur3_x86_32 (seed 0) inlined in the
 *   loop, over the ASCII bytes of `flagKey:userKey` read with `charCodeAt`, allocating nothing.
 *
 * Each pass is 1,000,000 calls; ns/call is the process's CPU time per call (wall time is in the
 * JSON too). Per round, the median of a few alternating passes of each; the figure is the median
 * over rounds of the per-round ratio SDK/floor. The SDK and its floor must answer `true` the same
 * number of times (which checks the bench's murmur3 against the SDK's).
 *
 * Garbage per call: a second process with `--expose-gc` and a 64 MB young generation, so that no
 * scavenge runs during a pass; `heapUsed` after a pass minus before it (after `gc()`), minus an
 * empty control, over 1,000,000 calls (the least of 3 samples); the GC events seen during the
 * passes must be 0, else the figure is void. The measuring process: `sdk-lib/evaluate-child.mjs`.
 *
 * Settings: FLAGWIRE_BENCH_EVAL_ROUNDS (7), FLAGWIRE_BENCH_EVAL_PASSES (3), FLAGWIRE_BENCH_EVAL_USERS (1000000).
 */
import { join } from 'node:path';
import { BENCH_DIR, dist, fmt, knob, runJson, table, verdict } from './lib/util.mjs';

const TARGET_ROLLOUT_RATIO = 1.3;
const TARGET_BOOLEAN_RATIO = 2;
/** "About zero": below this many bytes per call (a 16-byte object every 320 calls). */
const TARGET_BYTES_PER_CALL = 0.05;
const CHILD = join(BENCH_DIR, 'sdk-lib', 'evaluate-child.mjs');

const ns = (n) => (Number.isFinite(n) ? `${n.toFixed(1)} ns` : '-');
/** Bytes per call; within +-0.005 of 0 (the control's jitter over 1M calls) shows as 0. */
const bytes = (b) => (Number.isFinite(b) ? `${Math.abs(b) < 0.005 ? '0.00' : b.toFixed(2)} B` : '-');

export async function run({ log }) {
  const s = {
    rounds: knob('FLAGWIRE_BENCH_EVAL_ROUNDS', 7),
    passes: knob('FLAGWIRE_BENCH_EVAL_PASSES', 3),
    users: knob('FLAGWIRE_BENCH_EVAL_USERS', 1_000_000),
    warmupPasses: 3,
    garbageSamples: 3,
    semiSpaceMb: 64,
  };
  const sdk = dist().url('index.js');
  log(
    `  SDK ${sdk}; ${fmt.int(s.users)} users x 2 key sets; ${s.rounds} rounds x ${s.passes} alternating passes`,
  );
  const config = { sdkUrl: sdk, ...s };
  const timing = await runJson(CHILD, ['timing', JSON.stringify(config)]);
  const semi = s.semiSpaceMb;
  const execArgv = ['--expose-gc', `--min-semi-space-size=${semi}`, `--max-semi-space-size=${semi}`];
  const garbage = await runJson(CHILD, ['garbage', JSON.stringify(config)], { execArgv });

  const rows = [];
  const cases = timing.cases.map((t) => {
    const g = garbage.cases.find((c) => c.id === t.id);
    const target = t.id.startsWith('rollout') ? TARGET_ROLLOUT_RATIO : TARGET_BOOLEAN_RATIO;
    const ratioMet = t.ratioMedian <= target;
    const gcClean = g.sdkGcEvents === 0 && g.floorGcEvents === 0;
    const bytesMet = gcClean && g.sdkBytesPerCall <= TARGET_BYTES_PER_CALL;
    rows.push([
      `isEnabled, ${t.flag}, keys ${t.keys}`,
      t.floor,
      ns(t.sdkNsMedian),
      ns(t.floorNsMedian),
      fmt.x(t.ratioMedian),
      fmt.x(t.wallRatioMedian),
      `<= ${target}x: ${verdict(ratioMet)}`,
      `${bytes(g.sdkBytesPerCall)} / ${bytes(g.floorBytesPerCall)}${gcClean ? '' : ' (GC ran!)'}`,
      verdict(bytesMet),
    ]);
    const { id, ...gc } = g;
    return { ...t, target: { ratioAtMost: target, met: ratioMet }, garbage: { ...gc, bytesMet } };
  });
  const met = cases.every((c) => c.target.met && c.garbage.bytesMet);
  const result = { settings: { ...s, sdk }, cases, garbageControlBytes: garbage.controlBytes, met };
  const header = [
    'sdk-evaluate',
    'floor',
    'SDK CPU/call',
    'floor CPU/call',
    'SDK/floor',
    '(wall)',
    'target',
    'garbage/call SDK / floor',
    '~0 B',
  ];
  return { result, text: table(header, rows) };
}
