/** Benchmark `stream-load`: reconnect storms against the calls before them; slow consumers against none. */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import * as u from './lib/util.mjs';

const { fmt, stats } = u;
const PROBE = 'load.probe';
const MGMT = 'mgmt.toggle';
const fillerFlag = (i) => `fill-${String(i).padStart(3, '0')}-`.padEnd(128, 'x');
function settings() {
  const streams = u.knob('FLAGWIRE_BENCH_LOAD_STREAMS', 5000);
  const knobs = { shedMaxStreams: Math.round(streams * 0.4), normal: 1000, slow: 200, slowSeconds: 15 };
  Object.assign(knobs, { fillRate: 80, maxBuffered: 64 * 1024 });
  const fixed = { writeGapMs: 100, mgmtGapMs: 20, quietSeconds: 3, shedSeconds: 6, stormTimeoutSeconds: 60 };
  return { streams, ...u.knobs('LOAD_', knobs), ...fixed, fillerFlags: 64 };
}
/**
 * A durable server (environments `live`, the streams', and `mgmt`) with `count` streams, after 3 s
 * of PATCHes, not counted (what follows the opening of the streams would weigh on the first storm).
 */
async function startLoad(s, label, options, count, fillers = 0) {
  const others = Array.from({ length: 20 }, (_, i) => `load.other-${i}`);
  const live = [PROBE, ...others].map((key) => ({ key, type: 'boolean' }));
  for (let i = 0; i < fillers; i++) live.push({ key: fillerFlag(i), type: 'rollout', percentage: 0 });
  const { keys, config } = u.benchConfig({ live, mgmt: [{ key: MGMT, type: 'boolean' }] });
  const dataDir = u.tempDir('stream-load');
  const server = await u.startServer({ dataDir, config, ...options }, label, { track: true });
  const writes = [{ url: server.url, key: keys.live.full }];
  const readers = u.startChild('lib/sse-readers.mjs', 'stream readers');
  await readers.call('open', { url: server.url, key: keys.live.read, count }, 180_000);
  await readers.call('measure', { writes, flag: PROBE, durationMs: 3000, gapMs: s.writeGapMs }, 60_000);
  return { server: { ...server, keys, writes }, readers };
}
/** Samples the server (memory without GC, streams, unsent bytes) every `everyMs`; `await stop()` → them. */
function startSampler(server, everyMs) {
  const samples = [];
  let stop = false;
  const done = (async () => {
    for (; !stop; await u.sleep(everyMs)) samples.push(await server.call('sample'));
    return samples;
  })();
  return () => {
    stop = true;
    return done;
  };
}
const peak = (samples, k) => Math.max(...samples.map((x) => x[k]));
/** Linux's counters of connections dropped at a full listen queue and of SYN retransmissions. */
function tcpCounters() {
  try {
    const lines = readFileSync('/proc/net/netstat', 'utf8').split('\n');
    const [names, values] = lines.filter((l) => l.startsWith('TcpExt:')).map((l) => l.split(/\s+/));
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
    const ok = stats(mine.filter((x) => x.status === 200).map((x) => x.ms));
    out[call] = { ...ok, failed: failed.length, failures: [...new Set(failed.map((x) => x.status))] };
  }
  return out;
}
/** One storm: 3 s of management calls before it, then the storm with them; the PATCHes go on. */
async function storm({ s, server, readers, probe, log }, mode, label, shed = {}) {
  const { extra = 0, target, minDurationMs } = shed;
  const { url, keys } = server;
  const calls = [
    { name: 'list', method: 'GET', url: `${url}/api/v1/flags`, key: keys.live.full },
    { name: 'patch', method: 'PATCH', url: `${url}/api/v1/flags/${MGMT}`, key: keys.mgmt.full },
  ];
  await readers.call('writesOn', { writes: server.writes, flag: PROBE, gapMs: s.writeGapMs });
  await probe.call('mgmtOn', { calls, gapMs: s.mgmtGapMs });
  await u.sleep(s.quietSeconds * 1000);
  const quiet = mgmtStats(await probe.call('mgmtOff', {}, 60_000));
  const sampler = startSampler(server, 100);
  await probe.call('mgmtOn', { calls, gapMs: s.mgmtGapMs });
  const tcp0 = tcpCounters();
  const timeoutMs = s.stormTimeoutSeconds * 1000;
  const st = await readers.call('storm', { mode, timeoutMs, extra, target, minDurationMs }, 180_000);
  const tcp1 = tcpCounters();
  const during = await probe.call('mgmtOff', {}, 60_000);
  const serverSamples = await sampler();
  const backgroundWrites = await readers.call('writesOff');
  const inStorm = mgmtStats(
    during.filter((x) => x.atEpoch >= st.startedAtEpoch && x.atEpoch <= st.endedAtEpoch),
  );
  log(`  storm ${label}: ${st.back}/${st.target} back, current in ${fmt.ms(st.recoveryMs, 0)}`);
  const delta = (k) => tcp1[k] - tcp0[k];
  const tcp = tcp0 && { listenOverflows: delta('listenOverflows'), synRetrans: delta('synRetrans') };
  const ratios = {
    listP99: inStorm.list.p99 / quiet.list.p99,
    patchP99: inStorm.patch.p99 / quiet.patch.p99,
  };
  const top = (k) => peak(serverSamples, k);
  const peaks = { serverPeakStreams: top('streams'), serverPeakRssBytes: top('rss') };
  return { mode: label, ...st, tcp, backgroundWrites, ...peaks, quiet, storm: inStorm, ratios };
}
/** The slow consumers (`lib/slow-readers.py`): resolves once all are open; `drain()` → what they saw. */
async function startSlowReaders(s, server) {
  const { hostname, port } = new URL(server.url);
  const args = [hostname, port, server.keys.live.read, s.slow, 536, 4096].map(String);
  const script = join(u.BENCH_DIR, 'lib', 'slow-readers.py');
  const child = spawn('python3', [script, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  u.defer(() => child.exitCode === null && child.kill());
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const nextLine = async () => {
    const { value, done } = await lines.next();
    if (done) throw new Error('slow readers exited early');
    return JSON.parse(value);
  };
  const opened = await nextLine();
  const drain = async () => {
    child.stdin.write('drain\n');
    const seen = await nextLine();
    await exited;
    return seen;
  };
  return { opened, drain };
}
/** One run of part 2: `slow`, or `baseline` (the same without the slow streams). */
async function slowRun(s, kind, log) {
  const options = { streamMaxBufferedBytes: s.maxBuffered };
  const { server, readers } = await startLoad(s, `stream-load-${kind}`, options, s.normal, s.fillerFlags);
  const slow = kind === 'slow' ? await startSlowReaders(s, server) : undefined;
  const streams = s.normal + (slow ? s.slow : 0);
  await server.streams(streams);
  const sampler = startSampler(server, 250);
  const t0 = Date.now();
  const filler = { flags: Array.from({ length: s.fillerFlags }, (_, i) => fillerFlag(i)), rate: s.fillRate };
  const durationMs = s.slowSeconds * 1000;
  const payload = { writes: server.writes, flag: PROBE, durationMs, gapMs: s.writeGapMs, filler };
  const m = await readers.call('measure', payload, durationMs + 60_000);
  const samples = await sampler();
  const failures = m.filler.failures + m.probeFailures;
  if (failures > 0) throw new Error(`${failures} PATCHes failed: ${m.filler.lastError ?? m.probeLastError}`);
  const cuts = await server.call('cuts', {});
  const settled = await server.memory();
  const seen = await slow?.drain();
  await readers.close();
  await server.close();
  const cutStats = (f) => (cuts.length ? stats(cuts.map(f)) : undefined);
  const last = stats(m.samples.map((x) => x.fromResponseMs));
  const bytesMedian = seen && u.median(seen.bytesReceived);
  const slowClients = seen && { opened: slow.opened, ended: seen.ended, stillOpen: seen.open, bytesMedian };
  log(`  slow consumers, ${kind}: ${cuts.length} cut`);
  return {
    kind,
    streams,
    lastNormalAfterResponseMs: last,
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
    cutAfterSeconds: cutStats((c) => (c.at - t0) / 1000),
    bufferedAtCut: cutStats((c) => c.buffered),
    slowClients,
    memoryTimeline: samples.map(({ at, rss, heapUsed, streams, buffered }) => {
      return { t: (at - t0) / 1000, rss, heapUsed, streams, buffered };
    }),
  };
}
export async function run({ log }) {
  const s = settings();
  log(`  ${s.streams} streams; 1 PATCH / ${s.writeGapMs} ms; management calls every ${s.mgmtGapMs} ms`);
  const result = { settings: s, storms: [] };
  const stormsOn = async (label, options, count, runs) => {
    const load = { s, log, ...(await startLoad(s, label, options, count)) };
    load.probe = u.startChild('lib/sse-readers.mjs', 'management probe');
    for (const [mode, name, extra] of runs) result.storms.push(await storm(load, mode, name, extra));
    for (const c of [load.probe, load.readers, load.server]) await c.close();
  };
  await stormsOn('stream-load', { pingIntervalMs: 600_000 }, s.streams, [
    ['immediate', 'at once'],
    ['sdk', 'SDK backoff'],
  ]);
  // The cap is full; in the storm its streams reconnect at once with the others that want one.
  const cap = Math.min(s.streams, s.shedMaxStreams);
  const shed = { extra: s.streams - cap, target: cap, minDurationMs: s.shedSeconds * 1000 };
  const capped = [['immediate', `at once, maxStreams ${cap}`, shed]];
  await stormsOn('stream-load-shed', { maxStreams: cap }, cap, capped);

  result.slowConsumers = { skipped: 'python3 not found' };
  if (spawnSync('python3', ['--version']).status === 0) {
    const baseline = await slowRun(s, 'baseline', log);
    result.slowConsumers = { baseline, slow: await slowRun(s, 'slow', log) };
  }
  return { result, text: render(s, result) };
}
/** `a / b / c` of values through `unit`. */
const slash = (values, unit = String) => values.map((v) => unit(v)).join(' / ');
const ms0 = (v) => fmt.ms(v, 0);
function render(s, r) {
  const rows = [];
  const row = (...cells) => rows.push(cells);
  const sub = (label, ...cells) => rows.push([`  ${label}`, ...cells]);
  for (const sm of r.storms) {
    const { backMs, tcp, backgroundWrites: bw, retryAfterSeconds: ra } = sm;
    const capped = sm.target < sm.streams;
    const head = `storm, ${sm.mode}: ${fmt.int(sm.streams)} reconnect, ${sm.revisionsDuringStorm} writes meanwhile`;
    row(head, '', 'before', 'ratio');
    const who = capped ? `${sm.target} (the cap)` : 'all';
    sub(`${who} back (200) / back and current`, slash([sm.allBackMs, sm.recoveryMs], ms0));
    sub('back, per stream: median / p99', slash([backMs.median, backMs.p99], ms0));
    const counts = slash([sm.refused, sm.errors, sm.drops, sm.syncs]);
    sub('503s / errors / drops / full syncs instead of resume', counts);
    const still = `${sm.stillDown}; ${fmt.int(sm.refusedPerSecond)}`;
    if (capped) sub(`still refused after ${(sm.durationMs / 1000).toFixed(1)} s; 503s per second`, still);
    if (ra) sub('Retry-After: min / median / max', `${slash([ra.min, ra.median, ra.max])} s`);
    const syn = tcp && slash([tcp.listenOverflows, tcp.synRetrans], fmt.int);
    if (tcp) sub('listen-queue overflows / SYN retransmits', syn);
    if (bw.failures) sub('timed PATCHes that failed meanwhile', `${bw.failures} (${bw.lastError})`);
    const peaks = `${fmt.int(sm.serverPeakStreams)} / ${fmt.mb(sm.serverPeakRssBytes)}`;
    sub('server: peak streams / peak RSS', peaks);
    for (const [call, label] of Object.entries({ list: 'GET /api/v1/flags', patch: 'PATCH (other env.)' })) {
      const [a, b] = [sm.storm[call], sm.quiet[call]];
      const pick = (m) => [m.median, m.p99, m.max];
      const ratios = pick(a).map((x, i) => x / pick(b)[i]);
      const [inStorm, before] = [slash(pick(a), ms0), slash(pick(b), ms0)];
      sub(`${label} median / p99 / max (n=${a.n}/${b.n})`, inStorm, before, slash(ratios, fmt.x));
      if (a.failed + b.failed > 0) sub('  ... failed', `${a.failed} ${a.failures}`, `${b.failed}`);
    }
  }
  const sc = r.slowConsumers;
  if (sc.skipped) row(`slow consumers: skipped (${sc.skipped})`);
  else {
    const { slow: w, baseline: o } = sc;
    const vs = (label, get, unit) => sub(label, unit(get(w)), unit(get(o)), fmt.x(get(w) / get(o)));
    const head = `${s.normal} normal + ${s.slow} slow streams, limit ${fmt.kb(s.maxBuffered)}`;
    row(head, 'with slow', 'without', 'ratio');
    vs('filler PATCH/s (~250 B frames)', (x) => x.filler.perSecond, fmt.int);
    vs('last normal stream after PATCH 200, median', (x) => x.lastNormalAfterResponseMs.median, fmt.ms);
    vs('... p99', (x) => x.lastNormalAfterResponseMs.p99, fmt.ms);
    vs('server peak RSS', (x) => x.peakRssBytes, fmt.mb);
    vs('server peak heapUsed', (x) => x.peakHeapUsedBytes, fmt.mb);
    vs('server heapUsed at the end, after GC', (x) => x.heapUsedAfterGcBytes, fmt.mb);
    vs('server peak unsent stream bytes', (x) => x.peakBufferedBytes, fmt.mb);
    sub('streams cut by the server', `${w.cuts} of ${s.slow}`, String(o.cuts));
    const [c, at] = [w.cutAfterSeconds, w.bufferedAtCut];
    if (c)
      sub('cut after: first / median / last', `${slash([c.min, c.median, c.max], (v) => v.toFixed(1))} s`);
    if (c) sub('unsent bytes at cut: median / max', slash([at.median, at.max], fmt.kb));
    const sl = w.slowClients;
    if (sl) sub('slow clients: stream ended / still open', slash([sl.ended, sl.stillOpen]));
    sub('normal streams: errors / drops (must be 0)', slash([w.errors, w.drops]), slash([o.errors, o.drops]));
  }
  return u.table('stream-load|figure|baseline|ratio', rows);
}
