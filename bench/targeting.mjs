/** Benchmark `targeting`: the built client, GrowthBook and Unleash, each against Flagwire's plain rollout. */
import { existsSync } from 'node:fs';
import { dist, fmt, garbageArgv, knobs, runJson, table, verdict } from './lib/util.mjs';

const IMPLEMENTATIONS = ['flagwire', 'growthbook', 'unleash'];
const PEERS = IMPLEMENTATIONS.slice(1);
const TARGET_RULE_10_RATIO = 2;
/** "About zero": below this many bytes per evaluation (as `sdk-evaluate`). */
const TARGET_BYTES_PER_EVAL = 0.05;
const SEMI_SPACE_MB = 64;
export async function run({ log }) {
  const fixed = { warmupPasses: 3, checkUsers: 2000, garbageSamples: 3, garbagePassMs: 300 };
  const knobbed = knobs('TARGETING_', { users: 100_000, rounds: 5, passes: 3, passMs: 50 });
  const s = { ...knobbed, ...fixed, maxEvals: 1_000_000, budgetBytes: (SEMI_SPACE_MB << 20) / 4 };
  const sdk = dist().path('testing.js');
  if (!existsSync(sdk)) throw new Error(`${sdk} not found: run \`npm run build\` or set FLAGWIRE_DIST`);
  const env = { NODE_ENV: 'production' };
  log(`  SDK ${sdk}; ${fmt.int(s.users)} users; ${s.rounds} rounds x ${s.passes} passes of ~${s.passMs} ms`);

  const got = {};
  for (const impl of IMPLEMENTATIONS) {
    const args = (mode) => [mode, JSON.stringify({ ...s, sdkUrl: dist().url('testing.js'), impl })];
    const timing = await runJson('lib/targeting-child.mjs', args('timing'), { env });
    const execArgv = garbageArgv(SEMI_SPACE_MB);
    const garbage = await runJson('lib/targeting-child.mjs', args('garbage'), { env, execArgv });
    got[impl] = { name: timing.name, version: timing.version, api: timing.api, timing, garbage };
    log(`  ${timing.name} ${timing.version}: measured`);
  }

  // Per case, per implementation; a peer against Flagwire.
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

  const ours = (c) => [fmt.ns(c.flagwire.nsMedian), fmt.x(c.flagwire.ratioMedian)];
  const ofPeers = (c) => PEERS.flatMap((p) => [fmt.ns(c[p].nsMedian), fmt.x(c[p].timesFlagwire, 1)]);
  const timeRows = cases.map((c) => [c.label, ...ours(c), ...ofPeers(c)]);
  const bytes = (x) => `${fmt.bytes(x.bytesPerEval)}${x.garbage.gcs ? ' (GC ran!)' : ''}`;
  const garbageRows = cases.map((c) => [c.label, ...IMPLEMENTATIONS.map((impl) => bytes(c[impl]))]);
  const names = IMPLEMENTATIONS.map((impl) => `${got[impl].name} ${got[impl].version}`);
  const list = (what, items) => (items.length ? ` (${what}: ${items.join(', ')})` : '');
  const text = [
    table(
      `targeting: CPU per evaluation|${names[0]}|x plain rollout|${names[1]}|x Flagwire|${names[2]}|x Flagwire`,
      timeRows,
    ),
    table(['targeting: bytes allocated per evaluation', ...names].join('|'), garbageRows),
    [
      `  10-clause rule within ${TARGET_RULE_10_RATIO}x of plain rollout: ${fmt.x(rule10)}: ${verdict(verdicts.rule10Within2x.met)}`,
      `  ahead of every peer on every case: ${verdict(verdicts.aheadOfEveryPeer.met)}${list('behind', behind)}`,
      `  0 bytes allocated per evaluation: ${verdict(verdicts.zeroBytes.met)}${list('allocating', allocating)}`,
    ].join('\n'),
  ].join('\n\n');
  const implementations = {};
  for (const [impl, { name, version, api, garbage }] of Object.entries(got))
    implementations[impl] = { name, version, api, controlBytes: garbage.controlBytes };
  const met = Object.values(verdicts).every((v) => v.met);
  return { result: { settings: { ...s, sdk }, implementations, cases, verdicts, met }, text };
}
