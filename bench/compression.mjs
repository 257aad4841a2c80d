/** Benchmark `compression`: `GET /sdk/flags` in gzip and br, and an SDK's `ready()`, against identity. */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { patchFlag } from './lib/child.mjs';
import * as u from './lib/util.mjs';

const { fmt, median } = u;
const SIZES = [100, 10_000];
const ENCODINGS = [
  { id: 'identity', decode: (bytes) => bytes },
  { id: 'gzip', header: 'gzip', decode: gunzipSync },
  { id: 'br', header: 'br', decode: brotliDecompressSync },
];
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const LOAD_HEAD = 'body bytes|vs identity|req/s|vs identity (median of rounds)|p99|server CPU/req';
const LATENCY_HEAD = 'runs|time (median)|next (cached)|identity GET before it|vs identity';
const headersOf = (key, { header }) => ({
  authorization: `Bearer ${key}`,
  ...(header && { 'accept-encoding': header }),
});
/** GET `/sdk/flags` in `encoding` (bytes as sent), checked: a 200 in it, decoding to `identity`. */
async function get(server, key, encoding, identity) {
  const headers = headersOf(key, encoding);
  const res = await u.httpJson('GET', `${server.url}/sdk/flags`, undefined, undefined, { headers, agent });
  const sent = res.headers['content-encoding'];
  if (res.status !== 200 || sent !== encoding.header)
    throw new Error(`GET /sdk/flags (${encoding.id}): ${res.status}, content-encoding ${sent}`);
  if (identity && !encoding.decode(res.body).equals(identity))
    throw new Error(`GET /sdk/flags (${encoding.id}): the body does not decode to the identity body`);
  return { body: res.body, etag: res.headers.etag, ms: res.ms };
}
/** An SDK client's time to `ready()`, with Node's `fetch` as it is against `accept-encoding: identity`. */
async function sdkReady(server, key, flags, runs) {
  const { createClient } = await import(u.dist().url('index.node.js'));
  const once = async (identity) => {
    let encoding;
    const fetchAs = async (input, init = {}) => {
      const headers = new Headers(init.headers);
      if (identity) headers.set('accept-encoding', 'identity');
      const res = await fetch(input, { ...init, headers });
      if (String(input).includes('/sdk/flags')) encoding = res.headers.get('content-encoding') ?? 'identity';
      return res;
    };
    const t0 = performance.now();
    const options = { baseUrl: `${server.url}/api/v1`, apiKey: key, stream: false, logger: false };
    const client = createClient({ ...options, fetch: fetchAs });
    await client.ready({ timeoutMs: 30_000 });
    const ms = performance.now() - t0;
    const count = Object.keys(client.allFlags()).length;
    await client.close();
    if (count !== flags || (encoding === 'identity') !== identity)
      throw new Error(`SDK client: ${count} flags, ${encoding}`);
    return { ms, encoding };
  };
  await once(false);
  await once(true);
  const times = { compressed: [], identity: [] };
  let encoding;
  for (let i = 0; i < runs; i++)
    for (const identity of i % 2 ? [true, false] : [false, true]) {
      const r = await once(identity);
      times[identity ? 'identity' : 'compressed'].push(r.ms);
      if (!identity) encoding = r.encoding;
    }
  const [compressedMs, identityMs] = [median(times.compressed), median(times.identity)];
  return { runs, encoding, compressedMs, identityMs, ratio: compressedMs / identityMs, times };
}
export async function run({ log }) {
  const s = { ...u.loadSettings(), readyRuns: 5 };
  const t0 = performance.now();
  const envs = Object.fromEntries(SIZES.map((n) => [`flags-${n}`, u.appFlags(n)]));
  const { keys, server } = await u.memoryServer('compression', envs);
  log(`  server up with ${fmt.int(u.sum(SIZES))} seed flags in ${fmt.ms(performance.now() - t0, 0)}`);
  const result = { settings: s };
  const rows = [];
  for (const n of SIZES) {
    const key = keys[`flags-${n}`].read;
    const identity = (await get(server, key, ENCODINGS[0])).body;
    const count = Object.keys(JSON.parse(identity.toString()).flags).length;
    if (count !== n) throw new Error(`expected ${n} flags in the body, got ${count}`);
    const bytes = {};
    for (const e of ENCODINGS) bytes[e.id] = (await get(server, key, e, identity)).body.length;
    const config = (e) => async () => ({ path: '/sdk/flags', headers: headersOf(key, e) });
    const cases = ENCODINGS.map((e) => ({ id: e.id, target: server, config: config(e) }));
    const figures = await u.loadRounds(cases, s, log, `${fmt.int(n)} flags`);
    result[`flags${n}`] = {};
    for (const { id } of ENCODINGS) {
      const [f, base] = [figures[id], id === 'identity'];
      result[`flags${n}`][id] = { bodyBytes: bytes[id], ...f };
      const label = base ? 'no Accept-Encoding (identity)' : `Accept-Encoding: ${id}`;
      const vs = (x) => (base ? '(baseline)' : x);
      const [size, rate] = [vs(fmt.pct(bytes[id] / bytes.identity)), vs(fmt.x(f.ratio, 1))];
      const load = [fmt.int(f.rps), rate, fmt.ms(f.p99Ms, 0), fmt.us(f.cpuUsPerRequest)];
      rows.push([`${fmt.int(n)} flags, ${label}`, fmt.int(bytes[id]), size, ...load]);
    }
  }

  // The first compressed request of a new revision (after a PATCH and the identity GET that builds its body).
  const n = SIZES.at(-1);
  const { full, read } = keys[`flags-${n}`];
  const flag = u.appFlags(1)[0];
  let enabled = flag.enabled;
  const first = { br: [], gzip: [] };
  for (let i = 0; i < s.rounds; i++)
    for (const e of ENCODINGS.slice(1)) {
      enabled = !enabled;
      await patchFlag({ url: server.url, key: full }, flag.key, { enabled });
      const plain = await get(server, read, ENCODINGS[0]);
      const once = await get(server, read, e, plain.body);
      const cached = await get(server, read, e);
      first[e.id].push({ etag: plain.etag, identityMs: plain.ms, firstMs: once.ms, cachedMs: cached.ms });
    }
  result.firstRequest = {};
  const latency = [];
  for (const [id, list] of Object.entries(first)) {
    const m = u.medians(['firstMs', 'cachedMs', 'identityMs'], list);
    result.firstRequest[id] = { samples: list, ...m };
    const times = [m.firstMs, m.cachedMs, m.identityMs].map((v) => fmt.ms(v));
    latency.push([`first ${id} request of a new revision`, list.length, ...times, '']);
  }
  const ready = await sdkReady(server, read, n, s.readyRuns);
  result.sdkReady = ready;
  const sdkRow = (how, ms, vs) => [`SDK ready(), ${how}`, ready.runs, fmt.ms(ms), '', '', vs];
  latency.push(
    sdkRow(`Node's fetch as it is (${ready.encoding})`, ready.compressedMs, fmt.pct(ready.ratio)),
    sdkRow('fetch with accept-encoding: identity', ready.identityMs, '(baseline)'),
  );
  const text = [
    u.table(`compression: GET /sdk/flags|${LOAD_HEAD}`, rows),
    u.table(`compression: ${fmt.int(n)} flags, no load|${LATENCY_HEAD}`, latency),
  ].join('\n\n');
  return { result, text };
}
