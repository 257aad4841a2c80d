/**
 * Benchmark: usage report ingestion (issue 24, `docs/protocol.md` §13), bench/README.md. N
 * reporters (64) in one process (`lib/usage-reporters.mjs`), each sending `POST /sdk/usage` one
 * at a time: a report of 20 flags x 2 variants (rollout flags, `on`/`ROLLOUT_IN` and
 * `off`/`ROLLOUT_OUT`, counts of its own), a fresh random id each, its own client `instance`,
 * one environment and API key with the per-key rate limit raised (`usage: { reportsPerSecond,
 * burst }`) so `429` never caps it. On three set-ups, each behind a round-robin TCP front
 * (`lib/tcp-front.mjs`, its own process): one server on the journal (`dataDir`), one and three
 * instances on one Postgres database (`lib/postgres.mjs`). Baseline, in the same rounds and the
 * same way: `GET /sdk/flags` (the same 20 flags) through the same front to the same servers.
 * Figures: reports/s, the servers' CPU (their processes' `cpuUsage`) per accepted report, and
 * both as ratios to the baseline; medians over rounds, set-ups and kinds alternating, the order
 * rotating. At the end every instance's totals (`GET /api/v1/usage/flags/:key`, per variant and
 * reason) must equal what was accepted, and every reporter must be a client: the run fails
 * otherwise.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCluster, startInstances } from './lib/postgres.mjs';
import {
  benchConfig,
  cleanUp,
  cpuMs,
  fmt,
  httpGet,
  knob,
  median,
  startChild,
  startServer,
  sum,
  table,
  tempDir,
} from './lib/util.mjs';

const FLAG_COUNT = knob('FLAGWIRE_BENCH_USAGE_FLAGS', 20);
const flagKey = (i) => `usage.flag-${String(i).padStart(2, '0')}`;
const APPS = ['checkout', 'search', 'billing', 'mobile-api'];
/** Reporter r's count of flag f's variant v (0 `on`, 1 `off`): 1 to 500, different per reporter. */
const countOf = (r, f, v) => 1 + ((r * 37 + f * 13 + v * 101) % 500);
const VARIANTS = [
  { variant: 'on', reason: 'ROLLOUT_IN' },
  { variant: 'off', reason: 'ROLLOUT_OUT' },
];
/** No reporter is ever refused with 429. */
const UNLIMITED = { reportsPerSecond: 1e9, burst: 1e9 };

const settings = () => ({
  reporters: knob('FLAGWIRE_BENCH_USAGE_REPORTERS', 64),
  flags: FLAG_COUNT,
  rounds: knob('FLAGWIRE_BENCH_USAGE_ROUNDS', 3),
  duration: knob('FLAGWIRE_BENCH_USAGE_DURATION', 2),
  warmup: 1,
  postgresInstances: (process.env.FLAGWIRE_BENCH_USAGE_PG ?? '1,3')
    .split(',')
    .map(Number)
    .filter((n) => n > 0),
  front: process.env.FLAGWIRE_BENCH_USAGE_FRONT !== '0',
});

/** Reporter r's report as `{ head, tail }` around its id (a JSON text). */
function reportBody(r, versions, eventId) {
  const counts = [];
  for (let f = 0; f < FLAG_COUNT; f++)
    for (const [v, { variant, reason }] of VARIANTS.entries())
      counts.push({
        key: flagKey(f),
        version: versions[flagKey(f)],
        variant,
        reason,
        count: countOf(r, f, v),
      });
  const now = Date.now();
  const text = JSON.stringify({
    id: '@ID@',
    sdk: { name: 'flagwire-js', version: '0.1.0' },
    runtime: `node/${process.versions.node}`,
    app: { name: APPS[r % APPS.length], version: '4.2.0' },
    instance: `i_${randomBytes(16).toString('base64url')}`,
    eventId,
    state: 'connected',
    window: { start: now - 60_000, end: now },
    counts,
  });
  const [head, tail] = text.split('@ID@');
  return { head, tail };
}

/** One timed run of `kind` on a set-up: rate, the servers' (Postgres's, the front's) CPU per request. */
async function measure(setup, reporters, key, kind, seconds) {
  const procs = [...setup.servers, ...(setup.front ? [setup.front] : [])];
  const cpu0 = await Promise.all(procs.map((p) => p.cpu()));
  const pg0 = setup.pg?.backendCpuMs();
  const got = await reporters.call(
    'run',
    { kind, targets: setup.targets, key, seconds },
    seconds * 1000 + 60_000,
  );
  const pgMs = setup.pg ? setup.pg.backendCpuMs() - pg0 : Number.NaN;
  const cpu1 = await Promise.all(procs.map((p) => p.cpu()));
  const ms = cpu1.map((b, i) => cpuMs(cpu0[i], b));
  const want = kind === 'report' ? 202 : 200;
  const statuses = Object.keys(got.statuses);
  if (statuses.length !== 1 || Number(statuses[0]) !== want || got.duplicates > 0)
    throw new Error(
      `${setup.id} ${kind}: expected only ${want}, got ${JSON.stringify(got.statuses)}, ${got.duplicates} duplicates; ${got.errors.join('; ')}`,
    );
  if (kind === 'report') for (const [r, n] of got.accepted.entries()) setup.sent[r] += n;
  const serverMs = sum(ms.slice(0, setup.servers.length));
  const perRequestUs = (cpuMsTotal) => (cpuMsTotal * 1000) / got.requests;
  return {
    requests: got.requests,
    rps: got.requests / (got.elapsedMs / 1000),
    serverCpuUs: perRequestUs(serverMs),
    postgresCpuUs: perRequestUs(pgMs),
    frontCpuUs: setup.front ? perRequestUs(ms.at(-1)) : Number.NaN,
    reportersCpuUs: got.cpuUs / got.requests,
    p50Ms: got.latency.p50,
    p99Ms: got.latency.p99,
  };
}

/** Every instance's totals per flag, variant and reason equal what the reporters had accepted; every reporter is a client. */
async function checkTotals(setup, key, reporters) {
  const problems = [];
  const sentReports = sum(setup.sent);
  for (const [i, server] of setup.servers.entries()) {
    const auth = { authorization: `Bearer ${key}` };
    for (let f = 0; f < FLAG_COUNT; f++) {
      const res = await httpGet(`${server.url}/api/v1/usage/flags/${flagKey(f)}?range=24h`, auth);
      if (res.status !== 200) {
        problems.push(`instance ${i + 1}: ${flagKey(f)}: ${res.status} ${res.body.toString().slice(0, 200)}`);
        continue;
      }
      const body = JSON.parse(res.body.toString());
      const expected = VARIANTS.map((_, v) => sum(setup.sent.map((n, r) => n * countOf(r, f, v))));
      const got = VARIANTS.map(({ variant, reason }) =>
        sum(body.series.filter((s) => s.variant === variant && s.reason === reason).flatMap((s) => s.points)),
      );
      const others = body.series.filter(
        (s) => !VARIANTS.some((v) => v.variant === s.variant && v.reason === s.reason),
      );
      if (got.some((n, v) => n !== expected[v]) || body.total !== sum(expected) || others.length > 0)
        problems.push(
          `instance ${i + 1}: ${flagKey(f)}: total ${body.total}, on ${got[0]}, off ${got[1]}; sent ${sum(expected)}, on ${expected[0]}, off ${expected[1]}${others.length ? `; unexpected series ${JSON.stringify(others)}` : ''}`,
        );
    }
    const res = await httpGet(`${server.url}/api/v1/usage/clients`, auth);
    const clients = res.status === 200 ? JSON.parse(res.body.toString()).clients.length : res.status;
    if (clients !== reporters) problems.push(`instance ${i + 1}: ${clients} clients, not ${reporters}`);
  }
  if (problems.length > 0)
    throw new Error(
      `${setup.id}: the server's usage totals are not what was sent (${sentReports} reports accepted):\n  ${problems.slice(0, 20).join('\n  ')}`,
    );
  return { reports: sentReports, instances: setup.servers.length, flags: FLAG_COUNT };
}

/** Usage commits in a Postgres database and the reports they held: how reports were grouped. */
async function groupCommits(pg, database) {
  const [row] = await pg.cluster.query(
    `SELECT count(*)::int AS commits, coalesce(sum(json_array_length(o->'reports')), 0)::int AS reports
       FROM flagwire_entries, json_array_elements(ops) AS o WHERE o->>'t' = 'usage'`,
    [],
    database,
  );
  return row;
}

export async function run({ log }) {
  const s = settings();
  const flags = Array.from({ length: FLAG_COUNT }, (_, i) => ({
    key: flagKey(i),
    type: 'rollout',
    percentage: 50,
    enabled: true,
  }));
  const { keys, config } = benchConfig({ live: flags });
  const key = keys.live.full;
  const options = { config, usage: UNLIMITED };
  const dir = tempDir('usage');

  const setups = [];
  const addSetup = async (id, label, servers, pg) => {
    let targets;
    let front;
    if (s.front) {
      const child = startChild('lib/tcp-front.mjs', `${id} front`);
      const { url } = await child.call('start', { backends: servers.map((x) => x.url) });
      front = { ...child, cpu: () => child.call('cpu') };
      targets = Array.from({ length: s.reporters }, () => url);
    } else {
      targets = Array.from({ length: s.reporters }, (_, r) => servers[r % servers.length].url);
    }
    setups.push({ id, label, servers, pg, front, targets, sent: Array(s.reporters).fill(0) });
  };
  await addSetup('journal', 'journal x1', [
    await startServer({ dataDir: join(dir, 'journal'), ...options }, 'usage-journal'),
  ]);
  let pg;
  if (s.postgresInstances.length > 0) {
    pg = await startCluster();
    log(`  ${pg.version} on port ${pg.cluster.port}`);
    for (const n of s.postgresInstances) {
      const url = await pg.cluster.createDatabase(`usage_${n}`);
      await addSetup(`pg${n}`, `pg x${n}`, await startInstances(url, n, `usage-pg${n}`, options), pg);
      setups.at(-1).database = `usage_${n}`;
    }
  }

  // The flags' versions and the event id a client holds, as an SDK's report names them.
  const held = JSON.parse(
    (
      await httpGet(`${setups[0].servers[0].url}/sdk/flags`, { authorization: `Bearer ${key}` })
    ).body.toString(),
  );
  const versions = Object.fromEntries(flags.map((f) => [f.key, held.flags?.[f.key]?.version ?? 1]));
  const bodies = Array.from({ length: s.reporters }, (_, r) => reportBody(r, versions, held.eventId ?? null));
  const reporters = startChild('lib/usage-reporters.mjs', 'usage reporters');
  await reporters.call('setup', { bodies });
  const bytes = Buffer.byteLength(bodies[0].head + 'u_'.padEnd(24, 'x') + bodies[0].tail);
  log(
    `  ${s.reporters} reporters, reports of ${FLAG_COUNT * VARIANTS.length} rows (${fmt.int(bytes)} bytes); ` +
      `rounds: ${s.rounds} x ${s.duration} s per set-up and kind; ${s.front ? 'behind a round-robin TCP front' : 'connections split over the instances'}`,
  );

  const KINDS = ['baseline', 'report'];
  for (const setup of setups) for (const kind of KINDS) await measure(setup, reporters, key, kind, s.warmup); // warm-up, not counted
  const rounds = [];
  for (let round = 0; round < s.rounds; round++) {
    const got = {};
    for (let i = 0; i < setups.length; i++) {
      const setup = setups[(i + round) % setups.length];
      got[setup.id] = {};
      for (let k = 0; k < KINDS.length; k++) {
        const kind = KINDS[(k + round) % KINDS.length];
        got[setup.id][kind] = await measure(setup, reporters, key, kind, s.duration);
      }
    }
    rounds.push(got);
    log(
      `  round ${round + 1}/${s.rounds}, reports/s (server CPU/report) | GET /sdk/flags req/s: ${setups
        .map(
          ({ id }) =>
            `${id} ${fmt.int(got[id].report.rps)} (${fmt.us(got[id].report.serverCpuUs)}) | ${fmt.int(got[id].baseline.rps)}`,
        )
        .join(', ')}`,
    );
  }

  const checks = {};
  for (const setup of setups) {
    checks[setup.id] = await checkTotals(setup, key, s.reporters);
    log(
      `  ${setup.id}: ${fmt.int(checks[setup.id].reports)} reports accepted; totals equal on every instance`,
    );
  }
  const routed = {};
  for (const setup of setups) if (setup.front) routed[setup.id] = await setup.front.call('routed');
  const grouping = {};
  for (const setup of setups) if (setup.database) grouping[setup.id] = await groupCommits(pg, setup.database);

  const figures = {};
  for (const { id } of setups) {
    const med = (kind, k) => median(rounds.map((r) => r[id][kind][k]));
    const ratio = (k) => median(rounds.map((r) => r[id].report[k] / r[id].baseline[k]));
    const kept = ['rps', 'serverCpuUs', 'postgresCpuUs', 'frontCpuUs', 'reportersCpuUs', 'p50Ms', 'p99Ms'];
    figures[id] = {
      report: Object.fromEntries(kept.map((k) => [k, med('report', k)])),
      baseline: Object.fromEntries(kept.map((k) => [k, med('baseline', k)])),
      rpsRatio: ratio('rps'),
      cpuRatio: ratio('serverCpuUs'),
      rounds: rounds.map((r) => r[id]),
    };
  }
  const vsJournal = (id) => median(rounds.map((r) => r[id].report.rps / r.journal.report.rps));
  const result = {
    settings: { ...s, reportBytes: bytes },
    postgres: pg?.version,
    figures,
    checks,
    routed,
    grouping,
  };

  const text = [
    table(
      'usage-ingest: set-up|reports/s|x journal|GET /sdk/flags req/s|reports/baseline|server CPU/report|CPU/GET|CPU ratio|report p50 / p99',
      setups.map(({ id, label }) => {
        const f = figures[id];
        return [
          label,
          fmt.int(f.report.rps),
          fmt.x(vsJournal(id)),
          fmt.int(f.baseline.rps),
          fmt.pct(f.rpsRatio),
          fmt.us(f.report.serverCpuUs),
          fmt.us(f.baseline.serverCpuUs),
          fmt.x(f.cpuRatio, 1),
          `${fmt.ms(f.report.p50Ms)} / ${fmt.ms(f.report.p99Ms)}`,
        ];
      }),
    ),
    table(
      '(info) set-up|Postgres CPU/report|reports per commit|front CPU/report|reporters CPU/report|connections per instance|reports accepted (all runs)',
      setups.map(({ id, label }) => [
        label,
        fmt.us(figures[id].report.postgresCpuUs),
        grouping[id] ? (grouping[id].reports / grouping[id].commits).toFixed(1) : '-',
        fmt.us(figures[id].report.frontCpuUs),
        fmt.us(figures[id].report.reportersCpuUs),
        routed[id]?.join(' / ') ?? '-',
        fmt.int(checks[id].reports),
      ]),
    ),
    `  totals: every instance's per-flag, per-variant sums (${FLAG_COUNT} flags x ${VARIANTS.length}) equal the accepted reports' counts; ${s.reporters} clients each: PASS`,
  ].join('\n\n');
  return { result, text };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    console.log((await run({ log: console.log })).text);
  } catch (error) {
    process.exitCode = 1;
    console.error(`usage-ingest failed: ${error?.stack ?? error}`);
  } finally {
    await cleanUp();
  }
}
