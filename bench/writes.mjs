/**
 * Benchmark: PATCHes per second on each store (bench/README.md): 1, 16 and 64 clients (autocannon
 * connections, each toggling its own flag of 64, so every PATCH commits) on `memory` (the
 * journal's baseline), `journal` (a durable `dataDir`, group commit; Postgres's baseline), `pg1`
 * (one instance on a throwaway Postgres, `lib/postgres.mjs`) and `pg3` (three instances on one
 * database: three autocannon processes, the connections split, PATCH/s summed). Rounds alternate
 * the four, the order rotating; medians of the rounds and of the per-round ratios. For
 * information: CPU per PATCH of the servers and of Postgres, and the disk's raw `write +
 * fdatasync` rate before and after (sync calls, and a `FileHandle`: one client's ceiling).
 */
import { closeSync, fdatasyncSync, openSync, rmSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startCluster, startInstances } from './lib/postgres.mjs';
import {
  benchConfig,
  cpuMs,
  evenSplit,
  expectStatus,
  fmt,
  knob,
  listKnob,
  median,
  runLoad,
  startServer,
  sum,
  table,
  tempDir,
} from './lib/util.mjs';

const FLAGS = 64;
const flagKey = (i) => `write.flag-${String(i).padStart(2, '0')}`;

/** Appends of 100 bytes + fdatasync in a loop for `seconds`, with sync calls, then through a `FileHandle`: per second. */
async function fdatasyncRates(dir, seconds) {
  const file = join(dir, 'fdatasync-probe');
  const line = Buffer.from(`${'x'.repeat(99)}\n`);
  const fd = openSync(file, 'a');
  let n = 0;
  let t0 = performance.now();
  for (; performance.now() - t0 < seconds * 1000; n++) {
    writeSync(fd, line);
    fdatasyncSync(fd);
  }
  const sync = n / ((performance.now() - t0) / 1000);
  closeSync(fd);
  const handle = await open(file, 'a');
  t0 = performance.now();
  for (n = 0; performance.now() - t0 < seconds * 1000; n++) {
    await handle.write(line);
    await handle.datasync();
  }
  const asyncRate = n / ((performance.now() - t0) / 1000);
  await handle.close();
  rmSync(file);
  return { sync, async: asyncRate };
}

/** `total` connections over `n` servers: 16 -> [6, 5, 5]; 1 -> [1, 0, 0] rotated by `round`. */
function split(total, n, round) {
  const parts = evenSplit(total, n);
  return total < n ? parts.map((_, i) => parts[(i - (round % n) + n) % n]) : parts;
}

/** One timed run of `connections` clients on a configuration's servers → PATCH/s summed, latency, CPU per PATCH. */
async function writeRun(c, key, connections, duration, round) {
  const parts = split(connections, c.servers.length, round);
  const cpu0 = await Promise.all(c.servers.map((s) => s.cpu()));
  const pg0 = c.pg?.backendCpuMs();
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  let offset = 0;
  const runs = c.servers.map((server, i) => {
    const lists = Array.from({ length: parts[i] }, (_, j) => {
      const path = `/api/v1/flags/${flagKey((offset + j) % FLAGS)}`;
      return [true, false].map((enabled) => ({
        method: 'PATCH',
        path,
        headers,
        body: `{"enabled":${enabled}}`,
      }));
    });
    offset += parts[i];
    return (
      parts[i] && runLoad({ url: server.url, connections: parts[i], duration, requestsPerConnection: lists })
    );
  });
  const results = (await Promise.all(runs)).filter(Boolean);
  const pgMs = c.pg ? c.pg.backendCpuMs() - pg0 : Number.NaN;
  const cpu1 = await Promise.all(c.servers.map((s) => s.cpu()));
  const serverMs = sum(cpu1.map((b, i) => cpuMs(cpu0[i], b)));
  for (const r of results) expectStatus(r, 200, c.id);
  const requests = sum(results.map((r) => r.requests));
  return {
    parts,
    rps: sum(results.map((r) => r.rps)),
    meanMs: sum(results.map((r) => r.latency.average * r.requests)) / requests,
    p99Ms: Math.max(...results.map((r) => r.latency.p99)),
    serverCpuUs: (serverMs * 1000) / requests,
    postgresCpuUs: (pgMs * 1000) / requests,
  };
}

export async function run({ log }) {
  const s = {
    concurrency: listKnob('FLAGWIRE_BENCH_WRITE_CONCURRENCY', '1,16,64'),
    duration: knob('FLAGWIRE_BENCH_WRITE_DURATION', 4),
    rounds: knob('FLAGWIRE_BENCH_WRITE_ROUNDS', 3),
  };
  const dir = tempDir('writes');
  const fsyncBefore = await fdatasyncRates(dir, 2);
  log(
    `  raw fdatasync in ${dir}: ${fmt.int(fsyncBefore.sync)}/s; through FileHandle ${fmt.int(fsyncBefore.async)}/s`,
  );
  const pg = await startCluster();
  log(`  ${pg.version} on port ${pg.cluster.port}`);
  const { keys, config } = benchConfig({
    live: Array.from({ length: FLAGS }, (_, i) => ({ key: flagKey(i), type: 'boolean' })),
  });
  const onPostgres = async (id, count, database) => {
    const url = await pg.cluster.createDatabase(database);
    return { id, pg, servers: await startInstances(url, count, `writes-${id}`, { config }) };
  };
  const configs = [
    { id: 'memory', servers: [await startServer({ memory: true, config }, 'writes-memory')] },
    { id: 'journal', servers: [await startServer({ dataDir: join(dir, 'data'), config }, 'writes-journal')] },
    await onPostgres('pg1', 1, 'writes_one'),
    await onPostgres('pg3', 3, 'writes_three'),
  ];
  for (const c of configs) await writeRun(c, keys.live.full, 16, 1, 0); // warm-up, not counted

  const rows = [];
  for (const clients of s.concurrency) {
    const rounds = [];
    for (let round = 0; round < s.rounds; round++) {
      const got = {};
      for (let i = 0; i < configs.length; i++) {
        const c = configs[(i + round) % configs.length];
        got[c.id] = await writeRun(c, keys.live.full, clients, s.duration, round);
      }
      rounds.push(got);
      log(
        `  ${clients} clients, round ${round + 1}/${s.rounds}, PATCH/s: ${configs.map(({ id }) => `${id} ${fmt.int(got[id].rps)}`).join(', ')}`,
      );
    }
    const med = (id, k) => median(rounds.map((r) => r[id][k]));
    const ratio = (id, base) => median(rounds.map((r) => r[id].rps / r[base].rps));
    const row = { clients, rounds };
    const kept = ['rps', 'meanMs', 'p99Ms', 'serverCpuUs', 'postgresCpuUs'];
    for (const { id } of configs) row[id] = Object.fromEntries(kept.map((k) => [k, med(id, k)]));
    row.ratios = {
      journalToMemory: ratio('journal', 'memory'),
      pg1ToJournal: ratio('pg1', 'journal'),
      pg3ToJournal: ratio('pg3', 'journal'),
      pg3ToPg1: ratio('pg3', 'pg1'),
    };
    rows.push(row);
  }
  const fsyncAfter = await fdatasyncRates(dir, 2);
  const result = {
    settings: s,
    postgres: pg.version,
    fdatasyncPerSecond: { before: fsyncBefore, after: fsyncAfter },
    byConcurrency: rows,
  };
  const lat = (f) => `${fmt.ms(f.meanMs, 2)} / ${fmt.ms(f.p99Ms, 0)}`;
  const us = fmt.us;
  const text = [
    table(
      'writes: clients|memory PATCH/s|journal|journal/memory|pg x1|pg x1/journal|pg x3|pg x3/journal|pg x3/pg x1',
      rows.map((r) => [
        r.clients,
        fmt.int(r.memory.rps),
        fmt.int(r.journal.rps),
        fmt.pct(r.ratios.journalToMemory),
        fmt.int(r.pg1.rps),
        fmt.x(r.ratios.pg1ToJournal),
        fmt.int(r.pg3.rps),
        fmt.x(r.ratios.pg3ToJournal),
        fmt.x(r.ratios.pg3ToPg1),
      ]),
    ),
    table(
      '(info) clients|mean / p99: journal|pg x1|pg x3 (worst p99)|server CPU/PATCH: memory|journal|pg x1|pg x3 (all)|Postgres CPU/PATCH: pg x1|pg x3',
      rows.map((r) => [
        r.clients,
        lat(r.journal),
        lat(r.pg1),
        lat(r.pg3),
        us(r.memory.serverCpuUs),
        us(r.journal.serverCpuUs),
        us(r.pg1.serverCpuUs),
        us(r.pg3.serverCpuUs),
        us(r.pg1.postgresCpuUs),
        us(r.pg3.postgresCpuUs),
      ]),
    ),
    `  raw write + fdatasync/s before / after: ${fmt.int(fsyncBefore.sync)} / ${fmt.int(fsyncAfter.sync)} (sync calls), ` +
      `${fmt.int(fsyncBefore.async)} / ${fmt.int(fsyncAfter.async)} (FileHandle)`,
  ].join('\n\n');
  return { result, text };
}
