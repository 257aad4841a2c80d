/**
 * In-process measurement, shared by the measuring children of `sdk-evaluate` and `targeting`:
 * CPU time of a pass, rounds that alternate a case with its baseline, and bytes allocated per
 * pass (`--expose-gc`, a young generation no pass fills, no GC inside a pass).
 */
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { median, sleep } from './util.mjs';

/** A flat (sequential), non-internalized one-byte copy of an ASCII string, as one parsed from a request. */
export const flat = (s) => Buffer.from(s, 'latin1').toString('latin1');
export const err = (line) => process.stderr.write(`${line}\n`);

/**
 * Runs `run(n)` once: CPU ns (user + system: on a shared machine it leaves out the time the process
 * waited for a core; after the warm-up nothing compiles or collects, so other threads add nothing)
 * and wall ns, per unit of `n`; `hits`, what `run` answered.
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
 * Rounds of a case against its baseline, each `{ run(n), n }`: in every round, `passes` passes of
 * each, alternating which goes first (so that drift within a round favours neither), and the
 * medians of the round kept. `summary()`: the figures are medians over rounds, the ratio the
 * median of the per-round ratios.
 */
export function pairedRounds() {
  const s = { ns: [], wallNs: [], baseNs: [], baseWallNs: [] };
  return {
    round(c, base, passes, round) {
      const runs = { c: [], base: [] };
      for (let p = 0; p < passes; p++)
        for (const which of (round + p) % 2 === 0 ? ['c', 'base'] : ['base', 'c']) {
          const x = which === 'c' ? c : base;
          runs[which].push(pass(x.run, x.n));
        }
      const med = (which, k) => median(runs[which].map((x) => x[k]));
      s.ns.push(med('c', 'ns'));
      s.wallNs.push(med('c', 'wallNs'));
      s.baseNs.push(med('base', 'ns'));
      s.baseWallNs.push(med('base', 'wallNs'));
      return { ns: s.ns.at(-1), baseNs: s.baseNs.at(-1) };
    },
    summary() {
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
    },
  };
}

/**
 * Bytes allocated by `run(n)`: `heapUsed` after it minus before it (after two full GCs and a turn
 * of the event loop), less the median of `samples` empty controls; with the GC events that fell
 * inside (a figure with any is void). Needs `--expose-gc`; `stop()` when done.
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
    /**
     * `samples` passes: `perUnit` is the least (what the code under test allocates is the same
     * every pass; a one-off, code or feedback of a late recompilation, only ever adds).
     */
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
