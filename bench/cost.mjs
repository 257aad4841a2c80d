/**
 * Benchmark: the cost model (`docs/protocol.md` §12.10, issue 32). The server refuses a flag
 * whose evaluation would cost more than 10,000 units (meant as about 50 us) or whose
 * prerequisites nest deeper than 5; this measures what the costliest flags it admits take:
 *
 * 1. In the SDK: near-budget flags of several shapes (`lib/cost-shapes.mjs`), each grown through
 *    the management API of a reference server of the build (its own process) until the server
 *    refuses it (400), the largest admitted kept; read back (`GET /api/v1/flags`, `/segments`)
 *    and evaluated by the built test kit (`createTestClient`, `lib/cost-child.mjs`) for realistic
 *    users that match no rule: CPU ns per evaluation, as a ratio to a plain 50 % rollout measured
 *    alternately (the baseline). Goal: the costliest <= 50 us.
 * 2. Through OFREP, one flag: the costliest shape against the plain rollout, time per request.
 * 3. Bulk OFREP on an environment of 100 near-budget flags (a mix of the shapes): a context at
 *    the bounds of `CONTEXT_BOUNDS`, scalars and arrays, against the small context (baseline);
 *    the same bounded context on 100 plain flags for the context's own cost. Goal: <= 50 ms.
 * 4. Heap after GC of a server holding one environment with a segment of 50,000 keys of 40
 *    characters and 100 near-budget flags, against a server with an empty environment.
 *
 * Run: `node bench/run.mjs cost` (FLAGWIRE_DIST for another build) or `node bench/cost.mjs`.
 * Settings: FLAGWIRE_BENCH_COST_ROUNDS (5), _PASSES (3 per side per round), _PASS_MS (50),
 * _USERS (1000), _OFREP_ROUNDS (10 of 20 requests per side), _BULK_SECONDS (40: the bulk part's
 * time, split over its contexts; at least 3 answers each, but one when that one took over 5 s).
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { request } from './lib/child.mjs';
import { boundsContext, ROLLOUT, SHAPES, smallContext } from './lib/cost-shapes.mjs';
import {
  appFlags,
  BENCH_DIR,
  benchConfig,
  cleanUp,
  cpuMs,
  dist,
  fmt,
  knob,
  median,
  percentile,
  runJson,
  startServer,
  table,
  tempDir,
  verdict,
} from './lib/util.mjs';

const CHILD = join(BENCH_DIR, 'lib', 'cost-child.mjs');
/** The issue's goals. */
const TARGET_EVAL_NS = 50_000;
const TARGET_BULK_MS = 50;
/** The model's budget, and what a unit is meant to take. */
const BUDGET_UNITS = 10_000;
const NS_PER_UNIT = 5;
/** Near-budget flags in the bulk environment (`FLAGWIRE_BENCH_COST_BULK_FLAGS`; 500 is an environment at its cost budget). */
const BULK_FLAGS = knob('FLAGWIRE_BENCH_COST_BULK_FLAGS', 100);
const SEGMENT_KEYS = 50_000;
/** A bulk answer slower than this is taken once (its warm-up). */
const LONG_MS = 5000;

// ---------------------------------------------------------------- the management API

async function api(url, key, method, path, body) {
  const res = await fetch(`${url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {}
  return { status: res.status, json, bytes: Buffer.byteLength(text) };
}

/** Creates what `build` answered, in order; stops at the first refusal. */
async function createAll(url, key, built, { enable = false } = {}) {
  const created = [];
  const steps = [
    ...built.segments.map((body) => ['segments', body]),
    ...built.flags.map((body) => ['flags', body]),
  ];
  for (const [kind, body] of steps) {
    const r = await api(url, key, 'POST', `/${kind}`, body);
    if (r.status !== 201) return { ok: false, status: r.status, message: r.json?.message ?? '', created };
    created.push([kind, body.key]);
  }
  if (enable)
    for (const f of built.flags) {
      const r = await api(url, key, 'PATCH', `/flags/${encodeURIComponent(f.key)}`, { enabled: true });
      if (r.status !== 200) throw new Error(`enabling ${f.key}: ${r.status} ${r.json?.message}`);
    }
  return { ok: true, created };
}

/** Deletes what `createAll` created, dependents first. */
async function removeAll(url, key, created) {
  for (const [kind, k] of [...created].reverse()) {
    const r = await api(url, key, 'DELETE', `/${kind}/${encodeURIComponent(k)}`);
    if (r.status !== 204) throw new Error(`DELETE ${kind}/${k}: ${r.status} ${r.json?.message}`);
  }
}

const unitsOf = (message) => {
  const m = /would cost ([\d,]+) units/.exec(message ?? '');
  return m ? Number(m[1].replaceAll(',', '')) : Number.NaN;
};

/**
 * The largest size of `shape` the server admits: doubled from 8 until refused (or the structure's
 * limit), then halved. The refusal of the next size up (and the one after: the cost per step) is
 * kept, so the admitted flag's cost is known and the cost check is seen to be what refused it.
 */
async function search(url, key, shape, log) {
  let probes = 0;
  const probe = async (n) => {
    probes++;
    const got = await createAll(url, key, shape.build(n, `probe.${shape.id}.${n}`));
    await removeAll(url, key, got.created);
    return got;
  };
  let lo = 0;
  let hi;
  let refusal;
  for (let n = 8; hi === undefined; n = Math.min(n * 2, shape.max)) {
    const p = await probe(n);
    if (p.ok) {
      lo = n;
      if (n === shape.max) break;
    } else [hi, refusal] = [n, p];
  }
  while (hi !== undefined && hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    const p = await probe(mid);
    if (p.ok) lo = mid;
    else [hi, refusal] = [mid, p];
  }
  if (lo === 0)
    throw new Error(`${shape.id}: even n = 8 was refused: ${refusal?.status} ${refusal?.message}`);
  const out = { n: lo, probes, limitedBy: hi === undefined ? 'structure' : 'refusal' };
  if (refusal) {
    const next = hi + 1 <= shape.max ? await probe(hi + 1) : undefined;
    const refused = unitsOf(refusal.message);
    const step = next && !next.ok ? unitsOf(next.message) - refused : Number.NaN;
    Object.assign(out, {
      refusedStatus: refusal.status,
      refusedMessage: refusal.message,
      refusedUnits: refused,
      limitedBy: Number.isFinite(refused) ? 'cost' : `${refusal.status} ${refusal.message.slice(0, 80)}`,
      units: refused - step,
      unitsPerStep: step,
    });
  }
  log(
    `  ${shape.id}: n = ${fmt.int(lo)} admitted (${out.limitedBy}; n + 1 ${fmt.int(out.refusedUnits)} units, ${probes} probes)`,
  );
  return out;
}

// ---------------------------------------------------------------- OFREP

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

async function ofrep(url, key, path, context) {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ context }),
  });
  return { status: res.status, json: await res.json().catch(() => undefined) };
}

/**
 * Timed requests, each a POST of `body` to `path`, `rounds` rounds alternating the cases (the
 * order turning each round), each case `per` requests a round: median and p90 ms (send to end),
 * the server's CPU per request.
 */
async function timedRounds(server, key, cases, { rounds, per, warmup }) {
  const times = new Map(cases.map((c) => [c.id, []]));
  const cpu = new Map(cases.map((c) => [c.id, []]));
  const once = (c) => request('POST', `${server.url}${c.path}`, key, c.body, { agent, timeoutMs: 120_000 });
  for (const c of cases)
    for (let i = 0; i < warmup; i++) {
      const r = await once(c);
      if (r.status !== 200) throw new Error(`${c.id}: ${r.status}`);
    }
  for (let round = 0; round < rounds; round++)
    for (let k = 0; k < cases.length; k++) {
      const c = cases[(k + round) % cases.length];
      const before = await server.cpu();
      for (let i = 0; i < per; i++) {
        const r = await once(c);
        if (r.status !== 200) throw new Error(`${c.id}: ${r.status}`);
        times.get(c.id).push(r.ms);
      }
      cpu.get(c.id).push(cpuMs(before, await server.cpu()) / per);
    }
  return Object.fromEntries(
    cases.map((c) => {
      const t = times.get(c.id);
      return [
        c.id,
        { n: t.length, medianMs: median(t), p90Ms: percentile(t, 90), cpuMs: median(cpu.get(c.id)) },
      ];
    }),
  );
}

/** A flag the bulk request's budget left unevaluated (protocol §11.3). */
const notEvaluated = (f) => f.errorCode === 'GENERAL' && /^not evaluated:/.test(f.errorDetails ?? '');

/**
 * Checks a bulk answer: every flag there, none failed but those the budget left unevaluated,
 * each `value` as `want` says (`undefined`: any); answers how many the budget left.
 */
function checkBulk(label, r, count, want) {
  const flags = r.json?.flags ?? [];
  if (r.status !== 200 || flags.length !== count)
    throw new Error(
      `${label}: ${r.status}, ${flags.length} flags (want ${count}): ${JSON.stringify(r.json)?.slice(0, 300)}`,
    );
  const bad = flags.find(
    (f) => !notEvaluated(f) && (f.errorCode || (want !== undefined && f.value !== want)),
  );
  if (bad) throw new Error(`${label}: ${JSON.stringify(bad)}`);
  return flags.filter(notEvaluated).length;
}

/** The environment of `BULK_FLAGS` near-budget flags: one prerequisite graph (15 flags), the rest cycling the other shapes. */
async function fillEnvironment(url, key, sizes, prefix, { segmentKeys } = {}) {
  const graph = SHAPES.find((s) => s.id === 'prerequisites');
  const others = SHAPES.filter((s) => s !== graph);
  const builds = [graph.build(sizes[graph.id].n, `${prefix}.${graph.id}`)];
  let count = builds[0].flags.length;
  let keysGiven = false;
  for (let i = 0; count < BULK_FLAGS; i++) {
    const shape = others[i % others.length];
    const options = shape.id === 'segment' && !keysGiven && segmentKeys ? { segmentKeys } : {};
    if (options.segmentKeys) keysGiven = true;
    const built = shape.build(
      sizes[shape.id].n,
      `${prefix}.${shape.id}.${Math.floor(i / others.length)}`,
      options,
    );
    builds.push(built);
    count += built.flags.length;
  }
  for (const built of builds) {
    const got = await createAll(url, key, built, { enable: true });
    if (!got.ok) throw new Error(`${prefix}: ${built.top} refused: ${got.status} ${got.message}`);
  }
  return { flags: count, mix: builds.map((b) => b.top) };
}

/** `count` user keys of 40 characters. */
const segmentKeysOf = (count) =>
  Array.from(
    { length: count },
    (_, i) =>
      `user-${String(i).padStart(8, '0')}-${createHash('sha1').update(String(i)).digest('hex').slice(0, 26)}`,
  );

// ---------------------------------------------------------------- the benchmark

export async function run({ log }) {
  const s = {
    rounds: knob('FLAGWIRE_BENCH_COST_ROUNDS', 5),
    passes: knob('FLAGWIRE_BENCH_COST_PASSES', 3),
    passMs: knob('FLAGWIRE_BENCH_COST_PASS_MS', 50),
    users: knob('FLAGWIRE_BENCH_COST_USERS', 1000),
    warmupPasses: 3,
    ofrepRounds: knob('FLAGWIRE_BENCH_COST_OFREP_ROUNDS', 10),
    ofrepPer: 20,
    bulkSeconds: knob('FLAGWIRE_BENCH_COST_BULK_SECONDS', 40),
  };
  const started = performance.now();
  const since = () => `${((performance.now() - started) / 1000).toFixed(0)} s`;
  // The search on a server of its own (its history keeps every probe), the rest on a fresh one.
  const searching = benchConfig({ search: [] });
  const searchServer = await startServer({ memory: true, config: searching.config }, 'cost-search');
  log(`  1. searching each shape's largest admitted size`);
  const sizes = {};
  for (const shape of SHAPES)
    sizes[shape.id] = await search(searchServer.url, searching.keys.search.full, shape, log);
  await searchServer.close();

  const { keys, config } = benchConfig({ cost: [], bulk: [], plain: appFlags(BULK_FLAGS) });
  const server = await startServer({ memory: true, config }, 'cost');
  const full = keys.cost.full;
  for (const shape of SHAPES) {
    const got = await createAll(server.url, full, shape.build(sizes[shape.id].n, `cost.${shape.id}`), {
      enable: true,
    });
    if (!got.ok) throw new Error(`cost.${shape.id} refused after its search: ${got.status} ${got.message}`);
  }
  const roll = await createAll(server.url, full, { segments: [], flags: [ROLLOUT] }, { enable: true });
  if (!roll.ok) throw new Error(`roll: ${roll.status} ${roll.message}`);
  const flags = await api(server.url, full, 'GET', '/flags');
  const segments = await api(server.url, full, 'GET', '/segments');
  if (flags.status !== 200 || segments.status !== 200)
    throw new Error(`read back: ${flags.status} ${segments.status}`);
  const file = join(tempDir('cost'), 'sdk.json');
  const cases = SHAPES.map((shape) => ({ id: shape.id, key: `cost.${shape.id}` }));
  writeFileSync(
    file,
    JSON.stringify({
      ...s,
      sdkUrl: dist().url('testing.js'),
      flags: flags.json,
      segments: segments.json,
      cases,
    }),
  );
  log(
    `  1. ${flags.json.length} flags, ${segments.json.length} segments read back (${fmt.kb(flags.bytes + segments.bytes)}), ${since()}; measuring in the SDK (${s.users} users, ${s.rounds} rounds x ${s.passes} passes of ~${s.passMs} ms)`,
  );
  const sdk = await runJson(CHILD, [file], { env: { NODE_ENV: 'production' } });
  const shapes = SHAPES.map((shape) => {
    const m = sdk.cases.find((c) => c.id === shape.id);
    const size = sizes[shape.id];
    return {
      id: shape.id,
      label: shape.label,
      unit: shape.unit,
      ...size,
      nsMedian: m.nsMedian,
      ratioMedian: m.ratioMedian,
      baseNsMedian: m.baseNsMedian,
      nsPerUnit: m.nsMedian / size.units,
      sdk: m,
    };
  });
  const worst = shapes.reduce((a, b) => (b.nsMedian > a.nsMedian ? b : a));
  const over = shapes.filter((x) => !(x.nsMedian <= TARGET_EVAL_NS)).map((x) => x.id);

  // ---- 2. OFREP, one flag: the worst shape against the plain rollout
  log(`  2. OFREP single: ${worst.id} against the plain rollout, ${since()}`);
  const read = keys.cost.read;
  const context = smallContext(42);
  const worstPath = `/ofrep/v1/evaluate/flags/cost.${worst.id}`;
  const rollPath = '/ofrep/v1/evaluate/flags/roll';
  const w = await ofrep(server.url, read, worstPath, context);
  const p = await ofrep(server.url, read, rollPath, context);
  if (w.status !== 200 || w.json.value !== 'off' || w.json.reason !== 'DEFAULT')
    throw new Error(`OFREP ${worstPath}: ${w.status} ${JSON.stringify(w.json)}`);
  if (p.status !== 200 || p.json.reason !== 'SPLIT')
    throw new Error(`OFREP ${rollPath}: ${p.status} ${JSON.stringify(p.json)}`);
  const single = await timedRounds(
    server,
    read,
    [
      { id: 'plain', path: rollPath, body: { context } },
      { id: 'worst', path: worstPath, body: { context } },
    ],
    { rounds: s.ofrepRounds, per: s.ofrepPer, warmup: 50 },
  );

  // ---- 3. bulk OFREP on 100 near-budget flags
  log(`  3. bulk OFREP: filling an environment with ${BULK_FLAGS} near-budget flags, ${since()}`);
  const bulkEnv = await fillEnvironment(server.url, keys.bulk.full, sizes, 'bulk');
  const bulkPath = '/ofrep/v1/evaluate/flags';
  const contexts = {
    small: smallContext(42),
    scalars: boundsContext('scalars'),
    arrays: boundsContext('arrays'),
  };
  const bulkCases = [
    {
      id: 'small',
      label: 'small context (baseline)',
      key: keys.bulk.read,
      context: contexts.small,
      want: 'off',
    },
    {
      id: 'scalars',
      label: 'bounds: 32 KiB, 4,096-char texts',
      key: keys.bulk.read,
      context: contexts.scalars,
      want: 'off',
    },
    {
      id: 'arrays',
      label: 'bounds: 32 KiB, arrays of 50, user value last',
      key: keys.bulk.read,
      context: contexts.arrays,
      want: 'off',
    },
    {
      id: 'plainScalars',
      label: `${BULK_FLAGS} plain flags, bounds (scalars) context`,
      key: keys.plain.read,
      context: contexts.scalars,
    },
    {
      id: 'plainSmall',
      label: `${BULK_FLAGS} plain flags, small context`,
      key: keys.plain.read,
      context: contexts.small,
    },
  ].map((c) => ({
    ...c,
    bytes: Buffer.byteLength(JSON.stringify({ context: c.context })),
    times: [],
    cpu: [],
  }));
  for (const c of bulkCases) {
    const r = await ofrep(server.url, c.key, bulkPath, c.context);
    c.unevaluated = checkBulk(`bulk ${c.id}`, r, BULK_FLAGS, c.want);
  }
  const shareMs = (s.bulkSeconds * 1000) / bulkCases.length;
  const timeOne = async (c) => {
    const before = await server.cpu();
    const r = await request(
      'POST',
      `${server.url}${bulkPath}`,
      c.key,
      { context: c.context },
      { agent, timeoutMs: 300_000 },
    );
    if (r.status !== 200) throw new Error(`bulk ${c.id}: ${r.status}`);
    c.cpu.push(cpuMs(before, await server.cpu()));
    c.times.push(r.ms);
  };
  // A warm-up answer each, not counted; but one over `LONG_MS` is the only answer taken (its
  // compilation is lost in it, and the run stays within minutes).
  for (const c of bulkCases) {
    await timeOne(c);
    c.long = c.times[0] > LONG_MS;
    if (!c.long) c.times.length = c.cpu.length = 0;
  }
  for (let round = 0; round < 30; round++) {
    const due = bulkCases.filter(
      (c) => !c.long && (c.times.length < 3 || c.times.reduce((a, b) => a + b, 0) < shareMs),
    );
    if (due.length === 0) break;
    for (let k = 0; k < due.length; k++) await timeOne(due[(k + round) % due.length]);
  }
  const bulk = Object.fromEntries(
    bulkCases.map((c) => [
      c.id,
      {
        label: c.label,
        bodyBytes: c.bytes,
        n: c.times.length,
        medianMs: median(c.times),
        cpuMs: median(c.cpu),
        unevaluated: c.unevaluated,
        times: c.times,
      },
    ]),
  );
  for (const c of bulkCases) bulk[c.id].ratio = bulk[c.id].medianMs / bulk.small.medianMs;
  const bulkWorst = Math.max(bulk.scalars.medianMs, bulk.arrays.medianMs);
  await server.close();

  // ---- 4. memory: a server holding the environment at its limits, against an empty one
  log(
    `  4. memory: a segment of ${fmt.int(SEGMENT_KEYS)} keys and ${BULK_FLAGS} near-budget flags, ${since()}`,
  );
  const memoryOf = async (label, fill) => {
    const { keys: k, config: c } = benchConfig({ mem: [] });
    const srv = await startServer({ memory: true, config: c }, label);
    const filled = fill ? await fill(srv.url, k.mem.full) : undefined;
    // What a server with SDKs and OFREP clients holds: both views' snapshots, one bulk answer.
    for (const headers of [{}, { 'x-flagwire-capabilities': 'targeting' }]) {
      const res = await fetch(`${srv.url}/sdk/flags`, {
        headers: { authorization: `Bearer ${k.mem.read}`, ...headers },
      });
      if (res.status !== 200) throw new Error(`${label} /sdk/flags: ${res.status}`);
      await res.arrayBuffer();
    }
    const b = await ofrep(srv.url, k.mem.read, bulkPath, contexts.small);
    if (b.status !== 200) throw new Error(`${label} bulk: ${b.status}`);
    const f = await api(srv.url, k.mem.full, 'GET', '/flags');
    const sg = await api(srv.url, k.mem.full, 'GET', '/segments');
    const mem = await srv.memory();
    await srv.close();
    return {
      ...filled,
      heapUsed: mem.heapUsed,
      rss: mem.rss,
      external: mem.external,
      jsonBytes: f.bytes + sg.bytes,
    };
  };
  const empty = await memoryOf('memory-empty');
  const segmentKeys = segmentKeysOf(SEGMENT_KEYS);
  const loaded = await memoryOf('memory-full', (url, key) =>
    fillEnvironment(url, key, sizes, 'mem', { segmentKeys }),
  );

  // ---- text
  const shapeRows = shapes.map((x) => [
    x.label,
    `${fmt.int(x.n)} ${x.unit}`,
    x.limitedBy === 'cost' ? `${fmt.int(x.units)} (${fmt.int(x.refusedUnits)})` : x.limitedBy,
    fmt.ns(x.nsMedian),
    fmt.x(x.ratioMedian, 1),
    fmt.x(x.nsMedian / x.units / NS_PER_UNIT),
    verdict(x.nsMedian <= TARGET_EVAL_NS),
  ]);
  shapeRows.push([
    'plain rollout 50 % (baseline)',
    '',
    '',
    fmt.ns(median(shapes.map((x) => x.baseNsMedian))),
    '1.0x',
    '',
    '',
  ]);
  const singleRows = [
    ['plain rollout 50 % (baseline)', single.plain],
    [`${worst.label} (cost.${worst.id})`, single.worst],
  ].map(([label, f]) => [
    label,
    fmt.ms(f.medianMs, 3),
    fmt.ms(f.p90Ms, 3),
    fmt.x(f.medianMs / single.plain.medianMs),
    fmt.us(f.cpuMs * 1000),
  ]);
  const bulkRows = bulkCases.map(({ id }) => {
    const f = bulk[id];
    return [
      f.label,
      fmt.kb(f.bodyBytes),
      fmt.int(f.n),
      fmt.ms(f.medianMs, 1),
      fmt.ms(f.cpuMs, 1),
      fmt.x(f.ratio, 1),
      fmt.int(f.unevaluated),
    ];
  });
  const mb = (bytes) => fmt.mb(bytes);
  const memRows = [
    ['empty environment (baseline)', mb(empty.heapUsed), mb(empty.rss), fmt.kb(empty.jsonBytes), ''],
    [
      `${fmt.int(SEGMENT_KEYS)}-key segment + ${loaded.flags} flags`,
      mb(loaded.heapUsed),
      mb(loaded.rss),
      fmt.kb(loaded.jsonBytes),
      `+${mb(loaded.heapUsed - empty.heapUsed)} (${fmt.x(loaded.heapUsed / empty.heapUsed, 1)})`,
    ],
  ];
  const worstOk = worst.nsMedian <= TARGET_EVAL_NS;
  const text = [
    table(
      'cost: costliest admitted flag per shape, SDK|admitted|units (n+1 refused at)|CPU/eval|x plain rollout|x 5 ns/unit|<= 50 us',
      shapeRows,
    ),
    `  costliest admitted flag in the SDK <= 50 us: ${fmt.ns(worst.nsMedian)} (${worst.id}): ${verdict(worstOk)}${over.length ? ` (over: ${over.join(', ')})` : ''}`,
    table('cost: OFREP single (small context)|median|p90|x plain|server CPU/req', singleRows),
    table(
      `cost: OFREP bulk, ${BULK_FLAGS} near-budget flags|body|answers|median|server CPU|x small|left by the 200 ms budget`,
      bulkRows,
    ),
    `  bulk OFREP at the context bounds <= ${TARGET_BULK_MS} ms: ${fmt.ms(bulkWorst)}: ${verdict(bulkWorst <= TARGET_BULK_MS)}`,
    table('cost: server memory after GC|heap used|rss|env JSON|heap vs empty', memRows),
  ].join('\n\n');
  agent.destroy();
  const result = {
    settings: { ...s, budgetUnits: BUDGET_UNITS, bulkFlags: BULK_FLAGS, segmentKeys: SEGMENT_KEYS },
    shapes,
    worst: { id: worst.id, nsMedian: worst.nsMedian, ratioMedian: worst.ratioMedian },
    single,
    bulk: { environment: bulkEnv, cases: bulk },
    memory: { empty, loaded },
    verdicts: {
      costliestWithin50us: { ns: worst.nsMedian, target: TARGET_EVAL_NS, met: worstOk, over },
      bulkWithin50ms: { ms: bulkWorst, target: TARGET_BULK_MS, met: bulkWorst <= TARGET_BULK_MS },
    },
  };
  return { result, text };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    console.log((await run({ log: console.log })).text);
  } finally {
    await cleanUp();
  }
}
