/** Benchmark `fanout`: a PATCH's time to the last of N streams, ours against a baseline, alternating. */
import { performance } from 'node:perf_hooks';
import { startCluster, startInstances } from './lib/postgres.mjs';
import * as u from './lib/util.mjs';

const { fmt, sum, verdict } = u;
const FLAG = 'fanout.target';
const OTHERS = 20;
const GAP_MS = 100;
const measure = (side, durationMs, count) => {
  const payload = { writes: side.writes, flag: FLAG, durationMs, count, gapMs: count ? 30 : GAP_MS };
  return side.readers.call('measure', payload, (durationMs ?? 0) + 60_000);
};
/** Opens `streams` streams over a side's servers; memory before (after a warm-up) and after. */
async function openSide(side, streams, log) {
  // Warm-up, so that code and buffers made once are not counted as per-stream memory.
  const warm = u.startChild('lib/sse-readers.mjs', `${side.id} warm-up readers`);
  for (const { url } of side.servers) await warm.call('open', { url, key: side.readKey, count: 20 });
  await measure({ ...side, readers: warm }, undefined, 3);
  await warm.close();
  await Promise.all(side.servers.map((s) => s.streams(0)));
  const before = await Promise.all(side.servers.map((s) => s.memory()));
  side.readers = u.startChild('lib/sse-readers.mjs', `${side.id} readers`);
  const parts = u.evenSplit(streams, side.servers.length);
  const t0 = performance.now();
  for (const [i, { url }] of side.servers.entries())
    await side.readers.call('open', { url, key: side.readKey, count: parts[i] }, 180_000);
  await Promise.all(side.servers.map((s, i) => s.streams(parts[i])));
  side.openMs = performance.now() - t0;
  const after = await Promise.all(side.servers.map((s) => s.memory()));
  const perStream = (k) => (sum(after.map((m) => m[k])) - sum(before.map((m) => m[k]))) / streams;
  side.perStream = { rssBytes: perStream('rss'), heapUsedBytes: perStream('heapUsed') };
  side.rounds = [];
  log(`  ${side.label}: ${fmt.int(streams)} streams open in ${fmt.ms(side.openMs, 0)}`);
}
async function measureRound(side, durationMs, log) {
  const cpu = await u.cpuMeter(side.servers);
  const m = await measure(side, durationMs);
  side.rounds.push({ ...m, serverCpuMs: sum(await cpu()) });
  log(`  ${side.label}: last stream ${fmt.ms(u.median(m.samples.map((x) => x.fromResponseMs)))} (median)`);
}
function summary(side) {
  const total = (k) => sum(side.rounds.map((r) => r[k]));
  const samples = side.rounds.flatMap((r) => r.samples);
  const patches = samples.length + total('incomplete');
  return {
    openMs: side.openMs,
    patches,
    ...u.propagationStats(samples),
    serverCpuMsPerPatch: total('serverCpuMs') / patches,
    readerCpuMsPerPatch: total('readerCpuMs') / patches,
    perStream: side.perStream,
    errors: total('errors'),
    drops: total('drops'),
    missed: total('incomplete') + total('probeFailures'),
  };
}
/** Both sides of one size: streams opened, then the rounds of writes alternating between them. */
async function fanoutCase(streams, base, ours, s, log) {
  for (const side of [base, ours]) await openSide(side, streams, log);
  // 1 s of the PATCHes on each, not counted: what follows the opening of the streams settles.
  for (const side of [base, ours]) await measure(side, 1000);
  for (let round = 0; round < s.rounds; round++)
    for (const side of u.rotated([base, ours], round))
      await measureRound(side, (s.seconds * 1000) / s.rounds, log);
  for (const side of [base, ours]) {
    await side.readers.close();
    await Promise.all(side.servers.map((server) => server.close()));
  }
  const [b, o] = [summary(base), summary(ours)];
  return { streams, base: base.label, ours: ours.label, [base.id]: b, [ours.id]: o, b, o };
}
function render({ streams, base, ours, b, o }, targets) {
  const cells = (get, unit = fmt.ms) => [unit(get(o)), unit(get(b)), fmt.x(get(o) / get(b))];
  const pair = (k) => {
    const [m, p] = ['median', 'p99'].map((q) => cells((x) => x[k][q]));
    return m.map((v, i) => `${v} / ${p[i]}`);
  };
  const counts = (x) => `${x.errors} / ${x.drops} / ${x.missed}`;
  const rows = [
    ['last stream after the PATCH 200: median / p99', ...pair('lastAfterResponseMs'), targets.response],
    ['last stream after sending the PATCH: median / p99', ...pair('lastAfterSendMs'), targets.send],
    ['first stream after sending, median', ...cells((x) => x.firstAfterSendMs.median)],
    ['PATCH round trip, median', ...cells((x) => x.patchRoundTripMs.median)],
    ['servers CPU per PATCH (fan-out incl.)', ...cells((x) => x.serverCpuMsPerPatch)],
    ["readers' CPU per PATCH", ...cells((x) => x.readerCpuMsPerPatch)],
    ['servers RSS per stream (after GC)', ...cells((x) => x.perStream.rssBytes, fmt.kb), targets.rss],
    ['servers heapUsed per stream (after GC)', ...cells((x) => x.perStream.heapUsedBytes, fmt.kb)],
    ['errors / drops / PATCHes some stream missed', counts(o), counts(b)],
  ];
  const head = `fanout: ${fmt.int(streams)} streams, ${o.patches} / ${b.patches} PATCHes|${ours}|${base}|ratio|target`;
  const indented = rows.map(([label, ...rest]) => [`  ${label}`, ...rest]);
  return u.table(head, indented);
}
export async function run({ log }) {
  const sizes = u.listKnob('FLAGWIRE_BENCH_FANOUT_STREAMS', '1000,5000');
  const s = { sizes, ...u.knobs('FANOUT_', { pgStreams: 3000, seconds: 10, rounds: 2 }), gapMs: GAP_MS };
  const others = Array.from({ length: OTHERS }, (_, i) => `fanout.other-${i}`);
  const live = [FLAG, ...others].map((key) => ({ key, type: 'boolean' }));
  const { keys, config } = u.benchConfig({ live });
  const options = { config, pingIntervalMs: 600_000 };
  const side = (id, label, servers) => {
    const writes = servers.map(({ url }) => ({ url, key: keys.live.full }));
    return { id, label, servers, readKey: keys.live.read, writes };
  };
  const journal = async (label) => {
    const dataDir = u.tempDir('fanout');
    const server = await u.startServer({ ...options, dataDir }, 'fanout-journal', { track: true });
    return side('journal', label, [server]);
  };
  const result = { settings: s, sizes: [] };
  const texts = [];
  for (const streams of s.sizes) {
    const bare = await u.startServer({}, 'fanout-bare', { bare: { sse: { flag: FLAG, others: OTHERS } } });
    const base = side('bare', 'bare node:http', [bare]);
    const r = await fanoutCase(streams, base, await journal('ours (journal)'), s, log);
    const targets = streams === 1000 && {
      response: `< 50 ms: ${verdict(r.o.lastAfterResponseMs.median < 50)}`,
      rss: `< 20 KB: ${verdict(r.o.perStream.rssBytes < 20 * 1024)}`,
    };
    result.sizes.push({ ...r, b: undefined, o: undefined });
    texts.push(render(r, targets || {}));
  }
  if (s.pgStreams > 0) {
    const pg = await startCluster(log);
    const database = await pg.cluster.createDatabase('fanout');
    const instances = await startInstances(database, 3, 'fanout-pg', options, true);
    const ours = side('pg3', '3 instances, Postgres', instances);
    const r = await fanoutCase(s.pgStreams, await journal('1 instance, journal'), ours, s, log);
    const ratio = (k) => r.o.lastAfterSendMs[k] / r.b.lastAfterSendMs[k];
    const met = {
      p99: r.o.lastAfterSendMs.p99 < 50,
      median: ratio('median') <= 2,
      p99Ratio: ratio('p99') <= 2,
    };
    result.postgres = { version: pg.version, ...r, b: undefined, o: undefined, targets: met };
    const send = `p99 < 50 ms: ${verdict(met.p99)}; <= 2x: ${verdict(met.median)} / ${verdict(met.p99Ratio)}`;
    texts.push(render(r, { send }));
  }
  return { result, text: texts.join('\n\n') };
}
