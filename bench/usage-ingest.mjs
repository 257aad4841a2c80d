/** Benchmark `usage-ingest`: `POST /sdk/usage` against `GET /sdk/flags`, same rounds; totals checked. */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { startCluster, startInstances } from './lib/postgres.mjs';
import * as u from './lib/util.mjs';

const { fmt, median, sum } = u;
const FLAG_COUNT = u.knob('FLAGWIRE_BENCH_USAGE_FLAGS', 20);
const flagKey = (i) => `usage.flag-${String(i).padStart(2, '0')}`;
const APPS = ['checkout', 'search', 'billing', 'mobile-api'];
/** Reporter r's count of flag f's variant v (0 `on`, 1 `off`): 1 to 500, different per reporter. */
const countOf = (r, f, v) => 1 + ((r * 37 + f * 13 + v * 101) % 500);
const ON = { variant: 'on', reason: 'ROLLOUT_IN' };
const VARIANTS = [ON, { variant: 'off', reason: 'ROLLOUT_OUT' }];
const KINDS = ['baseline', 'report'];
const KEPT = ['rps', 'serverCpuUs', 'postgresCpuUs', 'frontCpuUs', 'reportersCpuUs', 'p50Ms', 'p99Ms'];
const settings = () => ({
  ...u.knobs('USAGE_', { reporters: 64, rounds: 3, duration: 2 }),
  flags: FLAG_COUNT,
  warmup: 1,
  postgresInstances: u.listKnob('FLAGWIRE_BENCH_USAGE_PG', '1,3').filter((n) => n > 0),
  front: process.env.FLAGWIRE_BENCH_USAGE_FRONT !== '0',
});
/** Reporter r's report as `{ head, tail }` around its id (a JSON text). */
function reportBody(r, versions, eventId) {
  const counts = [];
  for (let f = 0; f < FLAG_COUNT; f++)
    for (const [v, { variant, reason }] of VARIANTS.entries()) {
      const key = flagKey(f);
      counts.push({ key, version: versions[key], variant, reason, count: countOf(r, f, v) });
    }
  const now = Date.now();
  const [sdk, runtime] = [{ name: 'flagwire-js', version: '0.1.0' }, `node/${process.versions.node}`];
  const app = { name: APPS[r % APPS.length], version: '4.2.0' };
  const instance = `i_${randomBytes(16).toString('base64url')}`;
  const report = { id: '@ID@', sdk, runtime, app, instance, eventId, state: 'connected' };
  const text = JSON.stringify({ ...report, window: { start: now - 60_000, end: now }, counts });
  const [head, tail] = text.split('@ID@');
  return { head, tail };
}
/** One timed run of `kind` on a set-up: rate, the servers' (Postgres's, the front's) CPU per request. */
async function measure(setup, reporters, key, kind, seconds) {
  const cpu = await u.cpuMeter([...setup.servers, ...(setup.front ? [setup.front] : [])]);
  const pg0 = setup.pg?.backendCpuMs();
  const payload = { kind, targets: setup.targets, key, seconds };
  const got = await reporters.call('run', payload, seconds * 1000 + 60_000);
  const pgMs = setup.pg ? setup.pg.backendCpuMs() - pg0 : Number.NaN;
  const ms = await cpu();
  const want = kind === 'report' ? 202 : 200;
  const statuses = Object.keys(got.statuses);
  const wrong = `${setup.id} ${kind}: expected only ${want}, got ${JSON.stringify(got.statuses)}`;
  if (statuses.length !== 1 || Number(statuses[0]) !== want || got.duplicates > 0)
    throw new Error(`${wrong}, ${got.duplicates} duplicates; ${got.errors.join('; ')}`);
  if (kind === 'report') for (const [r, n] of got.accepted.entries()) setup.sent[r] += n;
  const perRequestUs = (cpuMs) => (cpuMs * 1000) / got.requests;
  return {
    requests: got.requests,
    rps: got.requests / (got.elapsedMs / 1000),
    serverCpuUs: perRequestUs(sum(ms.slice(0, setup.servers.length))),
    postgresCpuUs: perRequestUs(pgMs),
    frontCpuUs: setup.front ? perRequestUs(ms.at(-1)) : Number.NaN,
    reportersCpuUs: got.cpuUs / got.requests,
    p50Ms: got.latency.p50,
    p99Ms: got.latency.p99,
  };
}
/** Every instance's totals per flag, variant and reason equal what was accepted; every reporter a client. */
async function checkTotals(setup, key, reporters) {
  const problems = [];
  for (const [i, { url }] of setup.servers.entries()) {
    for (let f = 0; f < FLAG_COUNT; f++) {
      const res = await u.httpJson('GET', `${url}/api/v1/usage/flags/${flagKey(f)}?range=24h`, key);
      if (res.status !== 200) {
        problems.push(`instance ${i + 1}: ${flagKey(f)}: ${res.status} ${String(res.body).slice(0, 200)}`);
        continue;
      }
      const { series, total } = res.json;
      const expected = VARIANTS.map((_, v) => sum(setup.sent.map((n, r) => n * countOf(r, f, v))));
      const mine = (s, v) => s.variant === v.variant && s.reason === v.reason;
      const got = VARIANTS.map((v) => sum(series.filter((s) => mine(s, v)).flatMap((s) => s.points)));
      const others = series.filter((s) => !VARIANTS.some((v) => mine(s, v)));
      if (got.some((n, v) => n !== expected[v]) || total !== sum(expected) || others.length > 0)
        problems.push(
          `instance ${i + 1}: ${flagKey(f)}: total ${total}, on ${got[0]}, off ${got[1]}; sent ${sum(expected)}, on ${expected[0]}, off ${expected[1]}${others.length ? `; unexpected series ${JSON.stringify(others)}` : ''}`,
        );
    }
    const res = await u.httpJson('GET', `${url}/api/v1/usage/clients`, key);
    const clients = res.status === 200 ? res.json.clients.length : res.status;
    if (clients !== reporters) problems.push(`instance ${i + 1}: ${clients} clients, not ${reporters}`);
  }
  const reports = sum(setup.sent);
  const wrong = `${setup.id}: the server's usage totals are not what was sent (${reports} reports accepted)`;
  if (problems.length > 0) throw new Error(`${wrong}:\n  ${problems.slice(0, 20).join('\n  ')}`);
  return { reports, instances: setup.servers.length, flags: FLAG_COUNT };
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
  const flag = (i) => ({ key: flagKey(i), type: 'rollout', percentage: 50, enabled: true });
  const flags = Array.from({ length: FLAG_COUNT }, (_, i) => flag(i));
  const { keys, config } = u.benchConfig({ live: flags });
  const key = keys.live.full;
  // No reporter is ever refused with 429.
  const options = { config, usage: { reportsPerSecond: 1e9, burst: 1e9 } };

  const setups = [];
  const addSetup = async (id, label, servers, pg, database) => {
    let front;
    let targets = Array.from({ length: s.reporters }, (_, r) => servers[r % servers.length].url);
    if (s.front) {
      front = u.startChild('lib/tcp-front.mjs', `${id} front`);
      const { url } = await front.call('start', { backends: servers.map((x) => x.url) });
      targets = targets.map(() => url);
    }
    setups.push({ id, label, servers, pg, database, front, targets, sent: Array(s.reporters).fill(0) });
  };
  const journal = { dataDir: join(u.tempDir('usage'), 'journal'), ...options };
  await addSetup('journal', 'journal x1', [await u.startServer(journal, 'usage-journal')]);
  const pg = s.postgresInstances.length > 0 ? await startCluster(log) : undefined;
  for (const n of s.postgresInstances) {
    const url = await pg.cluster.createDatabase(`usage_${n}`);
    const servers = await startInstances(url, n, `usage-pg${n}`, options);
    await addSetup(`pg${n}`, `pg x${n}`, servers, pg, `usage_${n}`);
  }

  // The flags' versions and the event id a client holds, as an SDK's report names them.
  const held = (await u.httpJson('GET', `${setups[0].servers[0].url}/sdk/flags`, key)).json;
  const versions = Object.fromEntries(flags.map((f) => [f.key, held.flags?.[f.key]?.version ?? 1]));
  const bodies = Array.from({ length: s.reporters }, (_, r) => reportBody(r, versions, held.eventId ?? null));
  const reporters = u.startChild('lib/usage-reporters.mjs', 'usage reporters');
  await reporters.call('setup', { bodies });
  const bytes = Buffer.byteLength(bodies[0].head + 'u_'.padEnd(24, 'x') + bodies[0].tail);
  const how = s.front ? 'behind a round-robin TCP front' : 'connections split over the instances';
  log(`  ${s.reporters} reporters, reports of ${fmt.int(bytes)} bytes; ${how}`);

  for (const setup of setups) for (const kind of KINDS) await measure(setup, reporters, key, kind, s.warmup);
  const rounds = [];
  for (let round = 0; round < s.rounds; round++) {
    const got = {};
    for (const setup of u.rotated(setups, round)) {
      got[setup.id] = {};
      for (const kind of u.rotated(KINDS, round))
        got[setup.id][kind] = await measure(setup, reporters, key, kind, s.duration);
    }
    rounds.push(got);
    const rates = setups.map(({ id }) => `${id} ${fmt.int(got[id].report.rps)}`).join(', ');
    log(`  round ${round + 1}/${s.rounds}, reports/s: ${rates}`);
  }

  const checks = {};
  const routed = {};
  const grouping = {};
  for (const setup of setups) {
    checks[setup.id] = await checkTotals(setup, key, s.reporters);
    log(`  ${setup.id}: ${fmt.int(checks[setup.id].reports)} reports accepted; totals equal everywhere`);
    if (setup.front) routed[setup.id] = await setup.front.call('routed');
    if (setup.database) grouping[setup.id] = await groupCommits(pg, setup.database);
  }

  const figures = {};
  for (const { id } of setups) {
    const mine = rounds.map((r) => r[id]);
    const ratio = (k) => median(mine.map((r) => r.report[k] / r.baseline[k]));
    const [report, baseline] = [u.medians(KEPT, mine, 'report'), u.medians(KEPT, mine, 'baseline')];
    figures[id] = { report, baseline, rpsRatio: ratio('rps'), cpuRatio: ratio('serverCpuUs'), rounds: mine };
  }
  const vsJournal = (id) => median(rounds.map((r) => r[id].report.rps / r.journal.report.rps));
  const info = { ...s, reportBytes: bytes };
  const result = { settings: info, postgres: pg?.version, figures, checks, routed, grouping };

  const text = [
    u.table(
      'usage-ingest: set-up|reports/s|x journal|GET /sdk/flags req/s|reports/baseline|server CPU/report|CPU/GET|CPU ratio|report p50 / p99',
      setups.map(({ id, label }) => {
        const { report, baseline, rpsRatio, cpuRatio } = figures[id];
        const latency = `${fmt.ms(report.p50Ms)} / ${fmt.ms(report.p99Ms)}`;
        const cpu = [fmt.us(report.serverCpuUs), fmt.us(baseline.serverCpuUs), fmt.x(cpuRatio, 1)];
        const rps = [fmt.int(report.rps), fmt.x(vsJournal(id)), fmt.int(baseline.rps), fmt.pct(rpsRatio)];
        return [label, ...rps, ...cpu, latency];
      }),
    ),
    u.table(
      '(info) set-up|Postgres CPU/report|reports per commit|front CPU/report|reporters CPU/report|connections per instance|reports accepted (all runs)',
      setups.map(({ id, label }) => {
        const { report } = figures[id];
        const perCommit = grouping[id] ? (grouping[id].reports / grouping[id].commits).toFixed(1) : '-';
        const cpu = [fmt.us(report.postgresCpuUs), perCommit, fmt.us(report.frontCpuUs)];
        cpu.push(fmt.us(report.reportersCpuUs));
        return [label, ...cpu, routed[id]?.join(' / ') ?? '-', fmt.int(checks[id].reports)];
      }),
    ),
    `  totals: every instance's per-flag, per-variant sums (${FLAG_COUNT} flags x ${VARIANTS.length}) equal the accepted reports' counts; ${s.reporters} clients each: PASS`,
  ].join('\n\n');
  return { result, text };
}
