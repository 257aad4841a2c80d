/**
 * Benchmark: fan-out, the time a change takes to reach every open event stream, measured once
 * for every size the README reports:
 *
 * - 1,000 and 5,000 streams (`FLAGWIRE_BENCH_FANOUT_STREAMS`) on the reference server with a
 *   durable `dataDir` (the journal), against the bare `node:http` SSE server of
 *   `lib/server-child.mjs` (no auth, no store: one frame written to every stream per PATCH);
 * - 3,000 streams (`FLAGWIRE_BENCH_FANOUT_PG_STREAMS`, 0 skips it) spread evenly over three
 *   instances on one Postgres database (docs/scaling.md; a throwaway cluster from the tests'
 *   launcher), the PATCHes sent through instance 1, 2, 3, 1, ... in turn, against one journal
 *   instance holding all 3,000.
 *
 * Every server runs in its own process, and each side's streams in another (`lib/sse-readers.mjs`,
 * raw `node:net`), which also sends the PATCHes, so that every time is on one clock. Both sides
 * of a size have their streams open at the same time; the writes alternate between them in
 * `FLAGWIRE_BENCH_FANOUT_ROUNDS` (2) rounds, `FLAGWIRE_BENCH_FANOUT_SECONDS` (10) per side in all,
 * one PATCH toggling a flag every 100 ms. Per PATCH: the time from its 200 (and from sending it)
 * until the last stream has its `flags:updated` frame; median and p99. Per side: the servers' RSS
 * and heap per stream (after `global.gc()`, before and after opening the streams, after a warm-up
 * that opened and closed a few), their CPU per PATCH, errors and dropped streams. The servers send
 * no pings meanwhile (the bare one has none).
 */
import { performance } from 'node:perf_hooks';
import { startCluster, startInstances } from './lib/postgres.mjs';
import {
  benchConfig,
  cpuMs,
  fmt,
  knob,
  listKnob,
  median,
  startChild,
  startServer,
  stats,
  table,
  tempDir,
  verdict,
} from './lib/util.mjs';

const FLAG = 'fanout.target';
const OTHERS = 20;
const GAP_MS = 100;
const sum = (values) => values.reduce((a, b) => a + b, 0);

/** Opens `streams` readers over a side's servers, with the servers' memory before (after a warm-up) and after. */
async function openSide(side, streams, log) {
  // Warm-up, so that code and buffers made once are not counted as per-stream memory.
  const warm = startChild('lib/sse-readers.mjs', `${side.id} warm-up readers`);
  for (const server of side.servers)
    await warm.call('open', { url: server.url, key: side.readKey, count: 20 });
  await warm.call('measure', { writes: side.writes, flag: FLAG, count: 3, gapMs: 30 });
  await warm.close();
  await Promise.all(side.servers.map((s) => s.streams(0)));
  const before = await Promise.all(side.servers.map((s) => s.memory()));
  side.readers = startChild('lib/sse-readers.mjs', `${side.id} readers`);
  const n = side.servers.length;
  const parts = side.servers.map((_, i) => Math.floor(streams / n) + (i < streams % n ? 1 : 0));
  const t0 = performance.now();
  for (let i = 0; i < n; i++)
    await side.readers.call(
      'open',
      { url: side.servers[i].url, key: side.readKey, count: parts[i] },
      180_000,
    );
  await Promise.all(side.servers.map((s, i) => s.streams(parts[i])));
  side.openMs = performance.now() - t0;
  const after = await Promise.all(side.servers.map((s) => s.memory()));
  const perStream = (k) => (sum(after.map((m) => m[k])) - sum(before.map((m) => m[k]))) / streams;
  side.perStream = { rssBytes: perStream('rss'), heapUsedBytes: perStream('heapUsed') };
  side.rounds = [];
  log(
    `  ${side.label}: ${fmt.int(streams)} streams (${parts.join(' + ')}) open in ${fmt.ms(side.openMs, 0)}`,
  );
}

async function measureRound(side, durationMs, log) {
  const cpu0 = await Promise.all(side.servers.map((s) => s.cpu()));
  const m = await side.readers.call(
    'measure',
    { writes: side.writes, flag: FLAG, durationMs, gapMs: GAP_MS },
    durationMs + 60_000,
  );
  const cpu1 = await Promise.all(side.servers.map((s) => s.cpu()));
  side.rounds.push({ ...m, serverCpuMs: sum(cpu0.map((c, i) => cpuMs(c, cpu1[i]))) });
  log(
    `  ${side.label}: ${m.samples.length} PATCHes, last stream ${fmt.ms(median(m.samples.map((x) => x.fromResponseMs)))} ` +
      `after the 200 (median), ${m.errors} errors, ${m.drops} drops, ${m.incomplete} incomplete`,
  );
}

function summary(side) {
  const samples = side.rounds.flatMap((r) => r.samples);
  const total = (k) => sum(side.rounds.map((r) => r[k]));
  const patches = samples.length + total('incomplete');
  const of = (k) => stats(samples.map((x) => x[k]));
  return {
    openMs: side.openMs,
    patches,
    lastAfterResponseMs: of('fromResponseMs'),
    lastAfterSendMs: of('fromSendMs'),
    firstAfterSendMs: of('firstFromSendMs'),
    patchRoundTripMs: of('toResponseMs'),
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
  // 1 s of the PATCHes on each, not counted: what follows the opening of the streams (collections, compilations) settles.
  for (const side of [base, ours])
    await side.readers.call(
      'measure',
      { writes: side.writes, flag: FLAG, durationMs: 1000, gapMs: GAP_MS },
      60_000,
    );
  for (let round = 0; round < s.rounds; round++)
    for (const side of round % 2 ? [ours, base] : [base, ours])
      await measureRound(side, (s.seconds * 1000) / s.rounds, log);
  for (const side of [base, ours]) {
    await side.readers.close();
    await Promise.all(side.servers.map((server) => server.close()));
  }
  const [b, o] = [summary(base), summary(ours)];
  return { streams, base: base.label, ours: ours.label, [base.id]: b, [ours.id]: o, b, o };
}

function render({ streams, base, ours, b, o }, targets) {
  const both = (get, unit) => [unit(get(o)), unit(get(b)), fmt.x(get(o) / get(b))];
  const pair = (get, unit) => {
    const [om, bm, rm] = both((m) => get(m).median, unit);
    const [op, bp, rp] = both((m) => get(m).p99, unit);
    return [`${om} / ${op}`, `${bm} / ${bp}`, `${rm} / ${rp}`];
  };
  const rows = [
    [
      '  last stream after the PATCH 200: median / p99',
      ...pair((m) => m.lastAfterResponseMs, fmt.ms),
      targets.response ?? '',
    ],
    [
      '  last stream after sending the PATCH: median / p99',
      ...pair((m) => m.lastAfterSendMs, fmt.ms),
      targets.send ?? '',
    ],
    ['  first stream after sending, median', ...both((m) => m.firstAfterSendMs.median, fmt.ms)],
    ['  PATCH round trip, median', ...both((m) => m.patchRoundTripMs.median, fmt.ms)],
    ['  servers CPU per PATCH (fan-out incl.)', ...both((m) => m.serverCpuMsPerPatch, fmt.ms)],
    ["  readers' CPU per PATCH", ...both((m) => m.readerCpuMsPerPatch, fmt.ms)],
    ['  servers RSS per stream (after GC)', ...both((m) => m.perStream.rssBytes, fmt.kb), targets.rss ?? ''],
    ['  servers heapUsed per stream (after GC)', ...both((m) => m.perStream.heapUsedBytes, fmt.kb)],
    [
      '  errors / drops / PATCHes some stream missed',
      `${o.errors} / ${o.drops} / ${o.missed}`,
      `${b.errors} / ${b.drops} / ${b.missed}`,
    ],
  ];
  return table(
    [
      `fanout: ${fmt.int(streams)} streams, ${o.patches} / ${b.patches} PATCHes`,
      ours,
      base,
      'ratio',
      'target',
    ],
    rows,
  );
}

export async function run({ log }) {
  const s = {
    sizes: listKnob('FLAGWIRE_BENCH_FANOUT_STREAMS', '1000,5000'),
    pgStreams: knob('FLAGWIRE_BENCH_FANOUT_PG_STREAMS', 3000),
    seconds: knob('FLAGWIRE_BENCH_FANOUT_SECONDS', 10),
    rounds: knob('FLAGWIRE_BENCH_FANOUT_ROUNDS', 2),
    gapMs: GAP_MS,
  };
  const flags = [FLAG, ...Array.from({ length: OTHERS }, (_, i) => `fanout.other-${i}`)].map((key) => ({
    key,
    type: 'boolean',
  }));
  const { keys, config } = benchConfig({ live: flags });
  const options = { config, pingIntervalMs: 600_000 };
  const side = (id, label, servers) => ({
    id,
    label,
    servers,
    readKey: keys.live.read,
    writes: servers.map(({ url }) => ({ url, key: keys.live.full })),
  });
  const journal = async (label) =>
    side('journal', label, [
      await startServer({ ...options, dataDir: tempDir('fanout') }, 'fanout-journal', { track: true }),
    ]);
  const result = { settings: s, sizes: [] };
  const texts = [];
  for (const streams of s.sizes) {
    const bare = await startServer({}, 'fanout-bare', { bare: { sse: { flag: FLAG, others: OTHERS } } });
    const r = await fanoutCase(
      streams,
      side('bare', 'bare node:http', [bare]),
      await journal('ours (journal)'),
      s,
      log,
    );
    const targets = streams === 1000 && {
      response: `< 50 ms: ${verdict(r.o.lastAfterResponseMs.median < 50)}`,
      rss: `< 20 KB: ${verdict(r.o.perStream.rssBytes < 20 * 1024)}`,
    };
    result.sizes.push({ ...r, b: undefined, o: undefined });
    texts.push(render(r, targets || {}));
  }
  if (s.pgStreams > 0) {
    const pg = await startCluster();
    log(`  ${pg.version} on port ${pg.cluster.port}`);
    const instances = await startInstances(
      await pg.cluster.createDatabase('fanout'),
      3,
      'fanout-pg',
      options,
      true,
    );
    const ours = side('pg3', '3 instances, Postgres', instances);
    const r = await fanoutCase(s.pgStreams, await journal('1 instance, journal'), ours, s, log);
    const ratio = (k) => r.o.lastAfterSendMs[k] / r.b.lastAfterSendMs[k];
    const met = {
      p99: r.o.lastAfterSendMs.p99 < 50,
      median: ratio('median') <= 2,
      p99Ratio: ratio('p99') <= 2,
    };
    result.postgres = { version: pg.version, ...r, b: undefined, o: undefined, targets: met };
    texts.push(
      render(r, {
        send: `p99 < 50 ms: ${verdict(met.p99)}; <= 2x: ${verdict(met.median)} / ${verdict(met.p99Ratio)}`,
      }),
    );
  }
  return { result, text: texts.join('\n\n') };
}
