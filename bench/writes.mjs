/**
 * Benchmark: PATCHes per second on each store (docs/protocol.md §7.3, docs/scaling.md).
 *
 * 1, 16 and 64 concurrent clients (autocannon connections, pipelining 1, each toggling its own
 * flag of 64, so every PATCH commits) against four configurations, every server in its own
 * process, every load generator in another:
 * - `memory`: in memory, the baseline of the journal;
 * - `journal`: a durable `dataDir` (one fdatasync per commit; concurrent writes share one: group
 *   commit), the baseline of Postgres;
 * - `pg x1`: one instance on Postgres (a throwaway cluster: `lib/postgres.mjs`, the tests'
 *   launcher), its own database;
 * - `pg x3`: three instances on one database, the load split: three autocannon processes at once,
 *   a third of the connections each (16 = 6 + 5 + 5), PATCH/s summed; one client goes to one
 *   instance, a different one each round.
 * Rounds alternate the four, the order rotating a step per round; the figures are the medians of
 * the rounds and of the per-round ratios. For information: the servers' CPU per PATCH, Postgres's
 * (postmaster and backends, from /proc), and the raw `write + fdatasync` rate of the temp dir's disk
 * before and after (sync calls; and Node's async `FileHandle`, the journal's path: one client's
 * ceiling).
 */
import { closeSync, fdatasyncSync, openSync, rmSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startCluster, startInstances } from './lib/postgres.mjs';
import {
  benchConfig,
  cpuMs,
  fmt,
  knob,
  listKnob,
  median,
  runLoad,
  startServer,
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
  const parts = Array.from({ length: n }, (_, i) => Math.floor(total / n) + (i < total % n ? 1 : 0));
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
  const serverMs = (await Promise.all(c.servers.map((s) => s.cpu()))).reduce(
    (a, b, i) => a + cpuMs(cpu0[i], b),
    0,
  );
  for (const r of results)
    if (Object.keys(r.statusCodes).some((code) => code !== '200') || r.errors > 0 || r.timeouts > 0)
      throw new Error(
        `${c.id}: answers ${JSON.stringify(r.statusCodes)}, errors ${r.errors}, timeouts ${r.timeouts}`,
      );
  const requests = results.reduce((a, r) => a + r.requests, 0);
  return {
    parts,
    rps: results.reduce((a, r) => a + r.rps, 0),
    meanMs: results.reduce((a, r) => a + r.latency.average * r.requests, 0) / requests,
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
  const configs = [
    { id: 'memory', servers: [await startServer({ memory: true, config }, 'writes-memory')] },
    { id: 'journal', servers: [await startServer({ dataDir: join(dir, 'data'), config }, 'writes-journal')] },
    {
      id: 'pg1',
      pg,
      servers: await startInstances(await pg.cluster.createDatabase('writes_one'), 1, 'writes-pg1', {
        config,
      }),
    },
    {
      id: 'pg3',
      pg,
      servers: await startInstances(await pg.cluster.createDatabase('writes_three'), 3, 'writes-pg3', {
        config,
      }),
    },
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
    for (const { id } of configs)
      row[id] = {
        rps: med(id, 'rps'),
        meanMs: med(id, 'meanMs'),
        p99Ms: med(id, 'p99Ms'),
        serverCpuUs: med(id, 'serverCpuUs'),
        postgresCpuUs: med(id, 'postgresCpuUs'),
      };
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
  const us = (v) => (Number.isFinite(v) ? `${v.toFixed(0)} us` : '-');
  const text = [
    table(
      [
        'writes: clients',
        'memory PATCH/s',
        'journal',
        'journal/memory',
        'pg x1',
        'pg x1/journal',
        'pg x3',
        'pg x3/journal',
        'pg x3/pg x1',
      ],
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
      [
        '(info) clients',
        'mean / p99: journal',
        'pg x1',
        'pg x3 (worst p99)',
        'server CPU/PATCH: memory',
        'journal',
        'pg x1',
        'pg x3 (all)',
        'Postgres CPU/PATCH: pg x1',
        'pg x3',
      ],
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
