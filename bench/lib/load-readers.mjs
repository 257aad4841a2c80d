/**
 * The stream-load benchmark's readers, in their own process: thousands of `GET /sdk/events`
 * streams over raw `node:net` sockets (a hand-rolled HTTP/1.1 head + chunked-body parser, far
 * lighter than `http.request` per stream), and the writes whose propagation they time. The
 * writes come from this process, so every timestamp is on one monotonic clock.
 *
 * Each reader keeps the id of the last frame it saw and resumes with it (`Last-Event-ID`)
 * whenever it connects again; a `503` is retried after its `Retry-After`.
 *
 * IPC commands:
 * - `configure { url, key, fullKey, probeFlag }`: the server, the read key of the streams, the
 *   full key of the writes and the flag the timed PATCHes toggle.
 * - `open { count, batch }` → `{ opened, ms }` once every new stream got its first frame.
 * - `measure { durationMs, gapMs, filler }`: one PATCH of the probe flag every `gapMs` (and the
 *   filler writes, if any) for `durationMs`; → per PATCH the time until the last stream had it.
 * - `writesOn { gapMs }` / `writesOff`: the same probe writes in the background, untimed.
 * - `storm { mode, timeoutMs, extra, target }`: destroys every stream at once and reconnects
 *   them, plus `extra` new ones (`immediate`: at once, no backoff; `sdk`: the SDK's jittered
 *   exponential backoff) → when `target` (default: all) were back, and back *and* current.
 * - `counters` → drops, errors, statuses; `close`.
 */
import http from 'node:http';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { serveCommands } from './child.mjs';

const now = () => performance.now();
/** Epoch milliseconds of a `performance.now()` time, to compare with other processes. */
const epochOf = (t) => performance.timeOrigin + t;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let target;
/** A probe flag's frame holds this. */
let probeNeedle = '';
/** The highest revision any stream of this process has seen. */
let maxRev = 0;
const readers = [];
const counters = { drops: 0, errors: 0, errorCodes: {}, statuses: {}, syncs: 0, ended: 0 };
/** While `measure` runs: per probe PATCH, how many streams have it and when the first and last got it. */
let probeWindow;
/** While `storm` runs: its state. */
let storm;

// ---------------------------------------------------------------- one stream

function newReader(index) {
  return {
    index,
    sock: undefined,
    state: 'down', // down | connecting | open
    head: '',
    chunkLeft: 0,
    sizeLine: '',
    sse: '',
    lastId: undefined,
    rev: 0,
    probeSeen: 0,
    attempt: 0,
    timer: undefined,
    gotFirst: false,
    onFirst: undefined,
    backAt: undefined,
    currentAt: undefined,
  };
}

function requestText(r) {
  const resume = r.lastId ? `Last-Event-ID: ${r.lastId}\r\n` : '';
  return (
    `GET /sdk/events HTTP/1.1\r\nHost: ${target.host}:${target.port}\r\n` +
    `Authorization: Bearer ${target.key}\r\nAccept: text/event-stream\r\n${resume}\r\n`
  );
}

function connect(r) {
  r.timer = undefined;
  const sock = net.connect(target.port, target.host);
  Object.assign(r, {
    sock,
    state: 'connecting',
    head: '',
    chunkLeft: 0,
    sizeLine: '',
    sse: '',
    failed: false,
  });
  r.resuming = r.lastId !== undefined;
  sock.setNoDelay(true);
  sock.setEncoding('latin1');
  sock.on('connect', () => sock.write(requestText(r)));
  sock.on('data', (data) => {
    if (r.sock === sock) onData(r, data, now());
  });
  sock.on('error', (error) => {
    if (r.sock === sock) countError(r, error.code ?? 'other');
  });
  sock.on('close', () => {
    if (r.sock === sock) lost(r);
  });
}

/** Drops the socket without counting it as lost (the benchmark's own doing). */
function hangUp(r) {
  const { sock } = r;
  r.sock = undefined;
  r.state = 'down';
  sock?.destroy();
}

function countError(r, code) {
  r.failed = true;
  counters.errors += 1;
  counters.errorCodes[code] = (counters.errorCodes[code] ?? 0) + 1;
  if (storm) storm.errors += 1;
}

/** The server closed the stream, or the connection failed: count it and reconnect. */
function lost(r) {
  if (r.state === 'open') counters.drops += 1;
  else if (!r.failed) countError(r, 'closed before an answer');
  r.sock = undefined;
  r.state = 'down';
  if (storm) {
    if (r.backAt !== undefined) storm.back -= 1;
    if (r.currentAt !== undefined) storm.current -= 1;
    r.backAt = undefined;
    r.currentAt = undefined;
  }
  schedule(r, retryDelay(r, storm?.mode ?? 'sdk', 0, true));
}

/**
 * The delay before reconnecting. `immediate`: none, or exactly `Retry-After` (100 ms after a
 * failed connection, so a dead server is not spun on). `sdk`: like `src/core/backoff.ts` with the
 * SDK's defaults, `1 s * 2^attempt` capped at 30 s, jittered into [half, full]; `Retry-After`
 * wins when longer.
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
  if (r.state !== 'connecting') {
    feedBody(r, data, at);
    return;
  }
  r.head += data;
  const end = r.head.indexOf('\r\n\r\n');
  if (end < 0) return;
  const head = r.head.slice(0, end);
  const rest = r.head.slice(end + 4);
  r.head = '';
  const status = Number(head.slice(9, 12));
  counters.statuses[status] = (counters.statuses[status] ?? 0) + 1;
  if (status !== 200) {
    refused(r, status, head);
    return;
  }
  r.state = 'open';
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
    if (storm) {
      storm.refused += 1;
      storm.retryAfterMs.push(retryAfterMs);
    }
  } else {
    countError(r, `status ${status}`);
  }
  schedule(r, retryDelay(r, storm?.mode ?? 'sdk', retryAfterMs, status !== 503));
}

/** Chunked transfer coding: chunk data goes to the SSE parser; blank lines between chunks are skipped. */
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
    const size = Number.parseInt(line, 16);
    if (size === 0) {
      // The server ended the stream (it only does so when it shuts down).
      counters.ended += 1;
      const { sock } = r;
      lost(r);
      sock?.destroy();
      return;
    }
    r.chunkLeft = size;
  }
  let end = r.sse.indexOf('\n\n');
  while (end >= 0) {
    const frame = r.sse.slice(0, end);
    r.sse = r.sse.slice(end + 2);
    onFrame(r, frame, at);
    end = r.sse.indexOf('\n\n');
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
    else if (frame.includes(probeNeedle)) onProbe(r, at);
  }
  if (!r.gotFirst) {
    r.gotFirst = true;
    r.onFirst?.();
    r.onFirst = undefined;
  }
  if (storm) checkCurrent(r, at);
}

function onProbe(r, at) {
  r.probeSeen += 1;
  if (!probeWindow) return;
  const k = r.probeSeen - probeWindow.base;
  if (k < 1) return;
  let rec = probeWindow.recs[k];
  if (!rec) {
    rec = { count: 0, first: at, last: undefined };
    probeWindow.recs[k] = rec;
  }
  rec.count += 1;
  if (rec.count === probeWindow.expected) rec.last = at;
}

/** During a storm: a stream is current once it is open and has the newest revision any stream has seen. */
function checkCurrent(r, at) {
  if (r.currentAt !== undefined || r.state !== 'open' || r.rev < maxRev) return;
  r.currentAt = at;
  storm.current += 1;
  if (storm.current === storm.target) storm.done(at);
}

// ---------------------------------------------------------------- writes

// Idle sockets go after 2 s, before the server's 5 s keep-alive timeout closes them under a request.
const probeAgent = new http.Agent({ keepAlive: true, maxSockets: 1, timeout: 2000 });
const fillerAgent = new http.Agent({ keepAlive: true, maxSockets: 8, timeout: 2000 });

/** PATCH `flag` with `body` → `performance.now()` when the 200's head arrived. */
function patch(flag, body, agent) {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${target.url}/api/v1/flags/${encodeURIComponent(flag)}`,
      {
        method: 'PATCH',
        agent,
        timeout: 30_000,
        headers: {
          authorization: `Bearer ${target.fullKey}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        const at = now();
        res.resume();
        res.on('end', () =>
          res.statusCode === 200 ? resolve(at) : reject(new Error(`PATCH ${res.statusCode}`)),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error('PATCH timed out')));
    req.on('error', reject);
    req.end(payload);
  });
}

async function probeEnabled() {
  const res = await fetch(`${target.url}/api/v1/flags/${encodeURIComponent(target.probeFlag)}`, {
    headers: { authorization: `Bearer ${target.fullKey}` },
  });
  return (await res.json()).enabled;
}

/** One PATCH toggling the probe flag every `gapMs` (the next one no sooner than the previous one's answer). */
function startProbeWrites(gapMs) {
  const w = { stop: false, sent: [], failures: 0, lastError: undefined };
  w.done = (async () => {
    let enabled = await probeEnabled();
    while (!w.stop) {
      enabled = !enabled;
      const sentAt = now();
      try {
        w.sent.push({ sentAt, ackAt: await patch(target.probeFlag, { enabled }, probeAgent) });
      } catch (error) {
        w.failures += 1;
        w.lastError = String(error);
        enabled = await probeEnabled().catch(() => enabled);
      }
      const wait = sentAt + gapMs - now();
      if (wait > 0 && !w.stop) await sleep(wait);
    }
  })();
  return w;
}

/**
 * Filler writes at `rate` PATCH/s (at most `maxInFlight` at once), round robin over `flags`,
 * each setting the flag's percentage to a new value so that every one commits and emits.
 */
function startFillerWrites({ flags, rate, maxInFlight = 8 }) {
  const w = { stop: false, sent: 0, acked: 0, failures: 0, lastError: undefined, behind: 0 };
  const values = flags.map(() => 0);
  const t0 = now();
  let inFlight = 0;
  const tick = () => {
    const due = Math.floor(((now() - t0) / 1000) * rate);
    while (w.sent < due && inFlight < maxInFlight) {
      const i = w.sent % flags.length;
      values[i] = (values[i] + 1) % 100;
      w.sent += 1;
      inFlight += 1;
      patch(flags[i], { percentage: values[i] }, fillerAgent)
        .then(
          () => {
            w.acked += 1;
          },
          (error) => {
            w.failures += 1;
            w.lastError = String(error);
          },
        )
        .finally(() => {
          inFlight -= 1;
        });
    }
    if (w.sent < due) w.behind = Math.max(w.behind, due - w.sent);
  };
  const timer = setInterval(tick, 5);
  w.done = (async () => {
    while (!w.stop) await sleep(20);
    clearInterval(timer);
    while (inFlight > 0) await sleep(10);
  })();
  return w;
}

// ---------------------------------------------------------------- commands

/**
 * Waits until every stream is open and (`inStep`) has the newest revision and the same number
 * of probe frames; → that revision and probe count.
 */
async function quiesce(inStep = true, timeoutMs = 20_000) {
  const until = now() + timeoutMs;
  for (;;) {
    const first = readers[0];
    const settled = (r) =>
      r.state === 'open' && (!inStep || (r.rev === maxRev && r.probeSeen === first.probeSeen));
    if (readers.every(settled)) return { rev: maxRev, probeSeen: first.probeSeen };
    if (now() > until) {
      const notOpen = readers.filter((r) => r.state !== 'open').length;
      const behind = readers.filter((r) => r.rev !== maxRev).length;
      throw new Error(`streams did not settle: ${notOpen} not open, ${behind} behind revision ${maxRev}`);
    }
    await sleep(20);
  }
}

let background;

const commands = {
  async configure({ url, key, fullKey, probeFlag }) {
    const u = new URL(url);
    target = { url, host: u.hostname, port: Number(u.port), key, fullKey, probeFlag };
    probeNeedle = `"key":${JSON.stringify(probeFlag)}`;
    return true;
  },
  async open({ count, batch = 250 }) {
    const t0 = now();
    for (let i = 0; i < count; i += batch) {
      const group = [];
      for (let j = i; j < Math.min(count, i + batch); j++) {
        const r = newReader(readers.length);
        readers.push(r);
        group.push(
          new Promise((resolve) => {
            r.onFirst = resolve;
          }),
        );
        connect(r);
      }
      await Promise.all(group);
    }
    return { opened: readers.length, ms: now() - t0 };
  },
  async measure({ durationMs, gapMs, filler, settleTimeoutMs = 15_000 }) {
    const { probeSeen } = await quiesce();
    const before = { ...counters, errorCodes: { ...counters.errorCodes } };
    probeWindow = { base: probeSeen, expected: readers.length, recs: [] };
    const probes = startProbeWrites(gapMs);
    const fill = filler ? startFillerWrites(filler) : undefined;
    const t0 = now();
    const cpu0 = process.cpuUsage();
    await sleep(durationMs);
    probes.stop = true;
    if (fill) fill.stop = true;
    await Promise.all([probes.done, fill?.done]);
    const writesMs = now() - t0;
    // Every stream must get every probe PATCH; wait for the stragglers.
    const until = now() + settleTimeoutMs;
    const complete = () => probes.sent.every((_, j) => probeWindow.recs[j + 1]?.last !== undefined);
    while (!complete() && now() < until) await sleep(20);
    const cpu = process.cpuUsage(cpu0);
    const samples = [];
    let incomplete = 0;
    probes.sent.forEach(({ sentAt, ackAt }, j) => {
      const rec = probeWindow.recs[j + 1];
      if (rec?.last === undefined) {
        incomplete += 1;
        return;
      }
      samples.push({
        toResponseMs: ackAt - sentAt,
        fromResponseMs: rec.last - ackAt,
        fromSendMs: rec.last - sentAt,
        firstFromSendMs: rec.first - sentAt,
      });
    });
    probeWindow = undefined;
    return {
      samples,
      incomplete,
      writesMs,
      readerCpuMs: (cpu.user + cpu.system) / 1000,
      probeFailures: probes.failures,
      probeLastError: probes.lastError,
      filler: fill && {
        sent: fill.sent,
        acked: fill.acked,
        failures: fill.failures,
        lastError: fill.lastError,
        behind: fill.behind,
        perSecond: fill.acked / (writesMs / 1000),
      },
      drops: counters.drops - before.drops,
      errors: counters.errors - before.errors,
    };
  },
  async writesOn({ gapMs }) {
    background = startProbeWrites(gapMs);
    return true;
  },
  async writesOff() {
    if (!background) return { sent: 0, failures: 0 };
    background.stop = true;
    await background.done;
    const { sent, failures, lastError } = background;
    background = undefined;
    return { sent: sent.length, failures, lastError };
  },
  async storm({ mode, timeoutMs = 60_000, extra = 0, target, minDurationMs = 0 }) {
    await quiesce(false);
    // `extra` new streams join the storm (they have no id to resume from); the storm is over
    // once `target` streams (all by default) are back and current.
    for (let i = 0; i < extra; i++) readers.push(newReader(readers.length));
    const before = { ...counters, errorCodes: { ...counters.errorCodes } };
    let finish;
    const finished = new Promise((resolve) => {
      finish = resolve;
    });
    storm = {
      mode,
      target: target ?? readers.length,
      back: 0,
      current: 0,
      refused: 0,
      errors: 0,
      retryAfterMs: [],
      allBackAt: undefined,
      recoveredAt: undefined,
      done: (at) => {
        storm.recoveredAt ??= at;
        finish();
      },
    };
    const revBefore = maxRev;
    const t0 = now();
    // All at once: every socket destroyed, then every reader reconnects (or schedules it).
    for (const r of readers) {
      if (r.timer) clearTimeout(r.timer);
      hangUp(r);
      r.backAt = undefined;
      r.currentAt = undefined;
      r.attempt = 0;
    }
    for (const r of readers) schedule(r, retryDelay(r, mode, 0));
    const timer = setTimeout(finish, timeoutMs);
    await finished;
    clearTimeout(timer);
    // Over the cap: the refused streams keep coming back for at least `minDurationMs`.
    const rest = t0 + minDurationMs - now();
    if (rest > 0) await sleep(rest);
    const endedAt = now();
    const s = storm;
    storm = undefined;
    const backTimes = readers.filter((r) => r.backAt !== undefined).map((r) => r.backAt - t0);
    const stillDown = readers.filter((r) => r.state !== 'open');
    // Those still refused give up, so that they do not weigh on what comes next.
    for (const r of stillDown) {
      if (r.timer) clearTimeout(r.timer);
      hangUp(r);
      readers.splice(readers.indexOf(r), 1);
    }
    return {
      mode,
      startedAtEpoch: epochOf(t0),
      recoveredAtEpoch: s.recoveredAt === undefined ? undefined : epochOf(s.recoveredAt),
      recoveryMs: s.recoveredAt === undefined ? undefined : s.recoveredAt - t0,
      allBackMs: s.allBackAt === undefined ? undefined : s.allBackAt - t0,
      streams: readers.length + stillDown.length,
      target: s.target,
      back: s.back,
      current: s.current,
      stillDown: stillDown.length,
      endedAtEpoch: epochOf(endedAt),
      durationMs: endedAt - t0,
      backTimesMs: backTimes,
      refused: s.refused,
      retryAfterMs: s.retryAfterMs,
      errors: s.errors,
      errorCodes: diff(counters.errorCodes, before.errorCodes),
      syncs: counters.syncs - before.syncs,
      drops: counters.drops - before.drops,
      revisionsDuringStorm: maxRev - revBefore,
    };
  },
  async counters() {
    return {
      ...counters,
      readers: readers.length,
      open: readers.filter((r) => r.state === 'open').length,
      maxRev,
    };
  },
  async close() {
    for (const r of readers) {
      if (r.timer) clearTimeout(r.timer);
      hangUp(r);
    }
    setImmediate(() => process.exit(0));
    return true;
  },
};

function diff(after, before) {
  const out = {};
  for (const [k, v] of Object.entries(after)) if (v - (before[k] ?? 0) > 0) out[k] = v - (before[k] ?? 0);
  return out;
}

serveCommands(commands);
