/**
 * Benchmark: the event stream under load (docs/reliability.md, bench/README.md), on a durable
 * server. Streams are held by `lib/sse-readers.mjs`, the management-latency probe by another
 * instance of it, the slow consumers by `lib/slow-readers.py`. (Steady fan-out: `fanout.mjs`.)
 * 1. Reconnect storms, a PATCH every 100 ms going on: every stream destroyed at once and resumed
 *    with `Last-Event-ID` (a 503 retried after its `Retry-After`), (a) at once, (b) after the SDK's
 *    jittered backoff (`src/core/backoff.ts`), (c) at once against a full `maxStreams` cap while
 *    all want one. Until all (the cap) are back and current; 503s; Linux's listen-queue counters;
 *    `GET /api/v1/flags` and a PATCH in another environment every 20 ms, against the 3 s before.
 * 2. Slow consumers that never read, next to normal streams, under filler PATCHes, at
 *    `streamMaxBufferedBytes` 64 KiB: when the server cuts them (seen in the server process, and
 *    by the slow clients), its memory, the normal streams' latency; against a run without them.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import {
  BENCH_DIR,
  benchConfig,
  defer,
  fmt,
  knob,
  median,
  sleep,
  startChild,
  startServer,
  stats,
  table,
  tempDir,
} from './lib/util.mjs';

const PROBE = 'load.probe';
const MGMT = 'mgmt.toggle';
const fillerFlag = (i) => `fill-${String(i).padStart(3, '0')}-`.padEnd(128, 'x');

function settings() {
  const streams = knob('FLAGWIRE_BENCH_LOAD_STREAMS', 5000);
  return {
    streams,
    writeGapMs: 100,
    mgmtGapMs: 20,
    quietSeconds: 3,
    shedSeconds: 6,
    stormTimeoutSeconds: 60,
    shedMaxStreams: knob('FLAGWIRE_BENCH_LOAD_SHED_MAX_STREAMS', Math.round(streams * 0.4)),
    normalStreams: knob('FLAGWIRE_BENCH_LOAD_NORMAL', 1000),
    slowStreams: knob('FLAGWIRE_BENCH_LOAD_SLOW', 200),
    slowSeconds: knob('FLAGWIRE_BENCH_LOAD_SLOW_SECONDS', 15),
    fillRate: knob('FLAGWIRE_BENCH_LOAD_FILL_RATE', 80),
    fillerFlags: 64,
    maxBufferedBytes: knob('FLAGWIRE_BENCH_LOAD_MAX_BUFFERED', 64 * 1024),
  };
}

/** A durable server: environment `live` (the streams' flags) and `mgmt` (the flag the probe PATCHes: its changes go to no stream). */
async function startLoadServer(label, options, fillers = 0) {
  const others = Array.from({ length: 20 }, (_, i) => `load.other-${i}`);
  const live = [PROBE, ...others].map((key) => ({ key, type: 'boolean' }));
  for (let i = 0; i < fillers; i++) live.push({ key: fillerFlag(i), type: 'rollout', percentage: 0 });
  const { keys, config } = benchConfig({ live, mgmt: [{ key: MGMT, type: 'boolean' }] });
  const server = await startServer({ dataDir: tempDir('stream-load'), config, ...options }, label, {
    track: true,
  });
  return { ...server, keys, writes: [{ url: server.url, key: keys.live.full }] };
}

/**
 * `count` streams on `server`, then 3 s of the PATCHes every 100 ms, not counted: the collections
 * and compilations that follow the opening of thousands of streams would weigh on the first
 * storm's baseline, the 3 s of management calls before it.
 */
async function openReaders(s, server, count) {
  const readers = startChild('lib/sse-readers.mjs', 'stream readers');
  await readers.call('open', { url: server.url, key: server.keys.live.read, count }, 180_000);
  const warmUp = { writes: server.writes, flag: PROBE, durationMs: 3000, gapMs: s.writeGapMs };
  await readers.call('measure', warmUp, 60_000);
  return readers;
}

/** Samples the server (memory without GC, streams, unsent stream bytes) every `everyMs` until stopped. */
function startSampler(server, everyMs) {
  const samples = [];
  let stop = false;
  const done = (async () => {
    for (; !stop; await sleep(everyMs)) samples.push(await server.call('sample'));
    return samples;
  })();
  return {
    stop() {
      stop = true;
      return done;
    },
  };
}
const peak = (samples, k) => Math.max(...samples.map((x) => x[k]));

/** Linux's counters of connections dropped at a full listen queue and of SYN retransmissions (system-wide). */
function tcpCounters() {
  try {
    const [names, values] = readFileSync('/proc/net/netstat', 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('TcpExt:'))
      .map((l) => l.split(/\s+/));
    const get = (k) => Number(values[names.indexOf(k)]);
    return { listenOverflows: get('ListenOverflows'), synRetrans: get('TCPSynRetrans') };
  } catch {
    return undefined;
  }
}

function mgmtStats(samples) {
  const out = {};
  for (const call of ['list', 'patch']) {
    const mine = samples.filter((x) => x.call === call);
    const failed = mine.filter((x) => x.status !== 200);
    out[call] = {
      ...stats(mine.filter((x) => x.status === 200).map((x) => x.ms)),
      failed: failed.length,
      failures: [...new Set(failed.map((x) => x.status))],
    };
  }
  return out;
}

/** One storm: 3 s of management calls before it, then the storm with them; the PATCHes every 100 ms go on throughout. */
async function storm(s, server, readers, probe, mode, label, log, { extra = 0, target, minDurationMs } = {}) {
  const calls = [
    { name: 'list', method: 'GET', url: `${server.url}/api/v1/flags`, key: server.keys.live.full },
    { name: 'patch', method: 'PATCH', url: `${server.url}/api/v1/flags/${MGMT}`, key: server.keys.mgmt.full },
  ];
  await readers.call('writesOn', { writes: server.writes, flag: PROBE, gapMs: s.writeGapMs });
  await probe.call('mgmtOn', { calls, gapMs: s.mgmtGapMs });
  await sleep(s.quietSeconds * 1000);
  const quiet = mgmtStats(await probe.call('mgmtOff', {}, 60_000));
  const sampler = startSampler(server, 100);
  await probe.call('mgmtOn', { calls, gapMs: s.mgmtGapMs });
  const tcp0 = tcpCounters();
  const st = await readers.call(
    'storm',
    { mode, timeoutMs: s.stormTimeoutSeconds * 1000, extra, target, minDurationMs },
    180_000,
  );
  const tcp1 = tcpCounters();
  const during = await probe.call('mgmtOff', {}, 60_000);
  const serverSamples = await sampler.stop();
  const writes = await readers.call('writesOff');
  const inStorm = mgmtStats(
    during.filter((x) => x.atEpoch >= st.startedAtEpoch && x.atEpoch <= st.endedAtEpoch),
  );
  log(
    `  storm ${label}: ${st.back}/${st.target} back in ${fmt.ms(st.allBackMs, 0)}, current in ${fmt.ms(st.recoveryMs, 0)}; ` +
      `${st.refused} x 503, ${st.errors} errors; GET p99 ${fmt.ms(inStorm.list.p99)} (${fmt.ms(quiet.list.p99)} before)`,
  );
  return {
    mode: label,
    ...st,
    tcp: tcp0 && {
      listenOverflows: tcp1.listenOverflows - tcp0.listenOverflows,
      synRetrans: tcp1.synRetrans - tcp0.synRetrans,
    },
    backgroundWrites: writes,
    serverPeakStreams: peak(serverSamples, 'streams'),
    serverPeakRssBytes: peak(serverSamples, 'rss'),
    quiet,
    storm: inStorm,
    ratios: { listP99: inStorm.list.p99 / quiet.list.p99, patchP99: inStorm.patch.p99 / quiet.patch.p99 },
  };
}

/** The slow consumers (`lib/slow-readers.py`): resolves once all are open; `drain()` → what they saw. */
async function startSlowReaders(s, server) {
  const { hostname, port } = new URL(server.url);
  const args = [hostname, port, server.keys.live.read, s.slowStreams, 536, 4096].map(String);
  const child = spawn('python3', [join(BENCH_DIR, 'lib', 'slow-readers.py'), ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  defer(() => child.exitCode === null && child.kill());
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
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
  };
}

/** One run of part 2: `slow`, or `baseline` (the same without the slow streams). */
async function slowRun(s, kind, log) {
  const options = { streamMaxBufferedBytes: s.maxBufferedBytes };
  const server = await startLoadServer(`stream-load-${kind}`, options, s.fillerFlags);
  const readers = await openReaders(s, server, s.normalStreams);
  const slow = kind === 'slow' ? await startSlowReaders(s, server) : undefined;
  const streams = s.normalStreams + (slow ? s.slowStreams : 0);
  await server.streams(streams);
  const sampler = startSampler(server, 250);
  const t0 = Date.now();
  const filler = { flags: Array.from({ length: s.fillerFlags }, (_, i) => fillerFlag(i)), rate: s.fillRate };
  const m = await readers.call(
    'measure',
    { writes: server.writes, flag: PROBE, durationMs: s.slowSeconds * 1000, gapMs: s.writeGapMs, filler },
    s.slowSeconds * 1000 + 60_000,
  );
  const samples = await sampler.stop();
  const failures = m.filler.failures + m.probeFailures;
  if (failures > 0) throw new Error(`${failures} PATCHes failed: ${m.filler.lastError ?? m.probeLastError}`);
  const cuts = await server.call('cuts', {});
  const settled = await server.memory();
  const seen = await slow?.drain();
  await readers.close();
  await server.close();
  const r = {
    kind,
    streams,
    lastNormalAfterResponseMs: stats(m.samples.map((x) => x.fromResponseMs)),
    probePatches: m.samples.length + m.incomplete,
    incomplete: m.incomplete,
    filler: m.filler,
    errors: m.errors,
    drops: m.drops,
    peakRssBytes: peak(samples, 'rss'),
    peakHeapUsedBytes: peak(samples, 'heapUsed'),
    peakBufferedBytes: peak(samples, 'buffered'),
    heapUsedAfterGcBytes: settled.heapUsed,
    cuts: cuts.length,
    cutAfterSeconds: cuts.length ? stats(cuts.map((c) => (c.at - t0) / 1000)) : undefined,
    bufferedAtCut: cuts.length ? stats(cuts.map((c) => c.buffered)) : undefined,
    slowClients: seen && {
      opened: slow.opened,
      ended: seen.ended,
      stillOpen: seen.open,
      bytesMedian: median(seen.bytesReceived),
    },
    memoryTimeline: samples.map(({ at, rss, heapUsed, streams, buffered }) => {
      return { t: (at - t0) / 1000, rss, heapUsed, streams, buffered };
    }),
  };
  const last = r.lastNormalAfterResponseMs;
  log(
    `  slow consumers, ${kind}: ${streams} streams, normal last ${fmt.ms(last.median)}, ${cuts.length} cut`,
  );
  return r;
}

export async function run({ log }) {
  const s = settings();
  log(`  ${s.streams} streams; 1 PATCH / ${s.writeGapMs} ms; management calls every ${s.mgmtGapMs} ms`);
  const result = { settings: s, storms: [] };
  let server = await startLoadServer('stream-load', { pingIntervalMs: 600_000 });
  let readers = await openReaders(s, server, s.streams);
  let probe = startChild('lib/sse-readers.mjs', 'management probe');
  result.storms.push(await storm(s, server, readers, probe, 'immediate', 'at once', log));
  result.storms.push(await storm(s, server, readers, probe, 'sdk', 'SDK backoff', log));
  for (const c of [probe, readers, server]) await c.close();

  // (c): the cap is full; in the storm its streams reconnect at once with the others that want one.
  const cap = Math.min(s.streams, s.shedMaxStreams);
  server = await startLoadServer('stream-load-shed', { maxStreams: cap });
  readers = await openReaders(s, server, cap);
  probe = startChild('lib/sse-readers.mjs', 'management probe');
  const shed = { extra: s.streams - cap, target: cap, minDurationMs: s.shedSeconds * 1000 };
  result.storms.push(
    await storm(s, server, readers, probe, 'immediate', `at once, maxStreams ${cap}`, log, shed),
  );
  for (const c of [probe, readers, server]) await c.close();

  result.slowConsumers = { skipped: 'python3 not found' };
  if (spawnSync('python3', ['--version']).status === 0)
    result.slowConsumers = {
      baseline: await slowRun(s, 'baseline', log),
      slow: await slowRun(s, 'slow', log),
    };
  return { result, text: render(s, result) };
}

/** `a / b / c` of values through `unit`. */
const slash = (values, unit = String) => values.map((v) => unit(v)).join(' / ');

function render(s, r) {
  const rows = [];
  const row = (...cells) => rows.push(cells);
  for (const sm of r.storms) {
    const capped = sm.target < sm.streams;
    const head = `storm, ${sm.mode}: ${fmt.int(sm.streams)} reconnect, ${sm.revisionsDuringStorm} writes meanwhile`;
    row(head, '', 'before', 'ratio');
    const ms0 = (v) => fmt.ms(v, 0);
    row(
      `  ${capped ? `${sm.target} (the cap)` : 'all'} back (200) / back and current`,
      slash([sm.allBackMs, sm.recoveryMs], ms0),
    );
    row('  back, per stream: median / p99', slash([sm.backMs.median, sm.backMs.p99], ms0));
    row(
      '  503s / errors / drops / full syncs instead of resume',
      slash([sm.refused, sm.errors, sm.drops, sm.syncs]),
    );
    if (capped)
      row(
        `  still refused after ${(sm.durationMs / 1000).toFixed(1)} s; 503s per second`,
        `${sm.stillDown}; ${fmt.int(sm.refusedPerSecond)}`,
      );
    const ra = sm.retryAfterSeconds;
    if (ra) row('  Retry-After: min / median / max', `${slash([ra.min, ra.median, ra.max])} s`);
    if (sm.tcp)
      row(
        '  listen-queue overflows / SYN retransmits',
        slash([sm.tcp.listenOverflows, sm.tcp.synRetrans], fmt.int),
      );
    const bw = sm.backgroundWrites;
    if (bw.failures) row('  timed PATCHes that failed meanwhile', `${bw.failures} (${bw.lastError})`);
    row(
      '  server: peak streams / peak RSS',
      `${fmt.int(sm.serverPeakStreams)} / ${fmt.mb(sm.serverPeakRssBytes)}`,
    );
    for (const [call, label] of [
      ['list', 'GET /api/v1/flags'],
      ['patch', 'PATCH (other env.)'],
    ]) {
      const [a, b] = [sm.storm[call], sm.quiet[call]];
      const k = ['median', 'p99', 'max'];
      const ratios = k.map((x) => a[x] / b[x]);
      row(
        `  ${label} median / p99 / max (n=${a.n}/${b.n})`,
        slash(
          k.map((x) => a[x]),
          ms0,
        ),
        slash(
          k.map((x) => b[x]),
          ms0,
        ),
        slash(ratios, fmt.x),
      );
      if (a.failed + b.failed > 0) row('    ... failed', `${a.failed} ${a.failures}`, `${b.failed}`);
    }
  }
  const sc = r.slowConsumers;
  if (sc.skipped) row(`slow consumers: skipped (${sc.skipped})`);
  else {
    const { slow: w, baseline: o } = sc;
    const vs = (label, get, unit) => row(label, unit(get(w)), unit(get(o)), fmt.x(get(w) / get(o)));
    const limit = fmt.kb(s.maxBufferedBytes);
    row(
      `${s.normalStreams} normal + ${s.slowStreams} slow streams, limit ${limit}`,
      'with slow',
      'without',
      'ratio',
    );
    vs('  filler PATCH/s (~250 B frames)', (x) => x.filler.perSecond, fmt.int);
    vs('  last normal stream after PATCH 200, median', (x) => x.lastNormalAfterResponseMs.median, fmt.ms);
    vs('  ... p99', (x) => x.lastNormalAfterResponseMs.p99, fmt.ms);
    vs('  server peak RSS', (x) => x.peakRssBytes, fmt.mb);
    vs('  server peak heapUsed', (x) => x.peakHeapUsedBytes, fmt.mb);
    vs('  server heapUsed at the end, after GC', (x) => x.heapUsedAfterGcBytes, fmt.mb);
    vs('  server peak unsent stream bytes', (x) => x.peakBufferedBytes, fmt.mb);
    row('  streams cut by the server', `${w.cuts} of ${s.slowStreams}`, String(o.cuts));
    if (w.cuts > 0) {
      const c = w.cutAfterSeconds;
      row('  cut after: first / median / last', `${slash([c.min, c.median, c.max], (v) => v.toFixed(1))} s`);
      row(
        '  unsent bytes at cut: median / max',
        slash([w.bufferedAtCut.median, w.bufferedAtCut.max], fmt.kb),
      );
    }
    if (w.slowClients)
      row('  slow clients: stream ended / still open', slash([w.slowClients.ended, w.slowClients.stillOpen]));
    row(
      '  normal streams: errors / drops (must be 0)',
      slash([w.errors, w.drops]),
      slash([o.errors, o.drops]),
    );
  }
  return table('stream-load|figure|baseline|ratio', rows);
}
