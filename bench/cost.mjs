/**
 * Benchmark `cost`: the costliest flag of each shape the cost model admits, in the SDK against a
 * plain rollout; the costliest through OFREP; bulk OFREP at the context bounds; memory.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { request } from './lib/child.mjs';
import { boundsContext, ROLLOUT, SHAPES, smallContext } from './lib/cost-shapes.mjs';
import * as u from './lib/util.mjs';

const { fmt, median, verdict } = u;
const TARGET_EVAL_NS = 50_000;
const TARGET_BULK_MS = 50;
/** The model's budget, and what a unit is meant to take. */
const BUDGET_UNITS = 10_000;
const NS_PER_UNIT = 5;
/** Near-budget flags in the bulk environment (`FLAGWIRE_BENCH_COST_BULK_FLAGS`; 500: at its budget). */
const BULK_FLAGS = u.knob('FLAGWIRE_BENCH_COST_BULK_FLAGS', 100);
const SEGMENT_KEYS = 50_000;
/** A bulk answer slower than this is taken once (its warm-up). */
const LONG_MS = 5000;
const BULK = '/ofrep/v1/evaluate/flags';
const SHAPES_HEAD =
  'cost: costliest admitted flag per shape, SDK|admitted|units (n+1 refused at)|CPU/eval|x plain rollout|x 5 ns/unit|<= 50 us';
const BULK_HEAD = 'body|answers|median|server CPU|x small|left by the 200 ms budget';
const api = (url, key, method, path, body) => u.httpJson(method, `${url}/api/v1${path}`, key, body);
const ofrep = (url, key, path, context) => u.httpJson('POST', `${url}${path}`, key, { context });
/** Creates what a shape's `build` answered, in order (flags enabled if asked); stops at a refusal. */
async function createAll(url, key, built, enable = false) {
  const created = [];
  const steps = [...built.segments.map((b) => ['segments', b]), ...built.flags.map((b) => ['flags', b])];
  for (const [kind, body] of steps) {
    const r = await api(url, key, 'POST', `/${kind}`, body);
    if (r.status !== 201) return { ok: false, status: r.status, message: r.json?.message ?? '', created };
    created.push([kind, body.key]);
  }
  for (const f of enable ? built.flags : []) {
    const r = await api(url, key, 'PATCH', `/flags/${encodeURIComponent(f.key)}`, { enabled: true });
    if (r.status !== 200) throw new Error(`enabling ${f.key}: ${r.status} ${r.json?.message}`);
  }
  return { ok: true, created };
}
const unitsOf = (message) => {
  const m = /would cost ([\d,]+) units/.exec(message ?? '');
  return m ? Number(m[1].replaceAll(',', '')) : Number.NaN;
};
/**
 * The largest size of `shape` the server admits, doubling from 8 then bisecting; the refusals of the
 * next two sizes give the admitted flag's cost (and show it was the cost check that refused).
 */
async function search({ server: { url }, keys }, shape, log) {
  const key = keys.search.full;
  let probes = 0;
  const probe = async (n) => {
    probes++;
    const got = await createAll(url, key, shape.build(n, `probe.${shape.id}.${n}`));
    for (const [kind, k] of [...got.created].reverse()) {
      const r = await api(url, key, 'DELETE', `/${kind}/${encodeURIComponent(k)}`);
      if (r.status !== 204) throw new Error(`DELETE ${kind}/${k}: ${r.status} ${r.json?.message}`);
    }
    return got;
  };
  let [lo, hi, refusal] = [0];
  for (let n = 8; hi === undefined; n = Math.min(n * 2, shape.max)) {
    const p = await probe(n);
    if (!p.ok) [hi, refusal] = [n, p];
    else lo = n;
    if (lo === shape.max) break;
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
  const info = `${out.limitedBy}; n + 1 ${fmt.int(out.refusedUnits)} units, ${probes} probes`;
  log(`  ${shape.id}: n = ${fmt.int(lo)} admitted (${info})`);
  return out;
}
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
/** One timed OFREP POST over the one keep-alive connection: ms from sending to the end of the answer. */
async function timedPost(server, c, timeoutMs) {
  const url = `${server.url}${c.path}`;
  const r = await request('POST', url, c.key, { context: c.context }, { agent, timeoutMs });
  if (r.status !== 200) throw new Error(`${c.id}: ${r.status}`);
  return r.ms;
}
/** Rotating rounds of `per` requests of each case, after `warmup`: median, p90 ms, server CPU per request. */
async function timedRounds(server, cases, { rounds, per, warmup }) {
  const times = new Map(cases.map((c) => [c.id, []]));
  const cpu = new Map(cases.map((c) => [c.id, []]));
  for (const c of cases) for (let i = 0; i < warmup; i++) await timedPost(server, c, 120_000);
  for (let round = 0; round < rounds; round++)
    for (const c of u.rotated(cases, round)) {
      const meter = await u.cpuMeter([server]);
      for (let i = 0; i < per; i++) times.get(c.id).push(await timedPost(server, c, 120_000));
      cpu.get(c.id).push((await meter())[0] / per);
    }
  const of = (t, c) => ({ n: t.length, medianMs: median(t), p90Ms: u.percentile(t, 90), cpuMs: median(c) });
  return Object.fromEntries(cases.map(({ id }) => [id, of(times.get(id), cpu.get(id))]));
}
/** A flag the bulk request's budget left unevaluated (protocol §11.3). */
const notEvaluated = (f) => f.errorCode === 'GENERAL' && /^not evaluated:/.test(f.errorDetails ?? '');
/** Checks a bulk answer: every flag there, none failed but those left unevaluated, each `value` `want`. */
function checkBulk(label, r, count, want) {
  const flags = r.json?.flags ?? [];
  if (r.status !== 200 || flags.length !== count)
    throw new Error(
      `${label}: ${r.status}, ${flags.length} flags, not ${count}: ${String(r.body).slice(0, 300)}`,
    );
  const bad = flags.find((f) => !notEvaluated(f) && (f.errorCode || (want && f.value !== want)));
  if (bad) throw new Error(`${label}: ${JSON.stringify(bad)}`);
  return flags.filter(notEvaluated).length;
}
/** `BULK_FLAGS` near-budget flags: one prerequisite graph (15 flags), the rest cycling the other shapes. */
async function fillEnvironment(url, key, sizes, prefix, segmentKeys) {
  const graph = SHAPES.find((s) => s.id === 'prerequisites');
  const others = SHAPES.filter((s) => s !== graph);
  const builds = [graph.build(sizes[graph.id].n, `${prefix}.${graph.id}`)];
  let count = builds[0].flags.length;
  for (let i = 0; count < BULK_FLAGS; i++) {
    const shape = others[i % others.length];
    // The first segment shape holds the segment's keys, if any.
    const keys = shape.id === 'segment' && i < others.length ? { segmentKeys } : {};
    const key = `${prefix}.${shape.id}.${Math.floor(i / others.length)}`;
    const built = shape.build(sizes[shape.id].n, key, keys);
    builds.push(built);
    count += built.flags.length;
  }
  for (const built of builds) {
    const got = await createAll(url, key, built, true);
    if (!got.ok) throw new Error(`${prefix}: ${built.top} refused: ${got.status} ${got.message}`);
  }
  return { flags: count, mix: builds.map((b) => b.top) };
}
/** `count` user keys of 40 characters. */
const segmentKeysOf = (count) =>
  Array.from({ length: count }, (_, i) => {
    const hash = createHash('sha1').update(String(i)).digest('hex').slice(0, 26);
    return `user-${String(i).padStart(8, '0')}-${hash}`;
  });
/** Heap after GC of a server with one environment (`fill`), after both `/sdk/flags` views; a bulk answer. */
async function memoryOf(label, context, fill) {
  const { keys, server } = await u.memoryServer(label, { mem: [] });
  const filled = fill ? await fill(server.url, keys.mem.full) : undefined;
  for (const headers of [{}, { 'x-flagwire-capabilities': 'targeting' }]) {
    const res = await u.httpJson('GET', `${server.url}/sdk/flags`, keys.mem.read, undefined, { headers });
    if (res.status !== 200) throw new Error(`${label} /sdk/flags: ${res.status}`);
  }
  const b = await ofrep(server.url, keys.mem.read, BULK, context);
  if (b.status !== 200) throw new Error(`${label} bulk: ${b.status}`);
  const f = await api(server.url, keys.mem.full, 'GET', '/flags');
  const sg = await api(server.url, keys.mem.full, 'GET', '/segments');
  const { heapUsed, rss, external } = await server.memory();
  await server.close();
  return { ...filled, heapUsed, rss, external, jsonBytes: f.body.length + sg.body.length };
}
export async function run({ log }) {
  const knobs = { rounds: 5, passes: 3, passMs: 50, users: 1000, ofrepRounds: 10, bulkSeconds: 40 };
  const s = { ...u.knobs('COST_', knobs), warmupPasses: 3, ofrepPer: 20 };
  const started = performance.now();
  const since = () => `${((performance.now() - started) / 1000).toFixed(0)} s`;
  // ---- 1. the search on a server of its own (its history keeps every probe), the rest on a fresh one
  const searching = await u.memoryServer('cost-search', { search: [] });
  log(`  1. searching each shape's largest admitted size`);
  const sizes = {};
  for (const shape of SHAPES) sizes[shape.id] = await search(searching, shape, log);
  await searching.server.close();

  const envs = { cost: [], bulk: [], plain: u.appFlags(BULK_FLAGS) };
  const { keys, server } = await u.memoryServer('cost', envs);
  const full = keys.cost.full;
  for (const shape of SHAPES) {
    const got = await createAll(server.url, full, shape.build(sizes[shape.id].n, `cost.${shape.id}`), true);
    if (!got.ok) throw new Error(`cost.${shape.id} refused after its search: ${got.status} ${got.message}`);
  }
  const roll = await createAll(server.url, full, { segments: [], flags: [ROLLOUT] }, true);
  if (!roll.ok) throw new Error(`roll: ${roll.status} ${roll.message}`);
  const flags = await api(server.url, full, 'GET', '/flags');
  const segments = await api(server.url, full, 'GET', '/segments');
  if (flags.status !== 200 || segments.status !== 200)
    throw new Error(`read back: ${flags.status} ${segments.status}`);
  const file = join(u.tempDir('cost'), 'sdk.json');
  const cases = SHAPES.map((shape) => ({ id: shape.id, key: `cost.${shape.id}` }));
  const sdkUrl = u.dist().url('testing.js');
  writeFileSync(file, JSON.stringify({ ...s, sdkUrl, flags: flags.json, segments: segments.json, cases }));
  log(`  1. ${flags.json.length} flags, ${segments.json.length} segments, ${since()}; measuring in the SDK`);
  const sdk = await u.runJson('lib/cost-child.mjs', [file], { env: { NODE_ENV: 'production' } });
  const shapes = SHAPES.map(({ id, label, unit }) => {
    const m = sdk.cases.find((c) => c.id === id);
    const { nsMedian, ratioMedian, baseNsMedian } = m;
    const size = { ...sizes[id], nsPerUnit: nsMedian / sizes[id].units };
    return { id, label, unit, ...size, nsMedian, ratioMedian, baseNsMedian, sdk: m };
  });
  const worst = shapes.reduce((a, b) => (b.nsMedian > a.nsMedian ? b : a));
  const over = shapes.filter((x) => !(x.nsMedian <= TARGET_EVAL_NS)).map((x) => x.id);

  // ---- 2. OFREP, one flag: the worst shape against the plain rollout
  log(`  2. OFREP single: ${worst.id} against the plain rollout, ${since()}`);
  const context = smallContext();
  const single = { key: keys.cost.read, context };
  const plainCase = { ...single, id: 'plain', path: `${BULK}/roll` };
  const worstCase = { ...single, id: 'worst', path: `${BULK}/cost.${worst.id}` };
  const w = await ofrep(server.url, single.key, worstCase.path, context);
  const p = await ofrep(server.url, single.key, plainCase.path, context);
  // The fallthrough served: `TARGETING_MATCH` with `metadata.fallthrough` (protocol §11).
  const fallthrough = w.json?.reason === 'TARGETING_MATCH' && w.json.metadata?.fallthrough;
  if (w.status !== 200 || w.json.value !== 'off' || !fallthrough)
    throw new Error(`OFREP ${worstCase.path}: ${w.body}`);
  if (p.status !== 200 || p.json.reason !== 'SPLIT') throw new Error(`OFREP ${plainCase.path}: ${p.body}`);
  const ofrepSettings = { rounds: s.ofrepRounds, per: s.ofrepPer, warmup: 50 };
  const singleFigures = await timedRounds(server, [plainCase, worstCase], ofrepSettings);

  // ---- 3. bulk OFREP on the near-budget flags
  log(`  3. bulk OFREP: filling an environment with ${BULK_FLAGS} near-budget flags, ${since()}`);
  const bulkEnv = await fillEnvironment(server.url, keys.bulk.full, sizes, 'bulk');
  const contexts = { small: context, scalars: boundsContext('scalars'), arrays: boundsContext('arrays') };
  const bulkCases = [
    ['small', 'small context (baseline)', keys.bulk, contexts.small, 'off'],
    ['scalars', 'bounds: 32 KiB, 4,096-char texts', keys.bulk, contexts.scalars, 'off'],
    ['arrays', 'bounds: 32 KiB, arrays of 50, user value last', keys.bulk, contexts.arrays, 'off'],
    ['plainScalars', `${BULK_FLAGS} plain flags, bounds (scalars) context`, keys.plain, contexts.scalars],
    ['plainSmall', `${BULK_FLAGS} plain flags, small context`, keys.plain, contexts.small],
  ].map(([id, label, { read }, ctx, want]) => {
    const bytes = Buffer.byteLength(JSON.stringify({ context: ctx }));
    return { id, label, key: read, context: ctx, want, path: BULK, bytes, times: [], cpu: [] };
  });
  for (const c of bulkCases) {
    const r = await ofrep(server.url, c.key, BULK, c.context);
    c.unevaluated = checkBulk(`bulk ${c.id}`, r, BULK_FLAGS, c.want);
  }
  const shareMs = (s.bulkSeconds * 1000) / bulkCases.length;
  const timeOne = async (c) => {
    const meter = await u.cpuMeter([server]);
    c.times.push(await timedPost(server, c, 300_000));
    c.cpu.push((await meter())[0]);
  };
  // A warm-up answer each, not counted; but one over `LONG_MS` is the only answer taken.
  for (const c of bulkCases) {
    await timeOne(c);
    c.long = c.times[0] > LONG_MS;
    if (!c.long) c.times.length = c.cpu.length = 0;
  }
  for (let round = 0; round < 30; round++) {
    const due = bulkCases.filter((c) => !c.long && (c.times.length < 3 || u.sum(c.times) < shareMs));
    if (due.length === 0) break;
    for (const c of u.rotated(due, round)) await timeOne(c);
  }
  const bulk = {};
  for (const { id, label, bytes, times, cpu, unevaluated } of bulkCases) {
    const figures = { label, bodyBytes: bytes, n: times.length, medianMs: median(times), cpuMs: median(cpu) };
    bulk[id] = { ...figures, unevaluated, times };
  }
  for (const f of Object.values(bulk)) f.ratio = f.medianMs / bulk.small.medianMs;
  const bulkWorst = Math.max(bulk.scalars.medianMs, bulk.arrays.medianMs);
  await server.close();

  // ---- 4. memory: a server holding the environment at its limits, against an empty one
  log(`  4. memory: a ${fmt.int(SEGMENT_KEYS)}-key segment and ${BULK_FLAGS} near-budget flags, ${since()}`);
  const empty = await memoryOf('memory-empty', context);
  const segmentKeys = segmentKeysOf(SEGMENT_KEYS);
  const fill = (url, key) => fillEnvironment(url, key, sizes, 'mem', segmentKeys);
  const loaded = await memoryOf('memory-full', context, fill);
  agent.destroy();

  const shapeRows = shapes.map((x) => {
    const units = x.limitedBy === 'cost' ? `${fmt.int(x.units)} (${fmt.int(x.refusedUnits)})` : x.limitedBy;
    const ns = [fmt.ns(x.nsMedian), fmt.x(x.ratioMedian, 1), fmt.x(x.nsMedian / x.units / NS_PER_UNIT)];
    return [x.label, `${fmt.int(x.n)} ${x.unit}`, units, ...ns, verdict(x.nsMedian <= TARGET_EVAL_NS)];
  });
  const baseNs = median(shapes.map((x) => x.baseNsMedian));
  shapeRows.push(['plain rollout 50 % (baseline)', '', '', fmt.ns(baseNs), '1.0x', '', '']);
  const singleRows = [
    ['plain rollout 50 % (baseline)', singleFigures.plain],
    [`${worst.label} (cost.${worst.id})`, singleFigures.worst],
  ].map(([label, f]) => {
    const ratio = fmt.x(f.medianMs / singleFigures.plain.medianMs);
    return [label, fmt.ms(f.medianMs, 3), fmt.ms(f.p90Ms, 3), ratio, fmt.us(f.cpuMs * 1000)];
  });
  const bulkRows = Object.values(bulk).map((f) => {
    const [ms, cpu] = [fmt.ms(f.medianMs, 1), fmt.ms(f.cpuMs, 1)];
    return [f.label, fmt.kb(f.bodyBytes), fmt.int(f.n), ms, cpu, fmt.x(f.ratio, 1), fmt.int(f.unevaluated)];
  });
  const heapVs = `+${fmt.mb(loaded.heapUsed - empty.heapUsed)} (${fmt.x(loaded.heapUsed / empty.heapUsed, 1)})`;
  const memRows = [
    ['empty environment (baseline)', empty, ''],
    [`${fmt.int(SEGMENT_KEYS)}-key segment + ${loaded.flags} flags`, loaded, heapVs],
  ].map(([label, m, vs]) => [label, fmt.mb(m.heapUsed), fmt.mb(m.rss), fmt.kb(m.jsonBytes), vs]);
  const worstOk = worst.nsMedian <= TARGET_EVAL_NS;
  const overList = over.length ? ` (over: ${over.join(', ')})` : '';
  const text = [
    u.table(SHAPES_HEAD, shapeRows),
    `  costliest admitted flag in the SDK <= 50 us: ${fmt.ns(worst.nsMedian)} (${worst.id}): ${verdict(worstOk)}${overList}`,
    u.table('cost: OFREP single (small context)|median|p90|x plain|server CPU/req', singleRows),
    u.table(`cost: OFREP bulk, ${BULK_FLAGS} near-budget flags|${BULK_HEAD}`, bulkRows),
    `  bulk OFREP at the context bounds <= ${TARGET_BULK_MS} ms: ${fmt.ms(bulkWorst)}: ${verdict(bulkWorst <= TARGET_BULK_MS)}`,
    u.table('cost: server memory after GC|heap used|rss|env JSON|heap vs empty', memRows),
  ].join('\n\n');
  const result = {
    settings: { ...s, budgetUnits: BUDGET_UNITS, bulkFlags: BULK_FLAGS, segmentKeys: SEGMENT_KEYS },
    shapes,
    worst: { id: worst.id, nsMedian: worst.nsMedian, ratioMedian: worst.ratioMedian },
    single: singleFigures,
    bulk: { environment: bulkEnv, cases: bulk },
    memory: { empty, loaded },
    verdicts: {
      costliestWithin50us: { ns: worst.nsMedian, target: TARGET_EVAL_NS, met: worstOk, over },
      bulkWithin50ms: { ms: bulkWorst, target: TARGET_BULK_MS, met: bulkWorst <= TARGET_BULK_MS },
    },
  };
  return { result, text };
}
