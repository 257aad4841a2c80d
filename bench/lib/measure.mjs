/** In-process measurement, for the measuring children of `sdk-evaluate`, `targeting` and `cost`. */
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { median, rotated, sleep } from './util.mjs';

/** A flat (sequential), non-internalized one-byte copy of an ASCII string, as one parsed from a request. */
export const flat = (s) => Buffer.from(s, 'latin1').toString('latin1');
export const err = (line) => process.stderr.write(`${line}\n`);
/**
 * Runs `run(n)` once: CPU ns (user + system: not the time the process waited for a core; after the
 * warm-up no other thread adds any) and wall ns per unit of `n`; `hits`, what `run` answered.
 */
export function pass(run, n) {
  const u0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const hits = run(n);
  const t1 = process.hrtime.bigint();
  const u = process.cpuUsage(u0);
  return { ns: ((u.user + u.system) * 1000) / n, wallNs: Number(t1 - t0) / n, hits };
}
/**
 * `rounds` rounds of every case (`{ id, run(n), n }`) against `baseOf(case)`, the order rotating
 * unless `rotate` is false: in a round, `passes` passes of each side, alternating which goes first.
 * Answers `summary(case)`: medians over rounds of the rounds' medians, and of the ratios.
 */
export function timeRounds(cases, baseOf, { rounds, passes, rotate = true }) {
  const per = new Map(cases.map((c) => [c, { ns: [], wallNs: [], baseNs: [], baseWallNs: [] }]));
  for (let r = 0; r < rounds; r++) {
    for (const c of rotate ? rotated(cases, r) : cases) {
      const runs = { c: [], base: [] };
      for (let p = 0; p < passes; p++)
        for (const which of (r + p) % 2 === 0 ? ['c', 'base'] : ['base', 'c']) {
          const x = which === 'c' ? c : baseOf(c);
          runs[which].push(pass(x.run, x.n));
        }
      const s = per.get(c);
      const med = (which, k) => median(runs[which].map((x) => x[k]));
      s.ns.push(med('c', 'ns'));
      s.wallNs.push(med('c', 'wallNs'));
      s.baseNs.push(med('base', 'ns'));
      s.baseWallNs.push(med('base', 'wallNs'));
    }
    err(`  round ${r + 1}/${rounds} done`);
  }
  return (c) => {
    const s = per.get(c);
    const ratios = s.ns.map((x, i) => x / s.baseNs[i]);
    return {
      nsPerRound: s.ns,
      baseNsPerRound: s.baseNs,
      ratios,
      nsMedian: median(s.ns),
      wallNsMedian: median(s.wallNs),
      baseNsMedian: median(s.baseNs),
      ratioMedian: median(ratios),
      wallRatioMedian: median(s.wallNs.map((x, i) => x / s.baseWallNs[i])),
    };
  };
}
/** Evaluations in a pass of about `ms` (wall time), from passes of growing size. */
function passSize(c, ms) {
  for (let n = 1; ; n *= 4) {
    const took = (pass(c.run, n).wallNs * n) / 1e6;
    if (took >= ms / 4 || n >= 1 << 26) return Math.max(1, Math.round((n * ms) / Math.max(took, 1e-3)));
  }
}
/** Sizes every subject's pass (`c.n`) to about `ms`, runs `passes` passes of each, sizes again. */
export function warmUp(subjects, ms, passes, label) {
  const t0 = performance.now();
  for (const c of subjects) c.n = passSize(c, ms);
  for (let p = 0; p < passes; p++) for (const c of subjects) pass(c.run, c.n);
  for (const c of subjects) c.n = passSize(c, ms);
  err(`  ${label}: warmed up in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}
/** `run(n)`: `evaluate(users, start, n)` of the next `n` users, from where the last call ended. */
export function subject(evaluate, users) {
  let cursor = 0;
  return {
    run(n) {
      const hits = evaluate(users, cursor, n);
      cursor = (cursor + n) % users.length;
      return hits;
    },
  };
}
/** The caller's default of `getString`: no variant has it, so an error or a missing flag shows. */
export const DEFAULT = 'DEFAULT';
/** `client.isEnabled(key, user)` over `n` users from `start` (wrapping): how many were on. */
export function isEnabledLoop(client, key, users, start, n) {
  let hits = 0;
  const u = users.length;
  for (let i = 0, j = start; i < n; i++) {
    if (client.isEnabled(key, users[j])) hits++;
    if (++j === u) j = 0;
  }
  return hits;
}
/** `client.getString(key, user, DEFAULT)` over `n` users from `start` (wrapping): how many got `want`. */
export function getStringLoop(client, key, want, users, start, n) {
  let hits = 0;
  const u = users.length;
  for (let i = 0, j = start; i < n; i++) {
    if (client.getString(key, users[j], DEFAULT) === want) hits++;
    if (++j === u) j = 0;
  }
  return hits;
}
/**
 * Bytes allocated by `run(n)`: `heapUsed` after minus before (after two full GCs), less the median of
 * `samples` empty controls; with the GCs that fell inside (a figure with any is void).
 */
export async function garbageMeter(samples) {
  if (typeof globalThis.gc !== 'function') throw new Error('garbage mode needs --expose-gc');
  const events = [];
  const observer = new PerformanceObserver((list) => events.push(...list.getEntries()));
  observer.observe({ entryTypes: ['gc'] });
  const once = async (run, n) => {
    globalThis.gc();
    globalThis.gc();
    await sleep(20);
    const t0 = performance.now();
    const h0 = process.memoryUsage().heapUsed;
    run(n);
    const h1 = process.memoryUsage().heapUsed;
    const t1 = performance.now();
    await sleep(20);
    return { bytes: h1 - h0, gcs: events.filter((e) => e.startTime >= t0 && e.startTime <= t1).length };
  };
  const controls = [];
  for (let s = 0; s < samples; s++) controls.push((await once(() => 0, 0)).bytes);
  const control = median(controls);
  return {
    control,
    /** One pass, less the control: bytes per unit. */
    probe: async (run, n) => ((await once(run, n)).bytes - control) / n,
    /** `samples` passes: `perUnit` is the least (a one-off, such as a recompilation, only adds). */
    async sample(run, n) {
      const bytes = [];
      let gcs = 0;
      for (let s = 0; s < samples; s++) {
        const m = await once(run, n);
        bytes.push(m.bytes - control);
        gcs += m.gcs;
      }
      return { perUnit: Math.min(...bytes) / n, bytes, gcs };
    },
    stop: () => observer.disconnect(),
  };
}
/** A measuring child's answer on stdout, with Node's version and flags. */
export const printResult = (r) =>
  process.stdout.write(JSON.stringify({ node: process.version, execArgv: process.execArgv, ...r }));
