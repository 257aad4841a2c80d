/**
 * Benchmark: compressed `GET /sdk/flags` (`docs/protocol.md` §5.2), 100 and 10,000 flags
 * (`appFlags`) on one in-memory server: body bytes and req/s (`loadRounds`) of `gzip` and `br`
 * against identity (no `Accept-Encoding`), each compressed body checked to decode to the identity
 * body; on 10,000 flags, the first `br`/`gzip` request of a new revision (after a PATCH and the
 * identity GET that builds its body) next to the cached one, and an SDK client's time to `ready()`
 * (`stream: false`) with Node's `fetch` (gzip) against `accept-encoding: identity`, alternating.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { patchFlag } from './lib/child.mjs';
import {
  appFlags,
  benchConfig,
  dist,
  fmt,
  httpGet,
  loadRounds,
  loadSettings,
  median,
  startServer,
  sum,
  table,
} from './lib/util.mjs';

const SIZES = [100, 10_000];
const ENCODINGS = [
  { id: 'identity', decode: (bytes) => bytes },
  { id: 'gzip', header: 'gzip', decode: gunzipSync },
  { id: 'br', header: 'br', decode: brotliDecompressSync },
];
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** GET `/sdk/flags` in `encoding` (body bytes as sent); throws unless it is a 200 in that encoding that decodes to `identity`. */
const headersOf = (key, encoding) => ({
  authorization: `Bearer ${key}`,
  ...(encoding.header && { 'accept-encoding': encoding.header }),
});

async function get(server, key, encoding, identity) {
  const res = await httpGet(`${server.url}/sdk/flags`, headersOf(key, encoding), agent);
  const sent = res.headers['content-encoding'];
  if (res.status !== 200 || sent !== encoding.header)
    throw new Error(`GET /sdk/flags (${encoding.id}): ${res.status}, content-encoding ${sent}`);
  if (identity && !encoding.decode(res.body).equals(identity))
    throw new Error(`GET /sdk/flags (${encoding.id}): the body does not decode to the identity body`);
  return { body: res.body, etag: res.headers.etag, ms: res.ms };
}

async function sdkReady(server, key, flags, runs) {
  const { createClient } = await import(dist().url('index.node.js'));
  const baseUrl = `${server.url}/api/v1`;
  const once = async (identity) => {
    let encoding;
    const fetchAs = async (input, init = {}) => {
      const headers = new Headers(init.headers);
      if (identity) headers.set('accept-encoding', 'identity');
      const res = await fetch(input, { ...init, headers });
      encoding = res.headers.get('content-encoding') ?? 'identity';
      return res;
    };
    const t0 = performance.now();
    const client = createClient({ baseUrl, apiKey: key, stream: false, logger: false, fetch: fetchAs });
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
  const s = { ...loadSettings(), readyRuns: 5 };
  const envs = Object.fromEntries(SIZES.map((n) => [`flags-${n}`, appFlags(n)]));
  const { keys, config } = benchConfig(envs);
  const t0 = performance.now();
  const server = await startServer({ memory: true, config }, 'compression');
  log(`  server up with ${fmt.int(sum(SIZES))} seed flags in ${fmt.ms(performance.now() - t0, 0)}`);
  const result = { settings: s };
  const rows = [];
  for (const n of SIZES) {
    const key = keys[`flags-${n}`].read;
    const identity = (await get(server, key, ENCODINGS[0])).body;
    const count = Object.keys(JSON.parse(identity.toString()).flags).length;
    if (count !== n) throw new Error(`expected ${n} flags in the body, got ${count}`);
    const bytes = {};
    for (const e of ENCODINGS) bytes[e.id] = (await get(server, key, e, identity)).body.length;
    const cases = ENCODINGS.map((e) => ({
      id: e.id,
      target: server,
      config: async () => ({ path: '/sdk/flags', headers: headersOf(key, e) }),
    }));
    const figures = await loadRounds(cases, s, log, `${fmt.int(n)} flags`);
    result[`flags${n}`] = Object.fromEntries(
      ENCODINGS.map(({ id }) => [id, { bodyBytes: bytes[id], ...figures[id] }]),
    );
    for (const { id } of ENCODINGS) {
      const base = id === 'identity';
      const f = figures[id];
      rows.push([
        `${fmt.int(n)} flags, ${base ? 'no Accept-Encoding (identity)' : `Accept-Encoding: ${id}`}`,
        fmt.int(bytes[id]),
        base ? '(baseline)' : fmt.pct(bytes[id] / bytes.identity),
        fmt.int(f.rps),
        base ? '(baseline)' : fmt.x(f.ratio, 1),
        fmt.ms(f.p99Ms, 0),
        fmt.us(f.cpuUsPerRequest),
      ]);
    }
  }

  // The first compressed request of a new revision, on the largest environment.
  const n = SIZES.at(-1);
  const { full, read } = keys[`flags-${n}`];
  const flag = appFlags(1)[0];
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
    const m = Object.fromEntries(
      ['firstMs', 'cachedMs', 'identityMs'].map((k) => [k, median(list.map((x) => x[k]))]),
    );
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
    table(
      'compression: GET /sdk/flags|body bytes|vs identity|req/s|vs identity (median of rounds)|p99|server CPU/req',
      rows,
    ),
    table(
      `compression: ${fmt.int(n)} flags, no load|runs|time (median)|next (cached)|identity GET before it|vs identity`,
      latency,
    ),
  ].join('\n\n');
  return { result, text };
}
