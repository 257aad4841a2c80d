/**
 * Benchmark: targeting (issue 21), the built SDK's client (`createTestClient` of `testing.js`,
 * the real client offline) against GrowthBook's and Unleash's SDKs on the same rules and users,
 * in CPU ns and bytes allocated per evaluation (cases, forms and checks: bench/README.md). The
 * baseline, in every process: a plain 50 % rollout through the built client, `isEnabled('roll',
 * user)`, alternating with every case; a figure is the median over rounds of the per-round ratio
 * case/baseline, a peer against Flagwire its ratio over Flagwire's. One process per
 * implementation and mode (`lib/targeting-child.mjs`), `NODE_ENV=production`; garbage with
 * `--expose-gc` and a 64 MB young generation (a GC inside a pass voids the figure).
 *
 * Run: `npm run build`, then `node bench/run.mjs targeting` or `node bench/targeting.mjs`
 * (`FLAGWIRE_DIST` for another build). Settings: FLAGWIRE_BENCH_TARGETING_ROUNDS (5), _PASSES (3
 * per side per round), _PASS_MS (50), _USERS (100000).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCH_DIR, cleanUp, dist, fmt, knob, runJson, table, verdict } from './lib/util.mjs';

const CHILD = join(BENCH_DIR, 'lib', 'targeting-child.mjs');
const IMPLEMENTATIONS = ['flagwire', 'growthbook', 'unleash'];
const PEERS = IMPLEMENTATIONS.slice(1);
/** The aims. */
const TARGET_RULE_10_RATIO = 2;
/** "About zero": below this many bytes per evaluation (as `sdk-evaluate`). */
const TARGET_BYTES_PER_EVAL = 0.05;
const SEMI_SPACE_MB = 64;

export async function run({ log }) {
  const s = {
    users: knob('FLAGWIRE_BENCH_TARGETING_USERS', 100_000),
    rounds: knob('FLAGWIRE_BENCH_TARGETING_ROUNDS', 5),
    passes: knob('FLAGWIRE_BENCH_TARGETING_PASSES', 3),
    passMs: knob('FLAGWIRE_BENCH_TARGETING_PASS_MS', 50),
    warmupPasses: 3,
    checkUsers: 2000,
    garbageSamples: 3,
    garbagePassMs: 300,
    maxEvals: 1_000_000,
    budgetBytes: (SEMI_SPACE_MB << 20) / 4,
  };
  const sdk = dist().path('testing.js');
  if (!existsSync(sdk)) throw new Error(`${sdk} not found: run \`npm run build\` or set FLAGWIRE_DIST`);
  const config = { ...s, sdkUrl: dist().url('testing.js') };
  const env = { NODE_ENV: 'production' };
  const semi = [`--min-semi-space-size=${SEMI_SPACE_MB}`, `--max-semi-space-size=${SEMI_SPACE_MB}`];
  log(
    `  SDK ${sdk}; ${fmt.int(s.users)} users; ${s.rounds} rounds x ${s.passes} alternating passes of ~${s.passMs} ms; one process per SDK and mode`,
  );

  const got = {};
  for (const impl of IMPLEMENTATIONS) {
    const args = (mode) => [mode, JSON.stringify({ ...config, impl })];
    const timing = await runJson(CHILD, args('timing'), { env });
    const garbage = await runJson(CHILD, args('garbage'), { env, execArgv: ['--expose-gc', ...semi] });
    got[impl] = { name: timing.name, version: timing.version, api: timing.api, timing, garbage };
    log(`  ${timing.name} ${timing.version}: measured`);
  }

  // ---- merge: per case, per implementation (the child's figures); a peer against Flagwire
  const cases = got.flagwire.timing.cases.map(({ id, label }) => {
    const row = { id, label };
    for (const impl of IMPLEMENTATIONS) {
      const g = got[impl].garbage.cases.find((c) => c.id === id);
      const t = got[impl].timing.cases.find((c) => c.id === id);
      row[impl] = { ...t, bytesPerEval: g.gcs === 0 ? g.perUnit : Number.NaN, garbage: g };
    }
    for (const peer of PEERS) row[peer].timesFlagwire = row[peer].ratioMedian / row.flagwire.ratioMedian;
    return row;
  });

  // ---- verdicts, computed from this run
  const rule10 = cases.find((c) => c.id === 'rule-10').flagwire.ratioMedian;
  const behind = cases.flatMap((c) =>
    PEERS.filter((peer) => !(c[peer].timesFlagwire > 1)).map((peer) => `${c.id} vs ${got[peer].name}`),
  );
  const allocating = cases
    .filter((c) => !(c.flagwire.bytesPerEval <= TARGET_BYTES_PER_EVAL))
    .map((c) => `${c.id} ${fmt.bytes(c.flagwire.bytesPerEval)}`);
  const verdicts = {
    rule10Within2x: { ratio: rule10, target: TARGET_RULE_10_RATIO, met: rule10 <= TARGET_RULE_10_RATIO },
    aheadOfEveryPeer: { behind, met: behind.length === 0 },
    zeroBytes: { allocating, met: allocating.length === 0 },
  };

  // ---- text
  const timeRows = cases.map((c) => [
    c.label,
    fmt.ns(c.flagwire.nsMedian),
    fmt.x(c.flagwire.ratioMedian),
    ...PEERS.flatMap((peer) => [fmt.ns(c[peer].nsMedian), fmt.x(c[peer].timesFlagwire, 1)]),
  ]);
  const gcNote = (x) => (x.garbage.gcs ? ' (GC ran!)' : '');
  const garbageRows = cases.map((c) => [
    c.label,
    ...IMPLEMENTATIONS.map((impl) => `${fmt.bytes(c[impl].bytesPerEval)}${gcNote(c[impl])}`),
  ]);
  const names = IMPLEMENTATIONS.map((impl) => `${got[impl].name} ${got[impl].version}`);
  const list = (what, items) => (items.length ? ` (${what}: ${items.join(', ')})` : '');
  const text = [
    table(
      `targeting: CPU per evaluation|${names[0]}|x plain rollout|${names[1]}|x Flagwire|${names[2]}|x Flagwire`,
      timeRows,
    ),
    table(['targeting: bytes allocated per evaluation', ...names], garbageRows),
    [
      `  10-clause rule within ${TARGET_RULE_10_RATIO}x of plain rollout: ${fmt.x(rule10)}: ${verdict(verdicts.rule10Within2x.met)}`,
      `  ahead of every peer on every case: ${verdict(verdicts.aheadOfEveryPeer.met)}${list('behind', behind)}`,
      `  0 bytes allocated per evaluation: ${verdict(verdicts.zeroBytes.met)}${list('allocating', allocating)}`,
    ].join('\n'),
  ].join('\n\n');
  const implementations = Object.entries(got).map(([impl, { name, version, api, garbage }]) => {
    return [impl, { name, version, api, controlBytes: garbage.controlBytes }];
  });
  const met = Object.values(verdicts).every((v) => v.met);
  const result = {
    settings: { ...s, sdk },
    implementations: Object.fromEntries(implementations),
    cases,
    verdicts,
    met,
  };
  return { result, text };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    console.log((await run({ log: console.log })).text);
  } finally {
    await cleanUp();
  }
}
