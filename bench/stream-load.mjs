/**
 * Benchmark: the event stream at scale.
 *
 * The server runs in its own process with a durable `dataDir` (a temp dir), the streams in
 * another (`lib/load-readers.mjs`, raw `node:net`), the management-latency probe in a third
 * (`lib/load-probe.mjs`) and, in part 3, the slow consumers in a fourth (`lib/slow-readers.py`).
 *
 * 1. Steady state: 5,000 open `GET /sdk/events` streams and one PATCH toggling a flag every
 *    100 ms for 15 s (from the readers' process, one clock): per PATCH, the time from its 200
 *    to the last of the 5,000 streams having its frame (median, p99); the server's RSS and heap
 *    per stream (after `global.gc()`, 0 vs 5,000 streams); errors and dropped streams. Baseline:
 *    the same against the bare `node:http` SSE server of the fanout benchmark, which has its own
 *    5,000 streams open at the same time; the writes alternate between the two in 2 rounds.
 * 2. Reconnect storms, writes going on: every stream destroyed at once by the readers and
 *    reconnected with `Last-Event-ID` of the last frame it saw (a `503` is retried after its
 *    `Retry-After`): (a) at once, no backoff; (b) after the SDK's delay (1 s jittered into
 *    [0.5, 1] s, doubling after a failure, `src/core/backoff.ts`); (c) at once, against a server
 *    whose `maxStreams` (2,000) is full before the storm and below the 5,000 streams that want
 *    one in it, observed for at least 6 s. Measured: the time until all (in (c): the cap) are
 *    back and current (have the newest revision any stream has seen), 503s, Linux's listen-queue
 *    overflow counters, and the latency of `GET /api/v1/flags` and a `PATCH` (of a flag in
 *    another environment, so the probe adds no fan-out) sent every 20 ms from a process of their
 *    own during the storm vs. the same calls in the 3 s before it (the ratio is the figure).
 * 3. Slow consumers: 1,000 normal streams plus 200 that never read, under a filler write load of
 *    128-character-key flags (~250-byte frames) with the server's `streamMaxBufferedBytes` at
 *    64 KiB: when and how many of the slow streams the server cuts (and the unsent bytes at the
 *    cut), the server's RSS/heap/unsent bytes over time, and the normal streams' propagation
 *    latency, against the same run without the slow streams. The cut is observed in the server
 *    process by wrapping `ServerResponse#destroy` (`lib/load-server-child.mjs`), and confirmed by
 *    the slow clients seeing their stream end once they read again.
 *
 * Settings (defaults): FLAGWIRE_BENCH_LOAD_STREAMS (5000), FLAGWIRE_BENCH_LOAD_SECONDS (15, per
 * server, split into FLAGWIRE_BENCH_LOAD_ROUNDS (2) rounds),
 * FLAGWIRE_BENCH_LOAD_WRITE_GAP_MS (100), FLAGWIRE_BENCH_LOAD_SHED_MAX_STREAMS (40 % of the
 * streams), FLAGWIRE_BENCH_LOAD_NORMAL (1000), FLAGWIRE_BENCH_LOAD_SLOW (200),
 * FLAGWIRE_BENCH_LOAD_SLOW_SECONDS (15), FLAGWIRE_BENCH_LOAD_FILL_RATE (80 PATCH/s),
 * FLAGWIRE_BENCH_LOAD_MAX_BUFFERED (65536), FLAGWIRE_BENCH_TMPDIR (the OS temp dir).
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import {
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
} from './lib/util.mjs';

export const name = 'stream-load';

const env = process.env;

function settings() {
  const streams = Number(env.FLAGWIRE_BENCH_LOAD_STREAMS ?? 5000);
  return {
    streams,
    steadySeconds: Number(env.FLAGWIRE_BENCH_LOAD_SECONDS ?? 15),
    steadyRounds: Number(env.FLAGWIRE_BENCH_LOAD_ROUNDS ?? 2),
    writeGapMs: Number(env.FLAGWIRE_BENCH_LOAD_WRITE_GAP_MS ?? 100),
    mgmtGapMs: 20,
    quietSeconds: 3,
    shedSeconds: 6,
    stormTimeoutSeconds: 60,
    // Storm (c): a cap below the number of streams, so most reconnects are shed at first.
    shedMaxStreams: Number(env.FLAGWIRE_BENCH_LOAD_SHED_MAX_STREAMS ?? Math.round(streams * 0.4)),
    normalStreams: Number(env.FLAGWIRE_BENCH_LOAD_NORMAL ?? 1000),
    slowStreams: Number(env.FLAGWIRE_BENCH_LOAD_SLOW ?? 200),
    slowSeconds: Number(env.FLAGWIRE_BENCH_LOAD_SLOW_SECONDS ?? 15),
    fillRate: Number(env.FLAGWIRE_BENCH_LOAD_FILL_RATE ?? 80),
    fillerFlags: 64,
    maxBufferedBytes: Number(env.FLAGWIRE_BENCH_LOAD_MAX_BUFFERED ?? 64 * 1024),
    slowMss: 536,
    slowRcvbuf: 4096,
    tmpDir: env.FLAGWIRE_BENCH_TMPDIR ?? os.tmpdir(),
  };
}

const PROBE_FLAG = 'load.probe';
const MGMT_FLAG = 'mgmt.toggle';
const OTHER_FLAGS = 20;
const stats = (values) => ({
  n: values.length,
  min: values.length ? Math.min(...values) : Number.NaN,
  median: median(values),
  p99: percentile(values, 99),
  max: values.length ? Math.max(...values) : Number.NaN,
});

// ---------------------------------------------------------------- set-up

const KEY_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const apiKey = () =>
  `fw_live_${Array.from({ length: 32 }, () => KEY_CHARS[randomInt(KEY_CHARS.length)]).join('')}`;

/** Flags of 128 characters, so each of their frames is ~250 bytes. */
const fillerFlag = (i) => `fill-${String(i).padStart(3, '0')}-`.padEnd(128, 'x');

/**
 * Project `bench`: environment `live` (the streams' flags, a full and a read-only key) and
 * environment `mgmt` (the flag the management probe PATCHes: its changes go to no stream).
 */
function benchConfig(fillerFlags) {
  const keys = { full: apiKey(), read: apiKey(), mgmt: apiKey() };
  const flags = [{ key: PROBE_FLAG, type: 'boolean' }];
  for (let i = 0; i < OTHER_FLAGS; i++) flags.push({ key: `load.other-${i}`, type: 'boolean' });
  for (let i = 0; i < fillerFlags; i++) flags.push({ key: fillerFlag(i), type: 'rollout', percentage: 0 });
  const config = {
    projects: [
      {
        key: 'bench',
        environments: [
          {
            key: 'live',
            apiKeys: [
              { key: keys.full, access: 'full' },
              { key: keys.read, access: 'read-only' },
            ],
            flags,
          },
          {
            key: 'mgmt',
            apiKeys: [{ key: keys.mgmt, access: 'full' }],
            flags: [{ key: MGMT_FLAG, type: 'boolean' }],
          },
        ],
      },
    ],
  };
  return { keys, config };
}

/** A durable server (fresh data dir) in its own process, with the benchmark's instrumentation. */
async function startLoadServer(s, label, options = {}, fillerFlags = 0) {
  const dataDir = mkdtempSync(join(s.tmpDir, 'flagwire-stream-load-'));
  const { keys, config } = benchConfig(fillerFlags);
  const server = await startServerChild({ dataDir, config, ...options }, label, 'load-server-child.mjs');
  return {
    ...server,
    keys,
    async close() {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Reader and probe processes not closed yet (`run` closes them whatever happens). */
const running = new Set();

/** A child process of `lib/` driven over IPC. */
function startProcess(script, label) {
  const { child, exited } = spawnNode(join(BENCH_DIR, 'lib', script));
  const call = rpc(child, label);
  // A send on a channel that closed meanwhile: the call's own timeout reports it.
  child.on('error', () => {});
  let closing;
  const proc = {
    call,
    close() {
      running.delete(proc);
      closing ??= (async () => {
        if (child.exitCode === null && child.connected) await call('close', {}, 10_000).catch(() => {});
        if (child.exitCode === null) child.kill();
        await exited;
      })();
      return closing;
    },
  };
  running.add(proc);
  return proc;
}

async function startReaders(server, label = 'stream readers') {
  const readers = startProcess('load-readers.mjs', label);
  await readers.call('configure', {
    url: server.url,
    key: server.keys.read,
    fullKey: server.keys.full,
    probeFlag: PROBE_FLAG,
  });
  return readers;
}

async function waitForStreamCount(server, count, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const sample = await server.memory();
    if (sample.streamCount === count) return sample;
    if (Date.now() > until)
      throw new Error(`server has ${sample.streamCount} streams open, expected ${count}`);
    await sleep(100);
  }
}

/** Samples the server (memory without GC, streams, unsent stream bytes) every `everyMs` until stopped. */
function startSampler(server, everyMs = 250) {
  const samples = [];
  let stop = false;
  const done = (async () => {
    while (!stop) {
      samples.push(await server.call('sample'));
      await sleep(everyMs);
    }
  })();
  return {
    async stop() {
      stop = true;
      await done;
      return samples;
    },
  };
}

/**
 * Linux's TCP counters of connections refused at the listen queue (`ListenOverflows`: the
 * accept queue was full, the SYN or handshake was dropped) and of SYN retransmissions, from
 * `/proc/net/netstat`. They are system-wide; `undefined` where unreadable.
 */
function tcpCounters() {
  try {
    const lines = readFileSync('/proc/net/netstat', 'utf8').split('\n');
    const names = lines.find((l) => l.startsWith('TcpExt:'))?.split(/\s+/);
    const values = lines.filter((l) => l.startsWith('TcpExt:'))[1]?.split(/\s+/);
    const get = (k) => Number(values[names.indexOf(k)]);
    return { listenOverflows: get('ListenOverflows'), synRetrans: get('TCPSynRetrans') };
  } catch {
    return undefined;
  }
}

const counterDelta = (a, b) =>
  a && b
    ? { listenOverflows: b.listenOverflows - a.listenOverflows, synRetrans: b.synRetrans - a.synRetrans }
    : undefined;

const peak = (samples, key) => Math.max(...samples.map((x) => x[key]));

// ---------------------------------------------------------------- 1. steady state

/**
 * The baseline of part 1: the bare `node:http` SSE server of the fanout benchmark
 * (`lib/bare-sse-child.mjs`: no auth, no store, one frame written to every stream per PATCH),
 * with a first frame of the same shape and size as ours.
 */
async function startBareServer() {
  const flags = { [PROBE_FLAG]: { key: PROBE_FLAG, type: 'boolean', enabled: false, version: 1 } };
  for (let i = 0; i < OTHER_FLAGS; i++) {
    const key = `load.other-${i}`;
    flags[key] = { key, type: 'boolean', enabled: false, version: i + 2 };
  }
  // Its PATCHes count revisions from 1.
  const id = 'bare:0';
  const data = JSON.stringify({ revision: 0, epoch: 'bare', eventId: id, flags });
  const firstFrame = `retry: 1000\nid: ${id}\nevent: flags:sync\ndata: ${data}\n\n`;
  const bare = await startBareSseChild({ firstFrame, flag: PROBE_FLAG });
  return { ...bare, keys: { full: 'none', read: 'none', mgmt: 'none' } };
}

/** Opens the streams of part 1 on `server`, with its memory before (after a warm-up) and after. */
async function openStreams(s, server, log, label) {
  // Warm-up: a few streams and PATCHes, so lazily created code and buffers are not counted
  // as per-stream memory; then all closed again.
  const warm = await startReaders(server, 'warm-up readers');
  await warm.call('open', { count: 20 });
  await warm.call('measure', { durationMs: 300, gapMs: 30 });
  await warm.close();
  await waitForStreamCount(server, 0);
  const before = await server.memory();

  const readers = await startReaders(server, `${label} readers`);
  const opened = await readers.call('open', { count: s.streams }, 180_000);
  await waitForStreamCount(server, s.streams);
  const after = await server.memory();
  log(`  ${label}: ${fmt.int(s.streams)} streams open in ${fmt.ms(opened.ms, 0)}`);
  return { label, server, readers, openMs: opened.ms, before, after, rounds: [] };
}

/** One round of part 1 on a set of streams: a PATCH every `writeGapMs` for the round's time. */
async function steadyRound(s, set, log) {
  const durationMs = (s.steadySeconds * 1000) / s.steadyRounds;
  const cpu0 = await set.server.cpu();
  const m = await set.readers.call('measure', { durationMs, gapMs: s.writeGapMs }, durationMs + 60_000);
  const cpu1 = await set.server.cpu();
  const patches = m.samples.length + m.incomplete;
  const round = {
    samples: m.samples,
    patches,
    incomplete: m.incomplete,
    probeFailures: m.probeFailures,
    serverCpuMs: (cpu1.user - cpu0.user + cpu1.system - cpu0.system) / 1000,
    readerCpuMs: m.readerCpuMs,
    errors: m.errors,
    drops: m.drops,
  };
  set.rounds.push(round);
  log(
    `  ${set.label} round ${set.rounds.length}/${s.steadyRounds}: ${patches} PATCHes, last stream ` +
      `${fmt.ms(median(m.samples.map((x) => x.fromResponseMs)))} after the 200 (median), ` +
      `${m.errors} errors, ${m.drops} drops`,
  );
}

/** Part 1's figures of a set of streams, over all its rounds. */
function steadySummary(s, set) {
  const samples = set.rounds.flatMap((r) => r.samples);
  const sum = (k) => set.rounds.reduce((a, r) => a + r[k], 0);
  const patches = sum('patches');
  const { before, after } = set;
  return {
    openMs: set.openMs,
    patches,
    incomplete: sum('incomplete'),
    probeFailures: sum('probeFailures'),
    lastStreamAfterResponseMs: stats(samples.map((x) => x.fromResponseMs)),
    lastStreamAfterSendMs: stats(samples.map((x) => x.fromSendMs)),
    firstStreamAfterSendMs: stats(samples.map((x) => x.firstFromSendMs)),
    patchRoundTripMs: stats(samples.map((x) => x.toResponseMs)),
    serverCpuMsPerPatch: sum('serverCpuMs') / patches,
    readerCpuMsPerPatch: sum('readerCpuMs') / patches,
    perStream: {
      rssBytes: (after.rss - before.rss) / s.streams,
      heapUsedBytes: (after.heapUsed - before.heapUsed) / s.streams,
      heapTotalBytes: (after.heapTotal - before.heapTotal) / s.streams,
      externalBytes: (after.external - before.external) / s.streams,
    },
    memoryBefore: pickMemory(before),
    memoryAfter: pickMemory(after),
    errors: sum('errors'),
    drops: sum('drops'),
    rounds: set.rounds.map((r) => ({
      patches: r.patches,
      lastStreamAfterResponseMedianMs: median(r.samples.map((x) => x.fromResponseMs)),
      lastStreamAfterResponseP99Ms: percentile(
        r.samples.map((x) => x.fromResponseMs),
        99,
      ),
    })),
  };
}

function pickMemory(m) {
  const { rss, heapTotal, heapUsed, external, arrayBuffers, streamCount } = m;
  return { rss, heapTotal, heapUsed, external, arrayBuffers, streamCount };
}

// ---------------------------------------------------------------- 2. reconnect storms

function mgmtStats(samples) {
  const out = {};
  for (const call of ['list', 'patch']) {
    const mine = samples.filter((x) => x.call === call);
    out[call] = {
      ...stats(mine.filter((x) => x.status === 200).map((x) => x.ms)),
      failed: mine.filter((x) => x.status !== 200).length,
      failures: [...new Set(mine.filter((x) => x.status !== 200).map((x) => String(x.status)))],
    };
  }
  return out;
}

async function startProbe(server) {
  const probe = startProcess('load-probe.mjs', 'management probe');
  const payload = {
    list: { url: `${server.url}/api/v1/flags`, key: server.keys.full },
    patch: { url: `${server.url}/api/v1/flags/${MGMT_FLAG}`, key: server.keys.mgmt },
  };
  return {
    start: (gapMs) => probe.call('start', { ...payload, gapMs }),
    stop: () => probe.call('stop', {}, 60_000),
    close: () => probe.close(),
  };
}

/** One storm: 3 s of management calls without it, then the storm with them; writes go on throughout. */
async function storm(s, server, readers, probe, mode, label, log, { extra = 0, target, minDurationMs } = {}) {
  await readers.call('writesOn', { gapMs: s.writeGapMs });
  await probe.start(s.mgmtGapMs);
  await sleep(s.quietSeconds * 1000);
  const quiet = await probe.stop();
  const cutsBefore = (await server.call('cuts', {})).length;
  const sampler = startSampler(server, 100);
  await probe.start(s.mgmtGapMs);
  const tcp0 = tcpCounters();
  const st = await readers.call(
    'storm',
    { mode, timeoutMs: s.stormTimeoutSeconds * 1000, extra, target, minDurationMs },
    180_000,
  );
  const tcp = counterDelta(tcp0, tcpCounters());
  const during = await probe.stop();
  const serverSamples = await sampler.stop();
  const writes = await readers.call('writesOff');
  const cuts = (await server.call('cuts', {})).length - cutsBefore;
  const end = st.endedAtEpoch;
  const inStorm = during.filter((x) => x.atEpoch >= st.startedAtEpoch && x.atEpoch <= end);
  const result = {
    mode: label,
    streams: st.streams,
    target: st.target,
    stillRefused: st.stillDown,
    recovered: st.recoveryMs !== undefined,
    recoveryMs: st.recoveryMs,
    allBackMs: st.allBackMs,
    back: st.back,
    current: st.current,
    backMs: stats(st.backTimesMs),
    windowMs: st.durationMs,
    refused: st.refused,
    refusedPerSecond: st.refused / (st.durationMs / 1000),
    retryAfterSeconds: st.retryAfterMs.length ? stats(st.retryAfterMs.map((x) => x / 1000)) : undefined,
    errors: st.errors,
    errorCodes: st.errorCodes,
    drops: st.drops,
    fullSyncs: st.syncs,
    serverCuts: cuts,
    tcp,
    revisionsDuringStorm: st.revisionsDuringStorm,
    backgroundWrites: writes,
    serverPeakStreams: peak(serverSamples, 'streamCount'),
    serverPeakRssBytes: peak(serverSamples, 'rss'),
    quiet: mgmtStats(quiet),
    storm: mgmtStats(inStorm),
  };
  result.ratios = {
    listMedian: result.storm.list.median / result.quiet.list.median,
    listP99: result.storm.list.p99 / result.quiet.list.p99,
    listMax: result.storm.list.max / result.quiet.list.max,
    patchMedian: result.storm.patch.median / result.quiet.patch.median,
    patchP99: result.storm.patch.p99 / result.quiet.patch.p99,
    patchMax: result.storm.patch.max / result.quiet.patch.max,
  };
  log(
    `  storm ${label}: ${st.back}/${st.target} back in ${fmt.ms(st.allBackMs, 0)}, back and current in ` +
      `${fmt.ms(st.recoveryMs, 0)}; ${st.refused} x 503, ${st.errors} errors; management GET p99 ` +
      `${fmt.ms(result.storm.list.p99)} vs ${fmt.ms(result.quiet.list.p99)} quiet, PATCH p99 ` +
      `${fmt.ms(result.storm.patch.p99)} vs ${fmt.ms(result.quiet.patch.p99)}`,
  );
  return result;
}

// ---------------------------------------------------------------- 3. slow consumers

function python() {
  const found = spawnSync('python3', ['--version'], { encoding: 'utf8' });
  return found.status === 0 ? 'python3' : undefined;
}

/** The slow consumers (`lib/slow-readers.py`): resolves once all are open; `drain()` → what they saw. */
async function startSlowReaders(s, server) {
  const u = new URL(server.url);
  const child = spawn(
    python(),
    [
      join(BENCH_DIR, 'lib', 'slow-readers.py'),
      u.hostname,
      u.port,
      server.keys.read,
      String(s.slowStreams),
      String(s.slowMss),
      String(s.slowRcvbuf),
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const nextLine = async () => {
    const { value, done } = await lines.next();
    if (done) throw new Error('slow readers exited early');
    return JSON.parse(value);
  };
  const opened = await nextLine();
  return {
    opened,
    async drain() {
      child.stdin.write('drain\n');
      const seen = await nextLine();
      await exited;
      return seen;
    },
    kill() {
      if (child.exitCode === null) child.kill();
    },
  };
}

/** One run of part 3: `slow` or `baseline` (the same without the slow streams). */
async function slowRun(s, kind, log) {
  const server = await startLoadServer(
    s,
    `stream-load-${kind}`,
    { streamMaxBufferedBytes: s.maxBufferedBytes },
    s.fillerFlags,
  );
  let readers;
  let slow;
  try {
    readers = await startReaders(server);
    await readers.call('open', { count: s.normalStreams }, 120_000);
    if (kind === 'slow') slow = await startSlowReaders(s, server);
    const streams = s.normalStreams + (slow ? s.slowStreams : 0);
    await waitForStreamCount(server, streams);
    const sampler = startSampler(server);
    const t0 = Date.now();
    const m = await readers.call(
      'measure',
      {
        durationMs: s.slowSeconds * 1000,
        gapMs: s.writeGapMs,
        filler: { flags: Array.from({ length: s.fillerFlags }, (_, i) => fillerFlag(i)), rate: s.fillRate },
      },
      s.slowSeconds * 1000 + 60_000,
    );
    const samples = await sampler.stop();
    const cuts = await server.call('cuts', {});
    const settled = await server.memory();
    const seen = await slow?.drain();
    const end = samples.at(-1);
    const result = {
      kind,
      streams,
      lastNormalAfterResponseMs: stats(m.samples.map((x) => x.fromResponseMs)),
      lastNormalAfterSendMs: stats(m.samples.map((x) => x.fromSendMs)),
      probePatches: m.samples.length + m.incomplete,
      incomplete: m.incomplete,
      filler: m.filler,
      errors: m.errors,
      drops: m.drops,
      peakRssBytes: peak(samples, 'rss'),
      peakHeapUsedBytes: peak(samples, 'heapUsed'),
      peakExternalBytes: peak(samples, 'external'),
      peakStreamBufferedBytes: peak(samples, 'streamBufferedBytes'),
      endRssBytes: end.rss,
      endHeapUsedBytes: end.heapUsed,
      settledAfterGc: pickMemory(settled),
      streamsAtEnd: end.streamCount,
      cuts: cuts.length,
      cutAfterSeconds: cuts.length ? stats(cuts.map((c) => (c.at - t0) / 1000)) : undefined,
      bufferedAtCut: cuts.length ? stats(cuts.map((c) => c.buffered)) : undefined,
      slowClients: seen && {
        opened: slow.opened,
        ended: seen.ended,
        stillOpen: seen.open,
        bytesReceivedMedian: median(seen.bytesReceived),
      },
      memoryTimeline: samples.map((x) => ({
        t: (x.at - t0) / 1000,
        rss: x.rss,
        heapUsed: x.heapUsed,
        streams: x.streamCount,
        buffered: x.streamBufferedBytes,
      })),
    };
    log(
      `  slow consumers, ${kind}: ${result.streams} streams, normal last ${fmt.ms(result.lastNormalAfterResponseMs.median)} ` +
        `(p99 ${fmt.ms(result.lastNormalAfterResponseMs.p99)}), filler ${fmt.int(m.filler.perSecond)} PATCH/s, ` +
        `${cuts.length} cut, peak RSS ${fmt.mb(result.peakRssBytes)}, peak unsent ${fmt.mb(result.peakStreamBufferedBytes)}`,
    );
    return result;
  } finally {
    slow?.kill();
    await readers?.close();
    await server.close();
  }
}

// ---------------------------------------------------------------- run

/** The fd hard limit children get (`spawnNode` raises the soft limit up to it). */
function fdHardLimit() {
  const out = spawnSync('bash', ['-c', 'ulimit -Hn'], { encoding: 'utf8' });
  const n = Number(out.stdout?.trim());
  return out.status === 0 && Number.isFinite(n) ? n : Number.POSITIVE_INFINITY;
}

export async function run({ log = console.log } = {}) {
  try {
    return await runParts(log);
  } finally {
    for (const proc of [...running]) await proc.close();
  }
}

async function runParts(log) {
  const s = settings();
  // The server briefly holds old and new sockets in a storm; the readers hold one per stream.
  const fds = fdHardLimit();
  if (2 * s.streams + 200 > fds)
    log(`  warning: ${s.streams} streams may exceed the fd limit of ${fds} (ulimit -Hn) in the storms`);
  log(
    `  durable server (data dir in ${s.tmpDir}); ${s.streams} streams; 1 PATCH / ${s.writeGapMs} ms; ` +
      `management calls every ${s.mgmtGapMs} ms; slow part: ${s.normalStreams} + ${s.slowStreams} slow, ` +
      `streamMaxBufferedBytes ${s.maxBufferedBytes}, filler ${s.fillRate} PATCH/s`,
  );
  const result = { settings: s };

  // 1: the bare SSE server (baseline) and ours, each with its own 5,000 streams, in
  // alternating rounds of writes. Ours has no pings (as in fanout: the bare server has none).
  const bare = await startBareServer();
  let server;
  let bareSet;
  let readers;
  let probe;
  try {
    server = await startLoadServer(s, 'stream-load', { pingIntervalMs: 600_000 });
    bareSet = await openStreams(s, bare, log, 'bare');
    const ourSet = await openStreams(s, server, log, 'ours');
    readers = ourSet.readers;
    for (let round = 0; round < s.steadyRounds; round++)
      for (const set of [bareSet, ourSet]) await steadyRound(s, set, log);
    await bareSet.readers.close();
    await bare.close();
    result.steady = steadySummary(s, ourSet);
    result.steadyBare = steadySummary(s, bareSet);

    // 2 (a, b): storms on the same server and streams.
    probe = await startProbe(server);
    result.storms = [];
    result.storms.push(await storm(s, server, readers, probe, 'immediate', 'at once', log));
    result.storms.push(await storm(s, server, readers, probe, 'sdk', 'SDK backoff', log));
    result.steady.countersAfterStorms = await readers.call('counters');
  } finally {
    await probe?.close();
    await bareSet?.readers.close();
    await readers?.close();
    await server?.close();
    await bare.close();
  }

  // 2c: the same storm against a server whose maxStreams is below the number of streams.
  server = await startLoadServer(s, 'stream-load-shed', { maxStreams: s.shedMaxStreams });
  readers = undefined;
  probe = undefined;
  try {
    readers = await startReaders(server);
    probe = await startProbe(server);
    // The cap is full; in the storm the streams reconnect at once together with the others
    // that want one too, and it is over once the cap is full again with current streams.
    const cap = Math.min(s.streams, s.shedMaxStreams);
    await readers.call('open', { count: cap }, 180_000);
    result.storms.push(
      await storm(s, server, readers, probe, 'immediate', `at once, maxStreams ${cap}`, log, {
        extra: s.streams - cap,
        target: cap,
        minDurationMs: s.shedSeconds * 1000,
      }),
    );
  } finally {
    await probe?.close();
    await readers?.close();
    await server.close();
  }

  // 3
  if (python()) {
    const baseline = await slowRun(s, 'baseline', log);
    const slow = await slowRun(s, 'slow', log);
    result.slowConsumers = { baseline, slow };
  } else {
    result.slowConsumers = { skipped: 'python3 not found (needed to open slow streams with a small MSS)' };
    log(`  slow consumers skipped: ${result.slowConsumers.skipped}`);
  }

  return { result, text: render(s, result) };
}

// ---------------------------------------------------------------- table

function render(s, r) {
  const x = (v) => (Number.isFinite(v) ? `${v.toFixed(2)}x` : '-');
  const rows = [];
  const row = (what, value, baseline = '', ratio = '') => rows.push({ what, value, baseline, ratio });
  const st = r.steady;
  const sb = r.steadyBare;
  const vs = (what, pick, unit) => row(what, unit(pick(st)), unit(pick(sb)), x(pick(st) / pick(sb)));
  row(
    `1. steady: ${fmt.int(s.streams)} streams, 1 PATCH / ${s.writeGapMs} ms, ${st.patches}/${sb.patches} PATCHes`,
    'ours',
    'bare node:http',
    'ours/bare',
  );
  vs(
    '  time to open all streams',
    (m) => m.openMs,
    (v) => fmt.ms(v, 0),
  );
  vs(`  last of ${s.streams} after PATCH 200, median`, (m) => m.lastStreamAfterResponseMs.median, fmt.ms);
  vs('    ... p99', (m) => m.lastStreamAfterResponseMs.p99, fmt.ms);
  vs('    ... max', (m) => m.lastStreamAfterResponseMs.max, fmt.ms);
  vs(`  last of ${s.streams} after PATCH sent, median`, (m) => m.lastStreamAfterSendMs.median, fmt.ms);
  vs('    ... p99', (m) => m.lastStreamAfterSendMs.p99, fmt.ms);
  vs('  first stream after PATCH sent, median', (m) => m.firstStreamAfterSendMs.median, fmt.ms);
  vs('  PATCH round trip, median', (m) => m.patchRoundTripMs.median, fmt.ms);
  vs('  server CPU per PATCH (fan-out incl.)', (m) => m.serverCpuMsPerPatch, fmt.ms);
  vs("  readers' process CPU per PATCH", (m) => m.readerCpuMsPerPatch, fmt.ms);
  vs('  server RSS per stream (after GC)', (m) => m.perStream.rssBytes, fmt.kb);
  vs('  server heapUsed per stream (after GC)', (m) => m.perStream.heapUsedBytes, fmt.kb);
  row(
    '  errors / drops / PATCHes some stream missed (all 0)',
    `${st.errors} / ${st.drops} / ${st.incomplete + st.probeFailures}`,
    `${sb.errors} / ${sb.drops} / ${sb.incomplete + sb.probeFailures}`,
  );
  for (const sm of r.storms) {
    const capped = sm.target < sm.streams;
    row(
      `2. storm, ${sm.mode}: ${fmt.int(sm.streams)} reconnect, ${sm.revisionsDuringStorm} writes meanwhile`,
      '',
      'no storm',
      'storm/no',
    );
    const missed = `not within ${s.stormTimeoutSeconds} s`;
    row(capped ? `  ${sm.target} (the cap) back (200)` : '  all back (200)', fmt.ms(sm.allBackMs, 0));
    row(
      capped ? `  ${sm.target} (the cap) back and current` : '  all back and current',
      sm.recovered ? fmt.ms(sm.recoveryMs, 0) : missed,
    );
    if (capped) {
      row(
        `  still refused after ${(sm.windowMs / 1000).toFixed(1)} s (over the cap)`,
        fmt.int(sm.stillRefused),
      );
      row('  503s per second over that time', fmt.int(sm.refusedPerSecond));
    }
    if (sm.retryAfterSeconds)
      row(
        '  Retry-After: min / median / max',
        `${sm.retryAfterSeconds.min} / ${sm.retryAfterSeconds.median} / ${sm.retryAfterSeconds.max} s`,
      );
    row('  back, per stream: median / p99', `${fmt.ms(sm.backMs.median, 0)} / ${fmt.ms(sm.backMs.p99, 0)}`);
    row(
      '  503s / errors / drops / syncs instead of resume',
      `${sm.refused} / ${sm.errors} / ${sm.drops} / ${sm.fullSyncs}`,
    );
    if (sm.backgroundWrites.failures > 0)
      row(
        '  timed PATCHes that failed meanwhile',
        `${sm.backgroundWrites.failures} (${sm.backgroundWrites.lastError})`,
      );
    if (sm.tcp)
      row(
        '  listen-queue overflows / SYN retransmits',
        `${fmt.int(sm.tcp.listenOverflows)} / ${fmt.int(sm.tcp.synRetrans)}`,
      );
    row(
      '  server: peak open streams / peak RSS',
      `${fmt.int(sm.serverPeakStreams)} / ${fmt.mb(sm.serverPeakRssBytes)}`,
    );
    for (const [call, label] of [
      ['list', 'GET /api/v1/flags'],
      ['patch', 'PATCH (other env.)'],
    ]) {
      const a = sm.storm[call];
      const b = sm.quiet[call];
      row(`  ${label} median (n=${a.n}/${b.n})`, fmt.ms(a.median), fmt.ms(b.median), x(a.median / b.median));
      row('    ... p99', fmt.ms(a.p99), fmt.ms(b.p99), x(a.p99 / b.p99));
      row('    ... max', fmt.ms(a.max), fmt.ms(b.max), x(a.max / b.max));
      if (a.failed + b.failed > 0) row('    ... failed', `${a.failed} ${a.failures}`, `${b.failed}`);
    }
  }
  const [now, sdk] = r.storms;
  row('2. SDK backoff vs at once', 'SDK backoff', 'at once', 'SDK/at once');
  row(
    '  all back and current',
    fmt.ms(sdk.recoveryMs, 0),
    fmt.ms(now.recoveryMs, 0),
    x(sdk.recoveryMs / now.recoveryMs),
  );
  if (sdk.tcp && now.tcp)
    row(
      '  listen-queue overflows',
      fmt.int(sdk.tcp.listenOverflows),
      fmt.int(now.tcp.listenOverflows),
      x(sdk.tcp.listenOverflows / now.tcp.listenOverflows),
    );
  for (const [k, label] of [
    ['listP99', 'GET /api/v1/flags p99, storm/no storm'],
    ['patchP99', 'PATCH p99, storm/no storm'],
  ])
    row(`  ${label}`, x(sdk.ratios[k]), x(now.ratios[k]), x(sdk.ratios[k] / now.ratios[k]));
  const sc = r.slowConsumers;
  if (sc.skipped) row(`3. slow consumers: skipped (${sc.skipped})`);
  else {
    const { slow, baseline } = sc;
    row(
      `3. ${s.normalStreams} normal + ${s.slowStreams} slow streams, limit ${fmt.kb(s.maxBufferedBytes)}`,
      'with slow',
      'without',
      'with/without',
    );
    row(
      '  filler PATCH/s (~250 B frames)',
      fmt.int(slow.filler.perSecond),
      fmt.int(baseline.filler.perSecond),
      x(slow.filler.perSecond / baseline.filler.perSecond),
    );
    for (const [k, label] of [
      ['median', 'median'],
      ['p99', 'p99'],
    ])
      row(
        `  last normal stream after PATCH 200, ${label}`,
        fmt.ms(slow.lastNormalAfterResponseMs[k]),
        fmt.ms(baseline.lastNormalAfterResponseMs[k]),
        x(slow.lastNormalAfterResponseMs[k] / baseline.lastNormalAfterResponseMs[k]),
      );
    row(
      '  server peak RSS',
      fmt.mb(slow.peakRssBytes),
      fmt.mb(baseline.peakRssBytes),
      x(slow.peakRssBytes / baseline.peakRssBytes),
    );
    row(
      '  server peak heapUsed',
      fmt.mb(slow.peakHeapUsedBytes),
      fmt.mb(baseline.peakHeapUsedBytes),
      x(slow.peakHeapUsedBytes / baseline.peakHeapUsedBytes),
    );
    row(
      '  server heapUsed at the end, after GC',
      fmt.mb(slow.settledAfterGc.heapUsed),
      fmt.mb(baseline.settledAfterGc.heapUsed),
      x(slow.settledAfterGc.heapUsed / baseline.settledAfterGc.heapUsed),
    );
    row(
      '  server peak unsent stream bytes',
      fmt.mb(slow.peakStreamBufferedBytes),
      fmt.mb(baseline.peakStreamBufferedBytes),
    );
    row('  streams cut by the server', `${slow.cuts} of ${s.slowStreams}`, String(baseline.cuts));
    if (slow.cuts > 0) {
      const c = slow.cutAfterSeconds;
      row(
        '  cut after: first / median / last',
        `${c.min.toFixed(1)} / ${c.median.toFixed(1)} / ${c.max.toFixed(1)} s`,
      );
      row(
        '  unsent bytes at cut: median / max',
        `${fmt.kb(slow.bufferedAtCut.median)} / ${fmt.kb(slow.bufferedAtCut.max)}`,
      );
    }
    if (slow.slowClients)
      row(
        '  slow clients: stream ended / still open',
        `${slow.slowClients.ended} / ${slow.slowClients.stillOpen}`,
        '',
        `(${fmt.kb(slow.slowClients.bytesReceivedMedian)} each)`,
      );
    row(
      '  normal streams: errors / drops (must be 0)',
      `${slow.errors} / ${slow.drops}`,
      `${baseline.errors} / ${baseline.drops}`,
    );
  }
  return table(rows, [
    { key: 'what', title: 'stream-load', align: 'left' },
    { key: 'value', title: 'figure' },
    { key: 'baseline', title: 'baseline' },
    { key: 'ratio', title: 'ratio' },
  ]);
}
