/**
 * The SSE reader: `GET /sdk/events` streams over raw `node:net` sockets (far lighter than
 * `http.request`), and the writes whose propagation they time, sent from here (one clock). A stream
 * resumes with `Last-Event-ID`; a `503` is retried after its `Retry-After`.
 */
import http from 'node:http';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { patchFlag, propagationSample, request, serveCommands } from './child.mjs';
import { httpJson, sleep, stats } from './util.mjs';

const now = () => performance.now();
/** Epoch milliseconds of a `performance.now()` time, to compare with other processes. */
const epochOf = (t) => performance.timeOrigin + t;
const readers = [];
const counters = { drops: 0, errors: 0, syncs: 0 };
let openCount = 0;
let maxRev = 0; // the highest revision any stream of this process has seen
let needle; // a frame of the timed flag holds this
let probeWindow; // while `measure` runs: per PATCH k, how many streams have it, when the first and last did
let storm; // while `storm` runs: its state
const newReader = (target) => ({ target, state: 'down', rev: 0, probeSeen: 0, attempt: 0 });
function setState(r, state) {
  if (r.state === 'open') openCount -= 1;
  if (state === 'open') openCount += 1;
  r.state = state;
}
async function allOpen() {
  for (const t0 = now(); openCount < readers.length; await sleep(5))
    if (now() - t0 > 30_000)
      throw new Error(`${readers.length - openCount} of ${readers.length} streams not open`);
}
function connect(r) {
  r.timer = undefined;
  const { host, port, key } = r.target;
  const sock = net.connect(port, host);
  Object.assign(r, { sock, head: '', chunkLeft: 0, sizeLine: '', sse: '', failed: false });
  setState(r, 'connecting');
  r.resuming = r.lastId !== undefined;
  sock.setNoDelay(true);
  sock.setEncoding('latin1');
  const resume = r.lastId ? `Last-Event-ID: ${r.lastId}\r\n` : '';
  sock.on('connect', () =>
    sock.write(
      `GET /sdk/events HTTP/1.1\r\nHost: ${host}:${port}\r\nAuthorization: Bearer ${key}\r\n` +
        `Accept: text/event-stream\r\n${resume}\r\n`,
    ),
  );
  sock.on('data', (data) => r.sock === sock && onData(r, data, now()));
  sock.on('error', () => r.sock === sock && countError(r));
  sock.on('close', () => r.sock === sock && lost(r));
}
/** Drops the socket without counting it as lost (the benchmark's own doing). */
function hangUp(r) {
  clearTimeout(r.timer);
  const { sock } = r;
  r.sock = undefined;
  setState(r, 'down');
  sock?.destroy();
}
function countError(r) {
  r.failed = true;
  counters.errors += 1;
  if (storm) storm.errors += 1;
}
/** The server closed the stream, or the connection failed: count it and reconnect. */
function lost(r) {
  if (r.state === 'open') counters.drops += 1;
  else if (!r.failed) countError(r); // closed before an answer
  r.sock = undefined;
  setState(r, 'down');
  if (storm && r.backAt !== undefined) storm.back -= 1;
  if (storm && r.currentAt !== undefined) storm.current -= 1;
  Object.assign(r, { backAt: undefined, currentAt: undefined });
  schedule(r, retryDelay(r, storm?.mode ?? 'sdk', 0, true));
}
/**
 * The delay before reconnecting. `immediate`: `Retry-After` or none (100 ms after a failed
 * connection). `sdk`: as `src/core/backoff.ts` with its defaults, `1 s * 2^attempt` capped at 30 s,
 * jittered into [half, full]; a longer `Retry-After` wins.
 */
function retryDelay(r, mode, retryAfterMs, failed = false) {
  if (mode === 'immediate') return Math.max(retryAfterMs, failed ? 100 : 0);
  const full = Math.min(30_000, 1000 * 2 ** Math.min(r.attempt, 30));
  r.attempt += 1;
  return Math.max(Math.round(full / 2 + (Math.random() * full) / 2), retryAfterMs);
}
function schedule(r, delayMs) {
  if (r.timer) clearTimeout(r.timer);
  if (delayMs <= 0) connect(r);
  else r.timer = setTimeout(() => connect(r), delayMs);
}
function onData(r, data, at) {
  if (r.state !== 'connecting') return feedBody(r, data, at);
  r.head += data;
  const end = r.head.indexOf('\r\n\r\n');
  if (end < 0) return;
  const head = r.head.slice(0, end);
  const rest = r.head.slice(end + 4);
  const status = Number(head.slice(9, 12));
  if (status !== 200) return refused(r, status, head);
  setState(r, 'open');
  if (storm && r.backAt === undefined) {
    r.backAt = at;
    storm.back += 1;
    if (storm.back === storm.target) storm.allBackAt ??= at;
  }
  if (rest) feedBody(r, rest, at);
  if (storm) checkCurrent(r, at);
}
/** A refused stream: a 503 is retried after its Retry-After, anything else counts as an error. */
function refused(r, status, head) {
  hangUp(r);
  let retryAfterMs = 0;
  if (status === 503) {
    const m = /\r\nretry-after: *(\d+)/i.exec(head);
    retryAfterMs = m ? Number(m[1]) * 1000 : 1000;
    storm?.retryAfterMs.push(retryAfterMs);
  } else countError(r);
  schedule(r, retryDelay(r, storm?.mode ?? 'sdk', retryAfterMs, status !== 503));
}
/** Chunked transfer coding: chunk data goes to the SSE parser, the line ends between chunks are skipped. */
function feedBody(r, data, at) {
  let i = 0;
  while (i < data.length) {
    if (r.chunkLeft > 0) {
      const take = Math.min(r.chunkLeft, data.length - i);
      r.sse += take === data.length ? data : data.slice(i, i + take);
      i += take;
      r.chunkLeft -= take;
      continue;
    }
    const nl = data.indexOf('\n', i);
    if (nl < 0) {
      r.sizeLine += data.slice(i);
      break;
    }
    const line = (r.sizeLine + data.slice(i, nl)).trim();
    r.sizeLine = '';
    i = nl + 1;
    if (line === '') continue;
    r.chunkLeft = Number.parseInt(line, 16);
    if (r.chunkLeft === 0) {
      const { sock } = r; // the server ended the stream (it only does so when it shuts down)
      lost(r);
      sock?.destroy();
      return;
    }
  }
  for (let end = r.sse.indexOf('\n\n'); end >= 0; end = r.sse.indexOf('\n\n')) {
    const frame = r.sse.slice(0, end);
    r.sse = r.sse.slice(end + 2);
    onFrame(r, frame, at);
  }
}
function onFrame(r, frame, at) {
  let idAt = frame.startsWith('id: ') ? 0 : frame.indexOf('\nid: ');
  if (idAt > 0) idAt += 1;
  if (idAt >= 0) {
    const eol = frame.indexOf('\n', idAt);
    r.lastId = frame.slice(idAt + 4, eol < 0 ? frame.length : eol);
    r.rev = Number(r.lastId.slice(r.lastId.lastIndexOf(':') + 1));
    if (r.rev > maxRev) maxRev = r.rev;
    // A full sync where a resume was asked for (the id was too old, or unknown).
    if (frame.includes('event: flags:sync')) counters.syncs += r.resuming ? 1 : 0;
    else if (needle && frame.includes(needle)) onProbe(r, at);
  }
  r.onFirst?.();
  r.onFirst = undefined;
  if (storm) checkCurrent(r, at);
}
function onProbe(r, at) {
  r.probeSeen += 1;
  const k = probeWindow ? r.probeSeen - r.probeBase : 0;
  if (k < 1) return;
  probeWindow.recs[k] ??= { count: 0, first: at, last: undefined };
  const rec = probeWindow.recs[k];
  rec.count += 1;
  if (rec.count === probeWindow.expected) {
    rec.last = at;
    probeWindow.complete += 1;
    probeWindow.check();
  }
}
/** During a storm: a stream is current once it is open and has the newest revision any stream has seen. */
function checkCurrent(r, at) {
  if (r.currentAt !== undefined || r.state !== 'open' || r.rev < maxRev) return;
  r.currentAt = at;
  storm.current += 1;
  if (storm.current === storm.target) storm.done(at);
}
// Idle sockets go after 2 s, before the server's 5 s keep-alive timeout closes one under a request.
const agent = (maxSockets) => new http.Agent({ keepAlive: true, maxSockets, timeout: 2000 });
const [probeAgent, fillerAgent, mgmtAgent] = [agent(1), agent(8), agent(16)];
const flagEnabled = async ({ url, key }, flag) =>
  (await httpJson('GET', `${url}/api/v1/flags/${encodeURIComponent(flag)}`, key)).json.enabled;
const fail = (w, error) => Object.assign(w, { failures: w.failures + 1, lastError: String(error) });
/** A PATCH toggling `flag` every `gapMs` until `stop` or `max` were sent, through `writes` in turn. */
function startProbeWrites(writes, flag, gapMs, max = Number.POSITIVE_INFINITY) {
  needle = `"key":${JSON.stringify(flag)}`;
  const w = { stop: false, sent: [], failures: 0, lastError: undefined };
  w.done = (async () => {
    let enabled = await flagEnabled(writes[0], flag);
    for (let i = 0; !w.stop && w.sent.length < max; i++) {
      enabled = !enabled;
      const sentAt = now();
      try {
        const { at } = await patchFlag(writes[i % writes.length], flag, { enabled }, probeAgent);
        w.sent.push({ sentAt, ackAt: at });
      } catch (error) {
        fail(w, error);
        enabled = await flagEnabled(writes[0], flag).catch(() => enabled);
      }
      const wait = sentAt + gapMs - now();
      if (wait > 0 && !w.stop && w.sent.length < max) await sleep(wait);
    }
  })();
  return w;
}
/** Filler writes at `rate` PATCH/s (at most 8 at once) over `flags`, each a new percentage (it emits). */
function startFillerWrites(write, { flags, rate }) {
  const w = { sent: 0, acked: 0, failures: 0, lastError: undefined };
  const values = flags.map(() => 0);
  const inFlight = new Set();
  const t0 = now();
  const timer = setInterval(() => {
    const due = Math.floor(((now() - t0) / 1000) * rate);
    while (w.sent < due && inFlight.size < 8) {
      const i = w.sent++ % flags.length;
      values[i] = (values[i] + 1) % 100;
      const p = patchFlag(write, flags[i], { percentage: values[i] }, fillerAgent)
        .then(() => w.acked++)
        .catch((error) => fail(w, error))
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
  }, 5);
  return async () => {
    clearInterval(timer);
    const seconds = (now() - t0) / 1000;
    await Promise.all(inFlight);
    return { ...w, perSecond: w.acked / seconds };
  };
}
let background;
let mgmt;
serveCommands({
  /** Opens `count` more streams, 250 at a time → `{ opened, ms }` once each has its first frame. */
  async open({ url, key, count }) {
    const { hostname: host, port } = new URL(url);
    const target = { host, port: Number(port), key };
    const t0 = now();
    for (let i = 0; i < count; i += 250) {
      const group = Array.from({ length: Math.min(250, count - i) }, () => {
        const r = newReader(target);
        readers.push(r);
        const first = new Promise((resolve) => (r.onFirst = resolve));
        connect(r);
        return first;
      });
      await Promise.all(group);
    }
    return { opened: readers.length, ms: now() - t0 };
  },
  /** PATCHes of `flag` every `gapMs` (and `filler`) → per PATCH, when the first and last stream had it. */
  async measure({ writes, flag, durationMs, count, gapMs, filler }) {
    await allOpen();
    for (const r of readers) r.probeBase = r.probeSeen;
    const before = { ...counters };
    probeWindow = { expected: readers.length, recs: [], complete: 0, check: () => {} };
    const cpu0 = process.cpuUsage();
    const probes = startProbeWrites(writes, flag, gapMs, count);
    const fill = filler && startFillerWrites(writes[0], filler);
    if (durationMs !== undefined) {
      await sleep(durationMs);
      probes.stop = true;
    }
    await probes.done;
    const fillerResult = await fill?.();
    // Every stream must get every PATCH: wait for the stragglers.
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, 15_000);
      probeWindow.check = () => probeWindow.complete >= probes.sent.length && resolve(clearTimeout(timer));
      probeWindow.check();
    });
    const cpu = process.cpuUsage(cpu0);
    const samples = probes.sent.flatMap(({ sentAt, ackAt }, j) => {
      const { first, last } = probeWindow.recs[j + 1] ?? {};
      return last === undefined ? [] : [propagationSample(sentAt, ackAt, first, last)];
    });
    probeWindow = undefined;
    return {
      samples,
      incomplete: probes.sent.length - samples.length,
      probeFailures: probes.failures,
      probeLastError: probes.lastError,
      readerCpuMs: (cpu.user + cpu.system) / 1000,
      filler: fillerResult,
      drops: counters.drops - before.drops,
      errors: counters.errors - before.errors,
    };
  },
  /** The same PATCHes in the background, untimed, until `writesOff`. */
  async writesOn({ writes, flag, gapMs }) {
    background = startProbeWrites(writes, flag, gapMs);
    return true;
  },
  async writesOff() {
    background.stop = true;
    await background.done;
    const { sent, failures, lastError } = background;
    return { sent: sent.length, failures, lastError };
  },
  /**
   * Destroys every stream at once and reconnects them with `extra` new ones, `mode` `immediate` or
   * `sdk` (its backoff) → when `target` (default: all) were back, and current; at least
   * `minDurationMs` (over a cap, the refused keep coming back meanwhile).
   */
  async storm({ mode, timeoutMs = 60_000, extra = 0, target, minDurationMs = 0 }) {
    await allOpen();
    for (let i = 0; i < extra; i++) readers.push(newReader(readers[0].target));
    const before = { ...counters };
    let finish;
    const finished = new Promise((resolve) => (finish = resolve));
    storm = { mode, target: target ?? readers.length, back: 0, current: 0, errors: 0, retryAfterMs: [] };
    storm.done = (at) => {
      storm.recoveredAt ??= at;
      finish();
    };
    const revBefore = maxRev;
    const t0 = now();
    for (const r of readers) {
      hangUp(r);
      Object.assign(r, { backAt: undefined, currentAt: undefined, attempt: 0 });
    }
    for (const r of readers) schedule(r, retryDelay(r, mode, 0));
    const timer = setTimeout(finish, timeoutMs);
    await finished;
    clearTimeout(timer);
    const rest = t0 + minDurationMs - now();
    if (rest > 0) await sleep(rest);
    const endedAt = now();
    const s = storm;
    storm = undefined;
    const backTimesMs = readers.filter((r) => r.backAt !== undefined).map((r) => r.backAt - t0);
    // Those still refused give up, so that they do not weigh on what comes next.
    const stillDown = readers.filter((r) => r.state !== 'open');
    for (const r of stillDown) {
      hangUp(r);
      readers.splice(readers.indexOf(r), 1);
    }
    const at = (t) => (t === undefined ? undefined : t - t0);
    const refused = s.retryAfterMs.length;
    return {
      startedAtEpoch: epochOf(t0),
      endedAtEpoch: epochOf(endedAt),
      durationMs: endedAt - t0,
      recoveryMs: at(s.recoveredAt),
      allBackMs: at(s.allBackAt),
      streams: readers.length + stillDown.length,
      target: s.target,
      back: s.back,
      stillDown: stillDown.length,
      backMs: stats(backTimesMs),
      refused,
      refusedPerSecond: refused / ((endedAt - t0) / 1000),
      retryAfterSeconds: refused ? stats(s.retryAfterMs.map((x) => x / 1000)) : undefined,
      errors: s.errors,
      syncs: counters.syncs - before.syncs,
      drops: counters.drops - before.drops,
      revisionsDuringStorm: maxRev - revBefore,
    };
  },
  /** The management probe (with no stream): `calls` every `gapMs`, not waiting (a PATCH commits). */
  async mgmtOn({ calls, gapMs }) {
    mgmt = { samples: [], pending: new Set(), n: 0 };
    const tick = () => {
      mgmt.n += 1;
      for (const { name, method, url, key } of calls) {
        const body = method === 'PATCH' ? { description: `probe ${mgmt.n}` } : undefined;
        const p = request(method, url, key, body, { agent: mgmtAgent, timeoutMs: 10_000 }).then(
          ({ sentAt, ms, status }) => {
            mgmt.samples.push({ call: name, atEpoch: epochOf(sentAt), ms, status });
            mgmt.pending.delete(p);
          },
        );
        mgmt.pending.add(p);
      }
    };
    tick();
    mgmt.timer = setInterval(tick, gapMs);
    return true;
  },
  async mgmtOff() {
    clearInterval(mgmt.timer);
    await Promise.all(mgmt.pending);
    return mgmt.samples;
  },
  close() {
    for (const r of readers) hangUp(r);
  },
});
