/**
 * Benchmark 1: `GET /sdk/flags` with 100 flags.
 *
 * Requests/second of the reference server against a bare `node:http` server that answers
 * the same bytes (status, headers, body copied from the reference server's answer). The
 * two servers and the load generator (autocannon) each run in their own process. Runs
 * alternate bare, ours, bare, ours... and the figure is the median of the per-round
 * ratios ours/bare, which cancels most of the machine's drift. The 304 path
 * (`If-None-Match` with the current ETag) is measured the same way, for information.
 */
import { api, fmt, median, runLoad, startBareChild, startServerChild, table, verdict } from './lib/util.mjs';

export const name = 'sdk-flags';

const FLAG_COUNT = 100;
const TARGET_RATIO = 0.8;
/** Headers Node adds itself on every response; the bare server gets them from Node too. */
const NODE_ADDED = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

function settings() {
  const env = process.env;
  return {
    rounds: Number(env.FLAGWIRE_BENCH_ROUNDS ?? 3),
    duration: Number(env.FLAGWIRE_BENCH_DURATION ?? 5),
    duration304: Number(env.FLAGWIRE_BENCH_DURATION_304 ?? 3),
    warmup: 2,
    connections: 50,
    pipelining: 1,
  };
}

const AREAS = 'checkout search billing onboarding profile ads feed cart mail api'.split(' ');

/**
 * Flag `i` of the set createFlags makes: the create body (half rollout with assorted
 * percentages, half boolean, a description on every third) and whether it is then enabled
 * (about 60 %). Also the seed flags of the compression benchmark.
 */
export function flagSpec(i) {
  const area = AREAS[i % AREAS.length];
  const key = `${area}.experiment-${String(i).padStart(3, '0')}`;
  const body = i % 2 === 0 ? { key, type: 'rollout', percentage: (i * 7) % 101 } : { key, type: 'boolean' };
  if (i % 3 === 0) body.description = `Experiment ${i} of the ${area} team`;
  return { body, enabled: i % 5 < 3 };
}

/** 100 flags (`flagSpec(0..99)`), created and enabled through the management API. */
export async function createFlags(base, key) {
  const created = [];
  for (let i = 0; i < FLAG_COUNT; i++) {
    const { body, enabled } = flagSpec(i);
    await api(base, 'POST', '/flags', key, body);
    if (enabled) await api(base, 'PATCH', `/flags/${encodeURIComponent(body.key)}`, key, { enabled: true });
    created.push(body.key);
  }
  return created;
}

/** The reference server's answer, as `{ status, headers, body(base64) }` for the bare server. */
async function capture(url, headers) {
  const res = await fetch(url, { headers });
  const body = Buffer.from(await res.arrayBuffer());
  const copied = {};
  for (const [name, value] of res.headers) if (!NODE_ADDED.has(name)) copied[name] = value;
  return { status: res.status, headers: copied, body: body.toString('base64'), bodyBytes: body.length };
}

function check(result, expectStatus, label) {
  const other = Object.entries(result.statusCodes).filter(([code]) => Number(code) !== expectStatus);
  if (other.length > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(
      `${label}: unexpected answers ${JSON.stringify(result.statusCodes)}, errors ${result.errors}, timeouts ${result.timeouts}`,
    );
  }
}

/** Alternating rounds: bare, ours, bare, ours... Returns per-round figures and the median ratio. */
async function compare({ bare, ours, path, headers, expectStatus, rounds, duration, s, log, label }) {
  /** One autocannon run against `target`, with the server process's CPU time per request. */
  const load = async (target, seconds) => {
    const before = await target.cpu();
    const result = await runLoad({
      url: target.url,
      path,
      headers,
      connections: s.connections,
      pipelining: s.pipelining,
      duration: seconds,
    });
    const after = await target.cpu();
    const cpuUs = after.user - before.user + (after.system - before.system);
    return { ...result, cpuUsPerRequest: cpuUs / result.requests, cpuBusy: cpuUs / 1e6 / result.duration };
  };
  // Warm-up (JIT, connection set-up), not counted.
  for (const target of [bare, ours]) await load(target, s.warmup);
  const perRound = [];
  for (let round = 1; round <= rounds; round++) {
    const b = await load(bare, duration);
    check(b, expectStatus, `${label} bare`);
    const o = await load(ours, duration);
    check(o, expectStatus, `${label} ours`);
    const ratio = o.rps / b.rps;
    perRound.push({ round, bare: b, ours: o, ratio, cpuRatio: b.cpuUsPerRequest / o.cpuUsPerRequest });
    log(
      `  ${label} round ${round}/${rounds}: bare ${fmt.int(b.rps)} req/s (${b.cpuUsPerRequest.toFixed(0)} us CPU/req, ` +
        `${fmt.pct(b.cpuBusy)} busy), ours ${fmt.int(o.rps)} req/s (${o.cpuUsPerRequest.toFixed(0)} us CPU/req, ` +
        `${fmt.pct(o.cpuBusy)} busy), ratio ${fmt.pct(ratio)}`,
    );
  }
  return {
    rounds: perRound.map((r) => ({
      round: r.round,
      bareRps: r.bare.rps,
      oursRps: r.ours.rps,
      ratio: r.ratio,
      bareCpuUsPerRequest: r.bare.cpuUsPerRequest,
      oursCpuUsPerRequest: r.ours.cpuUsPerRequest,
      bareCpuBusy: r.bare.cpuBusy,
      oursCpuBusy: r.ours.cpuBusy,
      bareLatencyP99Ms: r.bare.latency.p99,
      oursLatencyP99Ms: r.ours.latency.p99,
    })),
    bareRpsMedian: median(perRound.map((r) => r.bare.rps)),
    oursRpsMedian: median(perRound.map((r) => r.ours.rps)),
    ratioMedian: median(perRound.map((r) => r.ratio)),
    bareCpuUsPerRequestMedian: median(perRound.map((r) => r.bare.cpuUsPerRequest)),
    oursCpuUsPerRequestMedian: median(perRound.map((r) => r.ours.cpuUsPerRequest)),
    /** CPU efficiency: bare CPU per request / ours CPU per request (1 = as cheap as bare). */
    cpuRatioMedian: median(perRound.map((r) => r.cpuRatio)),
    oursLatencyP50MsMedian: median(perRound.map((r) => r.ours.latency.p50)),
    oursLatencyP99MsMedian: median(perRound.map((r) => r.ours.latency.p99)),
  };
}

export async function run({ log = console.log } = {}) {
  const s = settings();
  const server = await startServerChild({ memory: true }, 'sdk-flags');
  let bare;
  try {
    const base = `${server.url}/api/v1`;
    await createFlags(base, server.fullKey);
    const path = '/sdk/flags';
    const auth = { authorization: `Bearer ${server.readKey}` };
    const ok = await capture(`${server.url}${path}`, auth);
    if (ok.status !== 200) throw new Error(`GET /sdk/flags answered ${ok.status}`);
    const etag = ok.headers.etag;
    const notModified = await capture(`${server.url}${path}`, { ...auth, 'if-none-match': etag });
    if (notModified.status !== 304)
      throw new Error(`GET /sdk/flags with If-None-Match answered ${notModified.status}`);
    const flagsInBody = Object.keys(JSON.parse(Buffer.from(ok.body, 'base64').toString('utf8')).flags).length;
    if (flagsInBody !== FLAG_COUNT)
      throw new Error(`expected ${FLAG_COUNT} flags in the body, got ${flagsInBody}`);

    bare = await startBareChild({ ok, notModified, etag });
    // The bare server must answer the same bytes.
    const bareOk = await capture(`${bare.url}${path}`, auth);
    if (bareOk.body !== ok.body) throw new Error('bare server body differs from the reference server body');
    log(
      `  /sdk/flags: ${FLAG_COUNT} flags, ${ok.bodyBytes} bytes body, ${Object.keys(ok.headers).length} headers copied; ` +
        `${s.rounds} rounds x ${s.duration} s (200) and ${s.rounds} x ${s.duration304} s (304), ` +
        `${s.connections} connections, pipelining ${s.pipelining}`,
    );

    const common = { bare, ours: server, path, rounds: s.rounds, s, log };
    const full = await compare({
      ...common,
      headers: auth,
      expectStatus: 200,
      duration: s.duration,
      label: '200',
    });
    const cached = await compare({
      ...common,
      headers: { ...auth, 'if-none-match': etag },
      expectStatus: 304,
      duration: s.duration304,
      label: '304',
    });

    const result = {
      settings: { ...s, flags: FLAG_COUNT, bodyBytes: ok.bodyBytes },
      ok200: full,
      notModified304: cached,
      target: { ratioAtLeast: TARGET_RATIO, met: full.ratioMedian >= TARGET_RATIO },
    };
    const rows = [
      {
        path: 'GET /sdk/flags -> 200',
        bare: fmt.int(full.bareRpsMedian),
        ours: fmt.int(full.oursRpsMedian),
        ratio: fmt.pct(full.ratioMedian),
        p99: fmt.ms(full.oursLatencyP99MsMedian, 0),
        cpu: `${full.oursCpuUsPerRequestMedian.toFixed(0)} / ${full.bareCpuUsPerRequestMedian.toFixed(0)} us`,
        cpuRatio: fmt.pct(full.cpuRatioMedian),
        target: `>= ${fmt.pct(TARGET_RATIO)}`,
        verdict: verdict(result.target.met),
      },
      {
        path: 'GET /sdk/flags -> 304 (If-None-Match)',
        bare: fmt.int(cached.bareRpsMedian),
        ours: fmt.int(cached.oursRpsMedian),
        ratio: fmt.pct(cached.ratioMedian),
        p99: fmt.ms(cached.oursLatencyP99MsMedian, 0),
        cpu: `${cached.oursCpuUsPerRequestMedian.toFixed(0)} / ${cached.bareCpuUsPerRequestMedian.toFixed(0)} us`,
        cpuRatio: fmt.pct(cached.cpuRatioMedian),
        target: '(info)',
        verdict: '',
      },
    ];
    const text = table(rows, [
      { key: 'path', title: 'sdk-flags', align: 'left' },
      { key: 'bare', title: 'bare req/s (median)' },
      { key: 'ours', title: 'ours req/s (median)' },
      { key: 'ratio', title: 'ours/bare (median of rounds)' },
      { key: 'p99', title: 'ours p99' },
      { key: 'cpu', title: 'server CPU/req ours / bare' },
      { key: 'cpuRatio', title: 'bare/ours CPU' },
      { key: 'target', title: 'target' },
      { key: 'verdict', title: '' },
    ]);
    return { result, text };
  } finally {
    await bare?.close();
    await server.close();
  }
}
