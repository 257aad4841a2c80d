/**
 * Benchmark 2: stream fan-out.
 *
 * 1,000 open event streams (`GET /sdk/events`, read-only key), held by raw `node:http`
 * readers in a child process separate from the server's. Then ~20 PATCHes, one at a
 * time: the time from the PATCH's 200 (and, for context, from sending it) to the moment
 * the last stream has received the `flags:updated` frame; median and p99.
 *
 * Memory per idle stream: the server process's `process.memoryUsage()` after
 * `global.gc()` with 0 streams (after a warm-up that opened and closed a few) and with
 * the 1,000 streams open, divided by 1,000.
 *
 * Baseline: the same measurements against a bare `node:http` SSE server
 * (`lib/bare-sse-child.mjs`), alternating bare / ours with fresh processes each run; the
 * table shows ours/bare ratios next to the absolute targets.
 */
import { join } from 'node:path';
import {
  api,
  BENCH_DIR,
  fmt,
  median,
  percentile,
  rpc,
  sleep,
  spawnNode,
  startBareSseChild,
  startServerChild,
  table,
  verdict,
} from './lib/util.mjs';

export const name = 'fanout';

const TARGET_MEDIAN_MS = 50;
const TARGET_BYTES_PER_STREAM = 20 * 1024;

function settings() {
  return {
    streams: Number(process.env.FLAGWIRE_BENCH_STREAMS ?? 1000),
    patches: Number(process.env.FLAGWIRE_BENCH_PATCHES ?? 20),
    rounds: Number(process.env.FLAGWIRE_BENCH_FANOUT_ROUNDS ?? 2),
    warmupPatches: 3,
    gapMs: 50,
  };
}

async function startReaders() {
  const { child, exited } = spawnNode(join(BENCH_DIR, 'lib', 'stream-readers.mjs'));
  const call = rpc(child, 'stream readers');
  return {
    call,
    async close() {
      if (child.exitCode !== null) return;
      await call('close').catch(() => {});
      await exited;
    },
  };
}

async function waitForStreamCount(server, count, timeoutMs = 10_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const mem = await server.memory();
    if (mem.streamCount === count) return mem;
    if (Date.now() > until) throw new Error(`server has ${mem.streamCount} streams open, expected ${count}`);
    await sleep(100);
  }
}

const FLAG = 'fanout.target';
const OTHER_FLAGS = 20;

/** What the bare server sends on connect: the same shape and about the same size as ours. */
function bareFirstFrame() {
  const flags = { [FLAG]: { key: FLAG, type: 'rollout', enabled: false, percentage: 50, version: 1 } };
  for (let i = 0; i < OTHER_FLAGS; i++) {
    const key = `fanout.other-${i}`;
    flags[key] = { key, type: 'boolean', enabled: false, version: i + 2 };
  }
  const id = `bare:${OTHER_FLAGS + 1}`;
  const data = JSON.stringify({ revision: OTHER_FLAGS + 1, epoch: 'bare', eventId: id, flags });
  return `retry: 1000\n\nid: ${id}\nevent: flags:sync\ndata: ${data}\n\n`;
}

/** One complete measurement against a fresh server process of `kind` ('bare' or 'ours'). */
async function measure(kind, s) {
  const server =
    kind === 'ours'
      ? // Long ping interval: no ping frames during the measurement.
        await startServerChild({ memory: true, pingIntervalMs: 600_000 }, 'fanout')
      : await startBareSseChild({ firstFrame: bareFirstFrame(), flag: FLAG });
  let readers;
  try {
    const fullKey = server.fullKey ?? 'none';
    const readKey = server.readKey ?? 'none';
    if (kind === 'ours') {
      const base = `${server.url}/api/v1`;
      await api(base, 'POST', '/flags', fullKey, { key: FLAG, type: 'rollout', percentage: 50 });
      for (let i = 0; i < OTHER_FLAGS; i++)
        await api(base, 'POST', '/flags', fullKey, { key: `fanout.other-${i}`, type: 'boolean' });
    }

    // Warm-up: a few streams and PATCHes, so lazily created code and buffers are not
    // counted as per-stream memory; then all closed again.
    const warm = await startReaders();
    await warm.call('open', { url: server.url, key: readKey, count: 20 });
    await warm.call('patches', {
      url: server.url,
      key: fullKey,
      flag: FLAG,
      count: s.warmupPatches,
      gapMs: 10,
    });
    await warm.close();
    const before = await waitForStreamCount(server, 0);

    readers = await startReaders();
    const opened = await readers.call('open', { url: server.url, key: readKey, count: s.streams }, 120_000);
    const after = await waitForStreamCount(server, s.streams);
    const perStream = {
      rssBytes: (after.rss - before.rss) / s.streams,
      heapTotalBytes: (after.heapTotal - before.heapTotal) / s.streams,
      heapUsedBytes: (after.heapUsed - before.heapUsed) / s.streams,
      externalBytes: (after.external - before.external) / s.streams,
    };

    await readers.call('patches', {
      url: server.url,
      key: fullKey,
      flag: FLAG,
      count: s.warmupPatches,
      gapMs: s.gapMs,
    });
    const cpu0 = await server.cpu();
    const samples = await readers.call(
      'patches',
      { url: server.url, key: fullKey, flag: FLAG, count: s.patches, gapMs: s.gapMs },
      120_000,
    );
    const cpu1 = await server.cpu();
    const cpuMsPerPatch = (cpu1.user - cpu0.user + cpu1.system - cpu0.system) / 1000 / s.patches;
    const m = {
      kind,
      openMs: opened.ms,
      perStream,
      memoryBefore: pick(before),
      memoryAfter: pick(after),
      serverCpuMsPerPatch: cpuMsPerPatch,
      samples,
      lastAfterResponseMedianMs: median(samples.map((x) => x.fromResponseMs)),
      lastAfterSendMedianMs: median(samples.map((x) => x.fromSendMs)),
    };
    return m;
  } finally {
    await readers?.close();
    await server.close();
  }
}

export async function run({ log = console.log } = {}) {
  const s = settings();
  log(
    `  ${s.streams} streams, ${s.patches} PATCHes per run, ${s.rounds} rounds alternating bare / ours, ` +
      'each run with a fresh server process and a fresh reader process',
  );
  const runs = { bare: [], ours: [] };
  for (let round = 1; round <= s.rounds; round++) {
    for (const kind of ['bare', 'ours']) {
      const m = await measure(kind, s);
      runs[kind].push(m);
      log(
        `  round ${round}/${s.rounds} ${kind.padEnd(4)}: last stream ${fmt.ms(m.lastAfterResponseMedianMs)} after the 200, ` +
          `${fmt.ms(m.lastAfterSendMedianMs)} after sending (medians); server CPU ${m.serverCpuMsPerPatch.toFixed(1)} ms/PATCH; ` +
          `per stream rss ${fmt.kb(m.perStream.rssBytes)}, heapUsed ${fmt.kb(m.perStream.heapUsedBytes)}`,
      );
    }
  }

  const summarize = (list) => {
    const all = list.flatMap((m) => m.samples);
    const stats = (k) => {
      const v = all.map((x) => x[k]);
      return { median: median(v), p99: percentile(v, 99), max: Math.max(...v) };
    };
    return {
      lastStreamAfterResponseMs: stats('fromResponseMs'),
      lastStreamAfterSendMs: stats('fromSendMs'),
      firstStreamAfterSendMs: stats('firstFromSendMs'),
      patchRoundTripMs: stats('toResponseMs'),
      serverCpuMsPerPatch: median(list.map((m) => m.serverCpuMsPerPatch)),
      perStream: {
        rssBytes: median(list.map((m) => m.perStream.rssBytes)),
        heapTotalBytes: median(list.map((m) => m.perStream.heapTotalBytes)),
        heapUsedBytes: median(list.map((m) => m.perStream.heapUsedBytes)),
        externalBytes: median(list.map((m) => m.perStream.externalBytes)),
      },
    };
  };
  const bare = summarize(runs.bare);
  const ours = summarize(runs.ours);
  const ratio = (a, b) => a / b;
  const result = {
    settings: s,
    ours,
    bare,
    ratios: {
      lastStreamAfterSendMedian: ratio(ours.lastStreamAfterSendMs.median, bare.lastStreamAfterSendMs.median),
      serverCpuPerPatch: ratio(ours.serverCpuMsPerPatch, bare.serverCpuMsPerPatch),
      rssPerStream: ratio(ours.perStream.rssBytes, bare.perStream.rssBytes),
      heapUsedPerStream: ratio(ours.perStream.heapUsedBytes, bare.perStream.heapUsedBytes),
    },
    runs,
    targets: {
      medianBelowMs: TARGET_MEDIAN_MS,
      latencyMet: ours.lastStreamAfterResponseMs.median < TARGET_MEDIAN_MS,
      bytesPerStreamBelow: TARGET_BYTES_PER_STREAM,
      memoryMet: ours.perStream.rssBytes < TARGET_BYTES_PER_STREAM,
    },
  };
  const x = (r) => (Number.isFinite(r) ? `${r.toFixed(2)}x` : '-');
  const row = (what, o, b, unit, target = '(info)', met) => ({
    what,
    ours: unit(o),
    bare: unit(b),
    ratio: x(o / b),
    target,
    verdict: met === undefined ? '' : verdict(met),
  });
  const rows = [
    row(
      `last of ${s.streams} streams after PATCH 200, median`,
      ours.lastStreamAfterResponseMs.median,
      bare.lastStreamAfterResponseMs.median,
      fmt.ms,
      `< ${TARGET_MEDIAN_MS} ms`,
      result.targets.latencyMet,
    ),
    row(`  ... p99`, ours.lastStreamAfterResponseMs.p99, bare.lastStreamAfterResponseMs.p99, fmt.ms),
    row(
      `last of ${s.streams} streams after PATCH sent, median`,
      ours.lastStreamAfterSendMs.median,
      bare.lastStreamAfterSendMs.median,
      fmt.ms,
    ),
    row(`  ... p99`, ours.lastStreamAfterSendMs.p99, bare.lastStreamAfterSendMs.p99, fmt.ms),
    row(
      'first stream after PATCH sent, median',
      ours.firstStreamAfterSendMs.median,
      bare.firstStreamAfterSendMs.median,
      fmt.ms,
    ),
    row('PATCH round trip, median', ours.patchRoundTripMs.median, bare.patchRoundTripMs.median, fmt.ms),
    row('server CPU per PATCH (fan-out incl.)', ours.serverCpuMsPerPatch, bare.serverCpuMsPerPatch, fmt.ms),
    row(
      'server RSS per idle stream',
      ours.perStream.rssBytes,
      bare.perStream.rssBytes,
      fmt.kb,
      `< ${fmt.kb(TARGET_BYTES_PER_STREAM)}`,
      result.targets.memoryMet,
    ),
    row(
      'server heapUsed per idle stream',
      ours.perStream.heapUsedBytes,
      bare.perStream.heapUsedBytes,
      fmt.kb,
    ),
    row(
      'server heapTotal per idle stream',
      ours.perStream.heapTotalBytes,
      bare.perStream.heapTotalBytes,
      fmt.kb,
    ),
  ];
  const text = table(rows, [
    { key: 'what', title: 'fanout', align: 'left' },
    { key: 'ours', title: 'ours' },
    { key: 'bare', title: 'bare node:http' },
    { key: 'ratio', title: 'ours/bare' },
    { key: 'target', title: 'target' },
    { key: 'verdict', title: '' },
  ]);
  return { result, text };
}

function pick(m) {
  return {
    rss: m.rss,
    heapTotal: m.heapTotal,
    heapUsed: m.heapUsed,
    external: m.external,
    arrayBuffers: m.arrayBuffers,
    streamCount: m.streamCount,
  };
}
