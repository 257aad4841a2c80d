/** Benchmark `writes`: PATCH/s by clients toggling a flag each, on every store, in rotating rounds. */
import { closeSync, fdatasyncSync, openSync, rmSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startCluster, startInstances } from './lib/postgres.mjs';
import * as u from './lib/util.mjs';

const { fmt, sum } = u;
const FLAGS = 64;
const flagKey = (i) => `write.flag-${String(i).padStart(2, '0')}`;
const KEPT = ['rps', 'meanMs', 'p99Ms', 'serverCpuUs', 'postgresCpuUs'];
/** Appends of 100 bytes + fdatasync per second, by sync calls, then a `FileHandle` (a client's ceiling). */
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
  const parts = u.evenSplit(total, n);
  return total < n ? parts.map((_, i) => parts[(i - (round % n) + n) % n]) : parts;
}
/** One run of `connections` clients on a configuration's servers → PATCH/s, latency, CPU per PATCH. */
async function writeRun(c, key, connections, duration, round) {
  const parts = split(connections, c.servers.length, round);
  const cpu = await u.cpuMeter(c.servers);
  const pg0 = c.pg?.backendCpuMs();
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  let offset = 0;
  const runs = c.servers.map((server, i) => {
    const lists = Array.from({ length: parts[i] }, (_, j) => {
      const path = `/api/v1/flags/${flagKey((offset + j) % FLAGS)}`;
      return [true, false].map((on) => ({ method: 'PATCH', path, headers, body: `{"enabled":${on}}` }));
    });
    offset += parts[i];
    const config = { url: server.url, connections: parts[i], duration, requestsPerConnection: lists };
    return parts[i] && u.runLoad(config);
  });
  const results = (await Promise.all(runs)).filter(Boolean);
  const pgMs = c.pg ? c.pg.backendCpuMs() - pg0 : Number.NaN;
  const serverMs = sum(await cpu());
  for (const r of results) u.expectStatus(r, 200, c.id);
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
  const concurrency = u.listKnob('FLAGWIRE_BENCH_WRITE_CONCURRENCY', '1,16,64');
  const s = { concurrency, ...u.knobs('WRITE_', { duration: 4, rounds: 3 }) };
  const dir = u.tempDir('writes');
  const fsyncBefore = await fdatasyncRates(dir, 2);
  log(`  raw fdatasync: ${fmt.int(fsyncBefore.sync)}/s; FileHandle ${fmt.int(fsyncBefore.async)}/s`);
  const pg = await startCluster(log);
  const flags = Array.from({ length: FLAGS }, (_, i) => ({ key: flagKey(i), type: 'boolean' }));
  const { keys, config } = u.benchConfig({ live: flags });
  const onPostgres = async (id, count, database) => {
    const url = await pg.cluster.createDatabase(database);
    return { id, pg, servers: await startInstances(url, count, `writes-${id}`, { config }) };
  };
  const dataDir = join(dir, 'data');
  const configs = [
    { id: 'memory', servers: [await u.startServer({ memory: true, config }, 'writes-memory')] },
    { id: 'journal', servers: [await u.startServer({ dataDir, config }, 'writes-journal')] },
    await onPostgres('pg1', 1, 'writes_one'),
    await onPostgres('pg3', 3, 'writes_three'),
  ];
  for (const c of configs) await writeRun(c, keys.live.full, 16, 1, 0); // warm-up, not counted

  const rows = [];
  for (const clients of s.concurrency) {
    const rounds = [];
    for (let round = 0; round < s.rounds; round++) {
      const got = {};
      for (const c of u.rotated(configs, round))
        got[c.id] = await writeRun(c, keys.live.full, clients, s.duration, round);
      rounds.push(got);
      const rates = configs.map(({ id }) => `${id} ${fmt.int(got[id].rps)}`).join(', ');
      log(`  ${clients} clients, PATCH/s: ${rates}`);
    }
    const ratio = (id, base) => u.median(rounds.map((r) => r[id].rps / r[base].rps));
    const row = { clients, rounds };
    for (const { id } of configs) row[id] = u.medians(KEPT, rounds, id);
    row.ratios = {
      journalToMemory: ratio('journal', 'memory'),
      pg1ToJournal: ratio('pg1', 'journal'),
      pg3ToJournal: ratio('pg3', 'journal'),
      pg3ToPg1: ratio('pg3', 'pg1'),
    };
    rows.push(row);
  }
  const fsyncAfter = await fdatasyncRates(dir, 2);
  const fdatasyncPerSecond = { before: fsyncBefore, after: fsyncAfter };
  const result = { settings: s, postgres: pg.version, fdatasyncPerSecond, byConcurrency: rows };
  const lat = (f) => `${fmt.ms(f.meanMs, 2)} / ${fmt.ms(f.p99Ms, 0)}`;
  const text = [
    u.table(
      'writes: clients|memory PATCH/s|journal|journal/memory|pg x1|pg x1/journal|pg x3|pg x3/journal|pg x3/pg x1',
      rows.map(({ clients, memory, journal, pg1, pg3, ratios: r }) => {
        const pgs = [fmt.int(pg1.rps), fmt.x(r.pg1ToJournal), fmt.int(pg3.rps), fmt.x(r.pg3ToJournal)];
        const local = [fmt.int(memory.rps), fmt.int(journal.rps), fmt.pct(r.journalToMemory)];
        return [clients, ...local, ...pgs, fmt.x(r.pg3ToPg1)];
      }),
    ),
    u.table(
      '(info) clients|mean / p99: journal|pg x1|pg x3 (worst p99)|server CPU/PATCH: memory|journal|pg x1|pg x3 (all)|Postgres CPU/PATCH: pg x1|pg x3',
      rows.map((r) => [
        r.clients,
        ...[r.journal, r.pg1, r.pg3].map(lat),
        ...[r.memory, r.journal, r.pg1, r.pg3].map((f) => fmt.us(f.serverCpuUs)),
        ...[r.pg1, r.pg3].map((f) => fmt.us(f.postgresCpuUs)),
      ]),
    ),
    `  raw write + fdatasync/s before / after: ${fmt.int(fsyncBefore.sync)} / ${fmt.int(fsyncAfter.sync)} (sync calls), ` +
      `${fmt.int(fsyncBefore.async)} / ${fmt.int(fsyncAfter.async)} (FileHandle)`,
  ].join('\n\n');
  return { result, text };
}
