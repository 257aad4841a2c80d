/**
 * Benchmark: targeting (issue 21), the built SDK's client against GrowthBook's and Unleash's
 * SDKs on the same rules, in ns per evaluation and bytes allocated per evaluation.
 *
 * Baseline: a plain rollout through the built SDK, `createTestClient` of `testing.js` (the real
 * client, offline) given `{ key: 'roll', type: 'rollout', enabled: true, percentage: 50 }`, then
 * `client.isEnabled('roll', user)`. Every case's pass alternates with a baseline pass in the same
 * process (in the peers' processes too), and the figure is the median over rounds of the
 * per-round ratio case/baseline; a peer against Flagwire is its ratio over Flagwire's (each
 * against the baseline of its own process).
 *
 * Cases (100,000 users `user-<n>` with 8 attributes, made up front in each SDK's own form):
 * a plain rollout of 50 %; a rule of 1 clause (`in`), of 10 and of 100 clauses (in, not in,
 * startsWith, endsWith, contains, numbers, semver; every clause holds for every user, so every
 * clause is evaluated); a segment of 10,000 keys (`inSegment`), the user in it and not; a
 * `matches` clause (an e-mail domain pattern); a split of the fallthrough over 3 variants.
 * Flagwire: the same test client holds every case's flag (management representation) and the
 * segment; `client.getString(key, user, 'DEFAULT')`. GrowthBook: `GrowthBookClient`
 * `isOn(key, { attributes })` (its multi-user server API; the cheapest that evaluates a feature
 * for a user), one rule with a `condition`; segments by `$inGroup` on a saved group. Unleash:
 * `Unleash` offline (bootstrap, `refreshInterval: 0`, metrics off) `isEnabled(name, context)`, a
 * `default` strategy with one constraint per clause; segments as an `IN` constraint of 10,000
 * values. Details: bench/README.md and lib/targeting-child.mjs, which checks every answer first.
 *
 * Each implementation runs in its own process (`lib/targeting-child.mjs`), all its cases in one
 * process (an application evaluates all kinds of flags through one client), with
 * `NODE_ENV=production`; garbage in a second process with `--expose-gc` and a 64 MB young
 * generation: `heapUsed` after a pass minus before it (after `gc()`), minus an empty control; no
 * GC may fall inside a pass (else the figure is void).
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

const ns = (n) => {
  if (!Number.isFinite(n)) return '-';
  return n < 1000
    ? `${n.toFixed(1)} ns`
    : n < 1e6
      ? `${(n / 1000).toFixed(2)} us`
      : `${(n / 1e6).toFixed(2)} ms`;
};
/** Bytes per evaluation; within +-0.005 of 0 (the control's jitter) shows as 0. */
const bytes = (b) => {
  if (!Number.isFinite(b)) return '-';
  if (Math.abs(b) < 0.005) return '0.00 B';
  return Math.abs(b) < 100 ? `${b.toFixed(2)} B` : `${fmt.int(b)} B`;
};

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

  // ---- merge: per case, per implementation
  const caseIds = got.flagwire.timing.cases.map((c) => c.id);
  const cases = caseIds.map((id) => {
    const row = { id, label: got.flagwire.timing.cases.find((c) => c.id === id).label };
    for (const impl of IMPLEMENTATIONS) {
      const t = got[impl].timing.cases.find((c) => c.id === id);
      const g = got[impl].garbage.cases.find((c) => c.id === id);
      if (t.na) {
        row[impl] = { na: t.na };
        continue;
      }
      const gcClean = g.gcEvents === 0;
      row[impl] = {
        note: t.note,
        nsPerEval: t.nsMedian,
        wallNsPerEval: t.wallNsMedian,
        baselineNsPerEval: t.baselineNsMedian,
        ratioToBaseline: t.ratioMedian,
        wallRatioToBaseline: t.wallRatioMedian,
        ratios: t.ratios,
        checked: t.checked,
        bytesPerEval: gcClean ? g.bytesPerEval : Number.NaN,
        garbage: g,
      };
    }
    for (const peer of PEERS) {
      const p = row[peer];
      if (!p.na && !row.flagwire.na) p.timesFlagwire = p.ratioToBaseline / row.flagwire.ratioToBaseline;
    }
    return row;
  });

  // ---- verdicts, computed from this run
  const byId = Object.fromEntries(cases.map((c) => [c.id, c]));
  const rule10 = byId['rule-10'].flagwire.ratioToBaseline;
  const behind = [];
  for (const c of cases)
    for (const peer of PEERS)
      if (!c[peer].na && !(c[peer].timesFlagwire > 1)) behind.push(`${c.id} vs ${got[peer].name}`);
  const allocating = cases
    .filter((c) => !(c.flagwire.bytesPerEval <= TARGET_BYTES_PER_EVAL))
    .map((c) => `${c.id} ${bytes(c.flagwire.bytesPerEval)}`);
  const verdicts = {
    rule10Within2x: { ratio: rule10, target: TARGET_RULE_10_RATIO, met: rule10 <= TARGET_RULE_10_RATIO },
    aheadOfEveryPeer: { behind, met: behind.length === 0 },
    zeroBytes: { allocating, met: allocating.length === 0 },
  };

  // ---- text
  const timeRows = cases.map((c) => {
    const cells = [c.label, ns(c.flagwire.nsPerEval), fmt.x(c.flagwire.ratioToBaseline)];
    for (const peer of PEERS)
      cells.push(...(c[peer].na ? ['n/a', ''] : [ns(c[peer].nsPerEval), fmt.x(c[peer].timesFlagwire, 1)]));
    return cells;
  });
  const garbageRows = cases.map((c) => [
    c.label,
    ...IMPLEMENTATIONS.map((impl) =>
      c[impl].na ? 'n/a' : `${bytes(c[impl].bytesPerEval)}${c[impl].garbage.gcEvents ? ' (GC ran!)' : ''}`,
    ),
  ]);
  const names = IMPLEMENTATIONS.map((impl) => `${got[impl].name} ${got[impl].version}`);
  const nas = cases.flatMap((c) =>
    PEERS.filter((p) => c[p].na).map((p) => `${c.id} (${got[p].name}): ${c[p].na}`),
  );
  const text = [
    table(
      [
        'targeting: CPU per evaluation',
        names[0],
        'x plain rollout',
        names[1],
        'x Flagwire',
        names[2],
        'x Flagwire',
      ],
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
      IMPLEMENTATIONS.map((impl) => [
        impl,
        {
          name: got[impl].name,
          version: got[impl].version,
          api: got[impl].api,
          controlBytes: got[impl].garbage.controlBytes,
        },
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
