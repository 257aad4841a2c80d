/**
 * Benchmark 3: durable writes.
 *
 * PATCHes per second against a server with a durable `dataDir` (a temp dir) with 1, 16
 * and 64 concurrent clients (autocannon connections, pipelining 1, each toggling its own
 * flag so every PATCH commits). Baseline: the same load against a `memory: true` server,
 * alternating memory / durable runs. For context, the raw `fdatasync` rate of the same
 * file system (a loop of 100-byte append + fdatasync on a temp file), measured before
 * and after the runs, and the same loop through async `FileHandle` calls (the server's
 * own path, so the ceiling for a single client). Group commit shows as durable PATCHes/s well above the raw
 * fdatasync rate once clients are concurrent.
 */
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { api, fmt, median, runLoad, startServerChild, table } from './lib/util.mjs';

export const name = 'writes';

const FLAGS = 64;

function settings() {
  return {
    concurrency: (process.env.FLAGWIRE_BENCH_CONCURRENCY ?? '1,16,64').split(',').map(Number),
    duration: Number(process.env.FLAGWIRE_BENCH_WRITE_DURATION ?? 4),
    rounds: Number(process.env.FLAGWIRE_BENCH_WRITE_ROUNDS ?? 2),
    fsyncSeconds: 2,
    tmpDir: process.env.FLAGWIRE_BENCH_TMPDIR ?? os.tmpdir(),
  };
}

/** Raw `fdatasync` rate: append 100 bytes + fdatasync, in a loop, for `seconds`. */
function fdatasyncRate(dir, seconds) {
  const file = join(dir, 'fdatasync-probe');
  const fd = openSync(file, 'a');
  const line = Buffer.from(`${'x'.repeat(99)}\n`);
  try {
    const until = performance.now() + seconds * 1000;
    let n = 0;
    const t0 = performance.now();
    while (performance.now() < until) {
      writeSync(fd, line);
      fdatasyncSync(fd);
      n += 1;
    }
    return n / ((performance.now() - t0) / 1000);
  } finally {
    closeSync(fd);
    rmSync(file, { force: true });
  }
}

/**
 * The same loop through Node's async `FileHandle` (`write` + `datasync`, two libuv
 * thread-pool round trips), which is how the server's journal writes: the ceiling of
 * one client's durable PATCHes per second.
 */
async function asyncFdatasyncRate(dir, seconds) {
  const file = join(dir, 'fdatasync-probe-async');
  const handle = await open(file, 'a');
  const line = Buffer.from(`${'x'.repeat(99)}\n`);
  try {
    const until = performance.now() + seconds * 1000;
    let n = 0;
    const t0 = performance.now();
    while (performance.now() < until) {
      await handle.write(line, 0, line.length);
      await handle.datasync();
      n += 1;
    }
    return n / ((performance.now() - t0) / 1000);
  } finally {
    await handle.close();
    rmSync(file, { force: true });
  }
}

function flagKey(i) {
  return `write.flag-${String(i).padStart(3, '0')}`;
}

async function setUp(server) {
  const base = `${server.url}/api/v1`;
  for (let i = 0; i < FLAGS; i++)
    await api(base, 'POST', '/flags', server.fullKey, { key: flagKey(i), type: 'boolean' });
}

/** Connection i toggles flag i: PATCH enabled true, then false, over and over. */
function requestsPerConnection(server, connections) {
  const headers = { authorization: `Bearer ${server.fullKey}`, 'content-type': 'application/json' };
  const lists = [];
  for (let i = 0; i < connections; i++) {
    const path = `/api/v1/flags/${flagKey(i % FLAGS)}`;
    lists.push([
      { method: 'PATCH', path, headers, body: '{"enabled":true}' },
      { method: 'PATCH', path, headers, body: '{"enabled":false}' },
    ]);
  }
  return lists;
}

async function load(server, connections, duration) {
  const before = await server.cpu();
  const r = await runLoad({
    url: server.url,
    connections,
    pipelining: 1,
    duration,
    requestsPerConnection: requestsPerConnection(server, connections),
  });
  const after = await server.cpu();
  const bad = Object.entries(r.statusCodes).filter(([code]) => code !== '200');
  if (bad.length > 0 || r.errors > 0 || r.timeouts > 0)
    throw new Error(
      `PATCH load: answers ${JSON.stringify(r.statusCodes)}, errors ${r.errors}, timeouts ${r.timeouts}`,
    );
  const cpuUs = after.user - before.user + after.system - before.system;
  return { ...r, cpuUsPerRequest: cpuUs / r.requests };
}

export async function run({ log = console.log } = {}) {
  const s = settings();
  const dataDir = mkdtempSync(join(s.tmpDir, 'flagwire-bench-'));
  let fsType = '?';
  try {
    fsType = `0x${statfsSync(s.tmpDir).type.toString(16)}`;
  } catch {}
  let memory;
  let durable;
  try {
    const fsyncBefore = fdatasyncRate(dataDir, s.fsyncSeconds);
    const asyncBefore = await asyncFdatasyncRate(dataDir, s.fsyncSeconds);
    log(
      `  raw fdatasync in ${s.tmpDir} (statfs type ${fsType}): ${fmt.int(fsyncBefore)} /s ` +
        `(write+fdatasync, sync calls); ${fmt.int(asyncBefore)} /s through async FileHandle.write + datasync`,
    );

    memory = await startServerChild({ memory: true }, 'writes-memory');
    durable = await startServerChild({ dataDir: join(dataDir, 'data') }, 'writes-durable');
    await setUp(memory);
    await setUp(durable);
    // Warm-up, not counted.
    for (const server of [memory, durable]) await load(server, 16, 1);

    const rows = [];
    for (const c of s.concurrency) {
      const runs = [];
      for (let round = 1; round <= s.rounds; round++) {
        const m = await load(memory, c, s.duration);
        const d = await load(durable, c, s.duration);
        runs.push({ memory: m, durable: d, ratio: d.rps / m.rps });
        log(
          `  ${String(c).padStart(2)} clients, round ${round}/${s.rounds}: memory ${fmt.int(m.rps)} PATCH/s, ` +
            `durable ${fmt.int(d.rps)} PATCH/s (mean ${fmt.ms(d.latency.average, 2)}, p99 ${fmt.ms(d.latency.p99, 0)}), ` +
            `ratio ${fmt.pct(d.rps / m.rps)}; server CPU/PATCH memory ${m.cpuUsPerRequest.toFixed(0)} us, durable ${d.cpuUsPerRequest.toFixed(0)} us`,
        );
      }
      rows.push({
        concurrency: c,
        memoryRps: median(runs.map((r) => r.memory.rps)),
        durableRps: median(runs.map((r) => r.durable.rps)),
        ratio: median(runs.map((r) => r.ratio)),
        durableLatencyMeanMs: median(runs.map((r) => r.durable.latency.average)),
        durableLatencyP99Ms: median(runs.map((r) => r.durable.latency.p99)),
        memoryLatencyMeanMs: median(runs.map((r) => r.memory.latency.average)),
        memoryCpuUsPerRequest: median(runs.map((r) => r.memory.cpuUsPerRequest)),
        durableCpuUsPerRequest: median(runs.map((r) => r.durable.cpuUsPerRequest)),
        runs: runs.map((r) => ({
          memoryRps: r.memory.rps,
          durableRps: r.durable.rps,
          ratio: r.ratio,
          durableLatency: r.durable.latency,
          memoryLatency: r.memory.latency,
        })),
      });
    }

    const fsyncAfter = fdatasyncRate(dataDir, s.fsyncSeconds);
    const asyncAfter = await asyncFdatasyncRate(dataDir, s.fsyncSeconds);
    log(
      `  raw fdatasync after the runs: ${fmt.int(fsyncAfter)} /s; async FileHandle: ${fmt.int(asyncAfter)} /s`,
    );
    const fsyncRate = median([fsyncBefore, fsyncAfter]);
    const asyncRate = median([asyncBefore, asyncAfter]);
    const single = rows.find((r) => r.concurrency === 1)?.durableRps;
    for (const row of rows) {
      row.durablePerRawFsync = row.durableRps / fsyncRate;
      row.durablePerAsyncFsync = row.durableRps / asyncRate;
      row.durableSpeedupVsOneClient = single ? row.durableRps / single : Number.NaN;
    }

    const result = {
      settings: { ...s, flags: FLAGS, fsType },
      fdatasyncPerSecond: { before: fsyncBefore, after: fsyncAfter, median: fsyncRate },
      asyncFileHandleWriteDatasyncPerSecond: { before: asyncBefore, after: asyncAfter, median: asyncRate },
      byConcurrency: rows,
    };
    const text = table(
      rows.map((r) => ({
        c: r.concurrency,
        memory: fmt.int(r.memoryRps),
        durable: fmt.int(r.durableRps),
        ratio: fmt.pct(r.ratio),
        mean: fmt.ms(r.durableLatencyMeanMs, 2),
        p99: fmt.ms(r.durableLatencyP99Ms, 0),
        speedup: `${r.durableSpeedupVsOneClient.toFixed(1)}x`,
        perFsync: r.durablePerRawFsync.toFixed(2),
        fsync: fmt.int(fsyncRate),
        asyncFsync: fmt.int(asyncRate),
      })),
      [
        { key: 'c', title: 'writes: clients' },
        { key: 'memory', title: 'memory PATCH/s' },
        { key: 'durable', title: 'durable PATCH/s' },
        { key: 'ratio', title: 'durable/memory' },
        { key: 'mean', title: 'durable mean' },
        { key: 'p99', title: 'durable p99' },
        { key: 'speedup', title: 'vs 1 client' },
        { key: 'perFsync', title: 'PATCHes per raw fdatasync' },
        { key: 'fsync', title: 'raw fdatasync/s' },
        { key: 'asyncFsync', title: 'async write+datasync/s' },
      ],
    );
    return { result, text };
  } finally {
    await memory?.close();
    await durable?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
