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
/** The issue's aims. */
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

  // ---- merge: per case, per implementation; a peer against Flagwire
  const cases = got.flagwire.timing.cases.map(({ id, label }) => {
    const row = { id, label };
    for (const impl of IMPLEMENTATIONS) {
      const t = got[impl].timing.cases.find((c) => c.id === id);
      const g = got[impl].garbage.cases.find((c) => c.id === id);
      row[impl] = t.na
        ? { na: t.na }
        : {
            note: t.note,
            nsPerEval: t.nsMedian,
            wallNsPerEval: t.wallNsMedian,
            baselineNsPerEval: t.baseNsMedian,
            ratioToBaseline: t.ratioMedian,
            wallRatioToBaseline: t.wallRatioMedian,
            ratios: t.ratios,
            checked: t.checked,
            bytesPerEval: g.gcs === 0 ? g.perUnit : Number.NaN,
            garbage: g,
          };
    }
    for (const p of PEERS.map((peer) => row[peer]))
      if (!p.na && !row.flagwire.na) p.timesFlagwire = p.ratioToBaseline / row.flagwire.ratioToBaseline;
    return row;
  });

  // ---- verdicts, computed from this run
  const rule10 = cases.find((c) => c.id === 'rule-10').flagwire.ratioToBaseline;
  const behind = [];
  for (const c of cases)
    for (const peer of PEERS)
      if (!c[peer].na && !(c[peer].timesFlagwire > 1)) behind.push(`${c.id} vs ${got[peer].name}`);
  const allocating = cases
    .filter((c) => !(c.flagwire.bytesPerEval <= TARGET_BYTES_PER_EVAL))
    .map((c) => `${c.id} ${fmt.bytes(c.flagwire.bytesPerEval)}`);
  const verdicts = {
    rule10Within2x: { ratio: rule10, target: TARGET_RULE_10_RATIO, met: rule10 <= TARGET_RULE_10_RATIO },
    aheadOfEveryPeer: { behind, met: behind.length === 0 },
    zeroBytes: { allocating, met: allocating.length === 0 },
  };

  // ---- text
  const timeRows = cases.map((c) => {
    const cells = [c.label, fmt.ns(c.flagwire.nsPerEval), fmt.x(c.flagwire.ratioToBaseline)];
    for (const p of PEERS.map((peer) => c[peer]))
      cells.push(...(p.na ? ['n/a', ''] : [fmt.ns(p.nsPerEval), fmt.x(p.timesFlagwire, 1)]));
    return cells;
  });
  const garbageRows = cases.map((c) => [
    c.label,
    ...IMPLEMENTATIONS.map((impl) =>
      c[impl].na ? 'n/a' : `${fmt.bytes(c[impl].bytesPerEval)}${c[impl].garbage.gcs ? ' (GC ran!)' : ''}`,
    ),
  ]);
  const names = IMPLEMENTATIONS.map((impl) => `${got[impl].name} ${got[impl].version}`);
  const nas = cases.flatMap((c) =>
    PEERS.filter((p) => c[p].na).map((p) => `${c.id} (${got[p].name}): ${c[p].na}`),
  );
  const text = [
    table(
      `targeting: CPU per evaluation|${names[0]}|x plain rollout|${names[1]}|x Flagwire|${names[2]}|x Flagwire`,
      timeRows,
    ),
    table(['targeting: bytes allocated per evaluation', ...names], garbageRows),
    [
      `  10-clause rule within ${TARGET_RULE_10_RATIO}x of plain rollout: ${fmt.x(rule10)}: ${verdict(verdicts.rule10Within2x.met)}`,
      `  ahead of every peer on every case: ${verdict(verdicts.aheadOfEveryPeer.met)}${behind.length ? ` (behind: ${behind.join(', ')})` : ''}`,
      `  0 bytes allocated per evaluation: ${verdict(verdicts.zeroBytes.met)}${allocating.length ? ` (allocating: ${allocating.join(', ')})` : ''}`,
      ...(nas.length ? [`  n/a: ${nas.join('; ')}`] : []),
    ].join('\n'),
  ].join('\n\n');
  const result = {
    settings: { ...s, sdk },
    implementations: Object.fromEntries(
      Object.entries(got).map(([impl, { name, version, api, garbage }]) => [
        impl,
        { name, version, api, controlBytes: garbage.controlBytes },
      ]),
    ),
    cases,
    verdicts,
    met: Object.values(verdicts).every((v) => v.met),
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
