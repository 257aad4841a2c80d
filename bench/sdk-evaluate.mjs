/** Benchmark `sdk-evaluate` (`lib/evaluate-child.mjs`): `isEnabled` against floors; usage on against off. */
import { dist, fmt, garbageArgv, knobs, median, runJson, table, verdict } from './lib/util.mjs';

const TARGET_ROLLOUT_RATIO = 1.3;
const TARGET_BOOLEAN_RATIO = 2;
/** Usage counting on against off: at most this many ns more per call (median per round). */
const TARGET_USAGE_NS = 5;
/** "About zero": below this many bytes per call (a 16-byte object every 320 calls). */
const TARGET_BYTES_PER_CALL = 0.05;
const SEMI_SPACE_MB = 64;
export async function run({ log }) {
  const knobbed = knobs('EVAL_', { rounds: 7, passes: 3, users: 1_000_000 });
  const s = { ...knobbed, warmupPasses: 3, garbageSamples: 3 };
  const sdk = dist().url('index.js');
  log(`  SDK ${sdk}; ${fmt.int(s.users)} users x 2 key sets; ${s.rounds} rounds x ${s.passes} passes`);
  const config = JSON.stringify({ sdkUrl: sdk, ...s });
  const timing = await runJson('lib/evaluate-child.mjs', ['timing', config]);
  const execArgv = garbageArgv(SEMI_SPACE_MB);
  const garbage = await runJson('lib/evaluate-child.mjs', ['garbage', config], { execArgv });

  const rows = [];
  const cases = timing.cases.map((t) => {
    const { sdk: gs, floor: gf } = garbage.cases.find((c) => c.id === t.id);
    const usage = t.id.endsWith('/usage-on');
    const target = t.id.startsWith('rollout') ? TARGET_ROLLOUT_RATIO : TARGET_BOOLEAN_RATIO;
    // Usage cases: the median over rounds of (on - off) ns per call.
    const extraNs = median(t.nsPerRound.map((ns, i) => ns - t.baseNsPerRound[i]));
    const ratioMet = usage ? extraNs <= TARGET_USAGE_NS : t.ratioMedian <= target;
    const gcClean = gs.gcs === 0 && gf.gcs === 0;
    const bytesMet = gcClean && gs.perUnit <= TARGET_BYTES_PER_CALL;
    const goalText = usage ? `+${extraNs.toFixed(1)} ns <= +${TARGET_USAGE_NS} ns` : `<= ${target}x`;
    const bytes = `${fmt.bytes(gs.perUnit)} / ${fmt.bytes(gf.perUnit)}${gcClean ? '' : ' (GC ran!)'}`;
    const cpu = [fmt.ns(t.nsMedian), fmt.ns(t.baseNsMedian), fmt.x(t.ratioMedian), fmt.x(t.wallRatioMedian)];
    const label = `isEnabled, ${t.flag}, keys ${t.keys}${usage ? ', usage on' : ''}`;
    rows.push([label, t.floor, ...cpu, `${goalText}: ${verdict(ratioMet)}`, bytes, verdict(bytesMet)]);
    const goal = usage ? { extraNsAtMost: TARGET_USAGE_NS, extraNs } : { ratioAtMost: target };
    return { ...t, target: { ...goal, met: ratioMet }, garbage: { sdk: gs, floor: gf, bytesMet } };
  });
  const met = cases.every((c) => c.target.met && c.garbage.bytesMet);
  const settings = { ...s, semiSpaceMb: SEMI_SPACE_MB, sdk };
  const result = { settings, cases, garbageControlBytes: garbage.controlBytes, met };
  const header =
    'sdk-evaluate|floor|SDK CPU/call|floor CPU/call|SDK/floor|(wall)|target|garbage/call SDK / floor|~0 B';
  return { result, text: table(header, rows) };
}
