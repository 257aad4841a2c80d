/**
 * Benchmark: local evaluation, `client.isEnabled(flagKey, user)`, the SDK's hot path.
 *
 * A client made with `bootstrap` (100 flags) + `offline: true` (no server), evaluated over
 * 1,000,000 distinct users `{ key }` made up front, twice: keys `user-<n>` and UUID-like keys.
 * Two flags: a boolean flag and a 50 % rollout flag (both enabled). Floors, measured in the
 * same process, in alternating passes:
 *
 * - boolean: a bare `Map.get` on the same flags (plus the `enabled` read that gives the answer);
 * - rollout: the same `Map.get` plus a straightforward murmur3_x86_32 (seed 0) inlined in the
 *   loop, over the ASCII bytes of `flagKey:userKey` read with `charCodeAt`, allocating nothing.
 *
 * Each pass is 1,000,000 calls; ns/call is the process's CPU time per call (wall time is in
 * the JSON too). Per round, the median of a few alternating passes of each; the figure is the
 * median over rounds of the per-round ratio SDK/floor. The SDK and its floor must answer `true`
 * the same number of times (which checks the bench's murmur3 against the SDK's).
 *
 * Garbage per call: a second process with `--expose-gc` and a 64 MB young generation
 * (`--min/max-semi-space-size`), so that no scavenge runs during a pass; `heapUsed` after a
 * pass minus before it (after `gc()`), minus an empty control, over 1,000,000 calls (the least
 * of 3 samples); the GC events observed during the passes (`PerformanceObserver`, `gc`) are
 * counted and must be 0, else the figure is void.
 *
 * Settings: FLAGWIRE_BENCH_EVAL_ROUNDS (7), FLAGWIRE_BENCH_EVAL_PASSES (3),
 * FLAGWIRE_BENCH_EVAL_USERS (1000000). FLAGWIRE_BENCH_CPU_PROF=DIR also writes a CPU profile of
 * a third process that runs only the SDK loops (summarize with `bench/profile-summary.mjs`).
 * The build under test: FLAGWIRE_DIST (see `sdk-lib/dist.mjs`).
 */
import { join, resolve } from 'node:path';
import { BENCH_DIR, spawnNode, table, verdict } from './lib/util.mjs';
import { distModules, ensureDependencies } from './sdk-lib/dist.mjs';

export const name = 'sdk-evaluate';

const TARGET_ROLLOUT_RATIO = 1.3;
const TARGET_BOOLEAN_RATIO = 2;
/** "About zero": below this many bytes per call (a 16-byte object every 320 calls). */
const TARGET_BYTES_PER_CALL = 0.05;
const CHILD = join(BENCH_DIR, 'sdk-lib', 'evaluate-child.mjs');

function settings() {
  const env = process.env;
  return {
    rounds: Number(env.FLAGWIRE_BENCH_EVAL_ROUNDS ?? 7),
    passes: Number(env.FLAGWIRE_BENCH_EVAL_PASSES ?? 3),
    users: Number(env.FLAGWIRE_BENCH_EVAL_USERS ?? 1_000_000),
    warmupPasses: 3,
    garbageSamples: 3,
    semiSpaceMb: 64,
  };
}

/** Runs the child in `mode` and resolves the JSON it prints. */
async function runChild(mode, config, execArgv = []) {
  const { child, exited } = spawnNode(CHILD, [mode, JSON.stringify(config)], { execArgv, ipc: false });
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    out += chunk;
  });
  const { code, signal } = await exited;
  if (code !== 0)
    throw new Error(
      `sdk-evaluate ${mode} child exited with code ${code} signal ${signal}: ${out.slice(0, 500)}`,
    );
  return JSON.parse(out);
}

const ns = (n) => (Number.isFinite(n) ? `${n.toFixed(1)} ns` : '-');
const x = (r) => (Number.isFinite(r) ? `${r.toFixed(2)}x` : '-');
/** Bytes per call; within +-0.005 of 0 (the control's jitter over 1M calls) shows as 0. */
const bytes = (b) => (Number.isFinite(b) ? `${Math.abs(b) < 0.005 ? '0.00' : b.toFixed(2)} B` : '-');

export async function run({ log = console.log } = {}) {
  const s = settings();
  const dist = distModules();
  ensureDependencies(dist.dir);
  log(
    `  SDK ${dist.sdk.path}; ${s.users.toLocaleString('en-US')} users x 2 key sets; ` +
      `${s.rounds} rounds x ${s.passes} alternating passes of ${s.users.toLocaleString('en-US')} calls`,
  );
  const common = { sdkUrl: dist.sdk.url, users: s.users, warmupPasses: s.warmupPasses };

  const timing = await runChild('timing', { ...common, rounds: s.rounds, passes: s.passes });
  const garbage = await runChild('garbage', { ...common, samples: s.garbageSamples }, [
    '--expose-gc',
    `--min-semi-space-size=${s.semiSpaceMb}`,
    `--max-semi-space-size=${s.semiSpaceMb}`,
  ]);

  let profile;
  const profDir = process.env.FLAGWIRE_BENCH_CPU_PROF;
  if (profDir) {
    const file = `sdk-evaluate-${Date.now()}.cpuprofile`;
    const figures = await runChild('profile', { ...common, seconds: 3 }, [
      '--cpu-prof',
      `--cpu-prof-dir=${resolve(profDir)}`,
      `--cpu-prof-name=${file}`,
    ]);
    profile = { file: join(resolve(profDir), file), figures };
    log(`  CPU profile of the SDK loops: ${profile.file}`);
  }

  const rows = [];
  const cases = timing.cases.map((t) => {
    const g = garbage.cases.find((c) => c.id === t.id);
    const rollout = t.id.startsWith('rollout');
    const target = rollout ? TARGET_ROLLOUT_RATIO : TARGET_BOOLEAN_RATIO;
    const ratioMet = t.ratioMedian <= target;
    const gcClean = g.sdkGcEvents === 0 && g.floorGcEvents === 0;
    const bytesMet = gcClean && g.sdkBytesPerCall <= TARGET_BYTES_PER_CALL;
    rows.push({
      what: `isEnabled, ${t.flag}, keys ${t.keys}`,
      floor: t.floor,
      sdk: ns(t.sdkNsMedian),
      floorNs: ns(t.floorNsMedian),
      ratio: x(t.ratioMedian),
      wall: x(t.wallRatioMedian),
      target: `<= ${target}x`,
      verdict: verdict(ratioMet),
      bytes: `${bytes(g.sdkBytesPerCall)} / ${bytes(g.floorBytesPerCall)}${gcClean ? '' : ' (GC ran!)'}`,
      bytesVerdict: verdict(bytesMet),
    });
    return {
      ...t,
      target: { ratioAtMost: target, met: ratioMet },
      garbage: {
        sdkBytesPerCall: g.sdkBytesPerCall,
        floorBytesPerCall: g.floorBytesPerCall,
        sdkGcEvents: g.sdkGcEvents,
        floorGcEvents: g.floorGcEvents,
        target: { bytesPerCallAtMost: TARGET_BYTES_PER_CALL, met: bytesMet },
      },
    };
  });

  const result = {
    settings: { ...s, sdk: dist.sdk.path },
    node: timing.node,
    cases,
    garbageControlBytes: garbage.controlBytes,
    profile,
    target: {
      rolloutRatioAtMost: TARGET_ROLLOUT_RATIO,
      booleanRatioAtMost: TARGET_BOOLEAN_RATIO,
      bytesPerCallAtMost: TARGET_BYTES_PER_CALL,
      met: cases.every((c) => c.target.met && c.garbage.target.met),
    },
  };
  const text = table(rows, [
    { key: 'what', title: 'sdk-evaluate', align: 'left' },
    { key: 'floor', title: 'floor', align: 'left' },
    { key: 'sdk', title: 'SDK CPU/call' },
    { key: 'floorNs', title: 'floor CPU/call' },
    { key: 'ratio', title: 'SDK/floor' },
    { key: 'wall', title: '(wall)' },
    { key: 'target', title: 'target' },
    { key: 'verdict', title: '' },
    { key: 'bytes', title: 'garbage/call SDK / floor' },
    { key: 'bytesVerdict', title: '~0 B' },
  ]);
  return { result, text };
}
