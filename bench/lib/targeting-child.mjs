/**
 * The measuring process of `targeting` (bench/README.md), one per implementation and mode, so
 * that no implementation's JIT feedback reaches another's:
 * `node [--expose-gc ...] bench/lib/targeting-child.mjs timing|garbage CONFIG_JSON` prints one JSON
 * object (progress on stderr). CONFIG: `{ impl: 'flagwire' | 'growthbook' | 'unleash', sdkUrl (the
 * build's testing.js), users, rounds, passes, passMs, ... }` (`targeting.mjs`). `timing`: CPU ns
 * per evaluation of every case, each pass alternating with the baseline, Flagwire's plain rollout
 * through the built SDK, in every process; `garbage`: bytes allocated per evaluation. All cases of
 * an implementation run in one process (an application evaluates all kinds of flags through one
 * client); every answer is checked before any measurement.
 */
import { performance } from 'node:perf_hooks';
import { err, garbageMeter, pairedRounds, pass } from './measure.mjs';
import {
  attributesOf,
  CASES,
  flagwire,
  OUTSIDER,
  rolloutIn,
  SEGMENT_STRIDE,
  segmentMembers,
  splitVariant,
} from './targeting-cases.mjs';
import { growthbook, unleash } from './targeting-peers.mjs';

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
 * Checks every answer before measuring (a wrong answer is a failed run). Flagwire's rollout and
 * split: each user's exact variant (by the contract's formulas). The peers' rollout and split
 * (their own hashing): shares within 4 standard errors of the weights. Rules: every user (the
 * first `checkUsers` for the peers: their slow cases), and the outsider, who every rule must refuse.
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
      throw new Error(
        `${impl.name} ${c.id}: user ${a.key} got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`,
      );
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

/** `run(n)` evaluates the next `n` users of `users`, from where the last call ended. */
function subject(evaluate, users) {
  let cursor = 0;
  return {
    run(n) {
      const hits = evaluate(users, cursor, n);
      cursor = (cursor + n) % users.length;
      return hits;
    },
  };
}

const cases = CASES.map((c) => {
  const cs = impl.cases[c.id];
  const checked = check(c, cs);
  return {
    id: c.id,
    label: c.label,
    note: cs.note,
    checked,
    ...subject(cs.run, byRole(nativeUsers, c.users)),
  };
});
const base = {
  id: 'baseline',
  ...subject(baseline.cases.rollout.run, impl === baseline ? nativeUsers : attributes),
};
err(`  targeting ${mode} ${config.impl}: answers checked`);

/** Evaluations in a pass of about `ms` (wall time), from passes of growing size. */
function passSize(c, ms) {
  for (let n = 4; ; n *= 4) {
    const took = (pass(c.run, n).wallNs * n) / 1e6;
    if (took >= ms / 4 || n >= 1 << 26) return Math.max(1, Math.round((n * ms) / Math.max(took, 1e-3)));
  }
}

function warmUp(ms) {
  for (const c of [base, ...cases]) c.n = passSize(c, ms);
  for (let p = 0; p < config.warmupPasses; p++) for (const c of [base, ...cases]) pass(c.run, c.n);
  for (const c of [base, ...cases]) c.n = passSize(c, ms);
}

function timing() {
  const { rounds, passes, passMs } = config;
  const t0 = performance.now();
  warmUp(passMs);
  err(`  targeting timing ${config.impl}: warmed up in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const per = new Map(cases.map((c) => [c, pairedRounds()]));
  for (let r = 0; r < rounds; r++) {
    const line = cases.map((_, k) => {
      const c = cases[(k + r) % cases.length];
      const { ns, baseNs } = per.get(c).round(c, base, passes, r);
      return `${c.id} ${ns.toFixed(0)}/${baseNs.toFixed(0)}`;
    });
    err(`  round ${r + 1}/${rounds} (CPU ns/eval, case/baseline): ${line.join(', ')}`);
  }
  return cases.map((c) => {
    const { id, label, note, checked, n } = c;
    return { id, label, note, checked, evalsPerPass: n, ...per.get(c).summary() };
  });
}

async function garbage() {
  const { garbageSamples, budgetBytes, maxEvals, garbagePassMs } = config;
  warmUp(garbagePassMs);
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
    err(`  ${c.id}: ${m.perUnit.toFixed(3)} B/eval over ${n} evaluations (${m.gcs} GCs)`);
    out.push({ id: c.id, evals: n, ...m });
  }
  meter.stop();
  return { controlBytes: meter.control, cases: out };
}

const result = mode === 'timing' ? { cases: timing() } : mode === 'garbage' ? await garbage() : undefined;
if (!result) throw new Error(`unknown mode ${mode}`);
const { name, version, api } = impl;
const meta = {
  mode,
  impl: config.impl,
  name,
  version,
  api,
  node: process.version,
  execArgv: process.execArgv,
};
process.stdout.write(JSON.stringify({ ...meta, ...result }));
