/**
 * Benchmark: fan-out, the time a change takes to reach every open event stream, measured once
 * for every size the README reports (bench/README.md): 1,000 and 5,000 streams on a durable
 * server against the bare `node:http` SSE server of `lib/server-child.mjs`, and 3,000 over three
 * instances on one Postgres database (the PATCHes through each in turn) against one journal
 * instance holding all 3,000. Each side's streams are held by `lib/sse-readers.mjs`, which also
 * sends the PATCHes (one clock). Both sides of a size are open at once, the writes alternate
 * between them by rounds; the servers send no pings meanwhile (the bare one has none).
 */
import { performance } from 'node:perf_hooks';
import { startCluster, startInstances } from './lib/postgres.mjs';
import {
  benchConfig,
  cpuMs,
  evenSplit,
  fmt,
  knob,
  listKnob,
  median,
  propagationStats,
  startChild,
  startServer,
  sum,
  table,
  tempDir,
  verdict,
} from './lib/util.mjs';

const FLAG = 'fanout.target';
const OTHERS = 20;
const GAP_MS = 100;
const measure = (side, durationMs, count) =>
  side.readers.call(
    'measure',
    { writes: side.writes, flag: FLAG, durationMs, count, gapMs: count ? 30 : GAP_MS },
    (durationMs ?? 0) + 60_000,
  );

/** Opens `streams` readers over a side's servers, with the servers' memory before (after a warm-up) and after. */
async function openSide(side, streams, log) {
  // Warm-up, so that code and buffers made once are not counted as per-stream memory.
  const warm = startChild('lib/sse-readers.mjs', `${side.id} warm-up readers`);
  for (const server of side.servers)
    await warm.call('open', { url: server.url, key: side.readKey, count: 20 });
  await measure({ ...side, readers: warm }, undefined, 3);
  await warm.close();
  await Promise.all(side.servers.map((s) => s.streams(0)));
  const before = await Promise.all(side.servers.map((s) => s.memory()));
  side.readers = startChild('lib/sse-readers.mjs', `${side.id} readers`);
  const n = side.servers.length;
  const parts = evenSplit(streams, n);
  const t0 = performance.now();
  for (const [i, { url }] of side.servers.entries())
    await side.readers.call('open', { url, key: side.readKey, count: parts[i] }, 180_000);
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
  const m = await measure(side, durationMs);
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
  return {
    openMs: side.openMs,
    patches,
    ...propagationStats(samples),
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
  for (const side of [base, ours]) await measure(side, 1000);
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
  return table(
    head,
    rows.map(([label, ...rest]) => [`  ${label}`, ...rest]),
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
  const others = Array.from({ length: OTHERS }, (_, i) => `fanout.other-${i}`);
  const { keys, config } = benchConfig({ live: [FLAG, ...others].map((key) => ({ key, type: 'boolean' })) });
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
    const database = await pg.cluster.createDatabase('fanout');
    const ours = side(
      'pg3',
      '3 instances, Postgres',
      await startInstances(database, 3, 'fanout-pg', options, true),
    );
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
