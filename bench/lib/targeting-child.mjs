/** The measuring process of `targeting`, one per implementation and mode (no JIT feedback crosses). */
import { err, garbageMeter, printResult, subject, timeRounds, warmUp } from './measure.mjs';
import * as targeting from './targeting-cases.mjs';
import { growthbook, unleash } from './targeting-peers.mjs';

const { attributesOf, CASES, flagwire, OUTSIDER, rolloutIn, SEGMENT_STRIDE, segmentMembers, splitVariant } =
  targeting;
const [mode, configJson] = process.argv.slice(2);
const config = JSON.parse(configJson);
const { createTestClient } = await import(config.sdkUrl);
const IMPLEMENTATIONS = { flagwire: (m) => flagwire(createTestClient, m), growthbook, unleash };
if (!IMPLEMENTATIONS[config.impl]) throw new Error(`unknown implementation ${config.impl}`);
err(`  targeting ${mode} ${config.impl}: ${config.users.toLocaleString('en-US')} users...`);
const members = segmentMembers(config.users);
const impl = await IMPLEMENTATIONS[config.impl](members);
const baseline = config.impl === 'flagwire' ? impl : flagwire(createTestClient, members);
const attributes = Array.from({ length: config.users }, (_, i) => attributesOf(i));
const nativeUsers = attributes.map(impl.userOf);
const byRole = (users, role) =>
  role === undefined ? users : users.filter((_, i) => (i % SEGMENT_STRIDE === 0) === (role === 'members'));
/**
 * Checks every answer first: Flagwire's rollout and split user by user (the contract's formulas), the
 * peers' shares within 4 standard errors; rules for every user (peers: `checkUsers`) and the outsider.
 */
function check(c, cs) {
  const all = byRole(attributes, c.users);
  const sample = impl === baseline || typeof c.want === 'string' ? all : all.slice(0, config.checkUsers);
  const counts = new Map();
  for (const a of sample) {
    const got = cs.answer(impl.userOf(a));
    counts.set(got, (counts.get(got) ?? 0) + 1);
    let want = c.want;
    if (want === 'rollout') want = impl === baseline ? rolloutIn('roll', a.key) : undefined;
    else if (want === 'split') want = impl === baseline ? splitVariant('bench.split-3', a.key) : undefined;
    if (want !== undefined && got !== want)
      throw new Error(`${impl.name} ${c.id}: ${a.key} got ${got}, not ${want}`);
  }
  const share = (v) => (counts.get(v) ?? 0) / sample.length;
  const near = (v, w) => Math.abs(share(v) - w) <= 4 * Math.sqrt((w * (1 - w)) / sample.length);
  if (c.want === 'rollout' && !near(true, 0.5)) throw new Error(`${impl.name} rollout: ${share(true)} in`);
  if (c.want === 'split' && !['a', 'b', 'c'].every((v) => near(v, 1 / 3)))
    throw new Error(`${impl.name} split: ${JSON.stringify([...counts])}`);
  if (c.clauses && cs.answer(impl.userOf(OUTSIDER)) !== false)
    throw new Error(`${impl.name} ${c.id}: the outsider got ${cs.answer(impl.userOf(OUTSIDER))}`);
  return { checkedUsers: sample.length, answers: Object.fromEntries(counts) };
}
const cases = CASES.map((c) => {
  const cs = impl.cases[c.id];
  const checked = check(c, cs);
  const users = byRole(nativeUsers, c.users);
  return { id: c.id, label: c.label, note: cs.note, checked, ...subject(cs.run, users) };
});
const baseUsers = impl === baseline ? nativeUsers : attributes;
const base = { id: 'baseline', ...subject(baseline.cases.rollout.run, baseUsers) };
err(`  targeting ${mode} ${config.impl}: answers checked`);
function timing() {
  warmUp([base, ...cases], config.passMs, config.warmupPasses, `targeting timing ${config.impl}`);
  const summary = timeRounds(cases, () => base, config);
  return cases.map((c) => {
    const { id, label, note, checked, n } = c;
    return { id, label, note, checked, evalsPerPass: n, ...summary(c) };
  });
}
async function garbage() {
  const { garbageSamples, budgetBytes, maxEvals, garbagePassMs } = config;
  warmUp([base, ...cases], garbagePassMs, config.warmupPasses, `targeting garbage ${config.impl}`);
  const meter = await garbageMeter(garbageSamples);
  const out = [];
  for (const c of [base, ...cases]) {
    // Probes size the passes: at most `maxEvals`, about `garbagePassMs`, and `budgetBytes` of
    // allocation (a quarter of the young generation) at the probes' rate; 16 evaluations, then
    // 1,024 unless those 16 allocated more than 64 KB (the control's jitter hides less in 1,024).
    let probe = Math.min(16, c.n);
    let probed = await meter.probe(c.run, probe);
    if (probed * 1024 < 4 << 20 && c.n > probe) {
      probe = Math.min(1024, c.n);
      probed = await meter.probe(c.run, probe);
    }
    let n = Math.max(1, Math.min(maxEvals, c.n, Math.floor(budgetBytes / Math.max(probed, 1e-9))));
    let m;
    for (let attempt = 0; ; attempt++, n = Math.max(1, Math.floor(n / 4))) {
      m = await meter.sample(c.run, n);
      if (m.gcs === 0 || attempt === 3 || n === 1) break;
    }
    out.push({ id: c.id, evals: n, ...m });
  }
  meter.stop();
  return { controlBytes: meter.control, cases: out };
}
const result = mode === 'timing' ? { cases: timing() } : await garbage();
const { name, version, api } = impl;
printResult({ mode, impl: config.impl, name, version, api, ...result });
