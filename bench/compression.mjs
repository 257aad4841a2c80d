/**
 * Benchmark: compressed `GET /sdk/flags` (`docs/protocol.md` §5.2), for 100 and 10,000 flags.
 *
 * One server (in memory, its own process) with two environments seeded with `appFlags(100)` and
 * `appFlags(10000)`. For each size: the body bytes with no `Accept-Encoding` (identity, the
 * baseline), with `gzip` and with `br` (read with `node:http`, which does not decode; each
 * compressed body is checked to decode to the identity body); then req/s of the three with
 * `loadRounds` (autocannon sends no `Accept-Encoding` of its own; each encoding's per-revision
 * cache is warm), medians over rounds of req/s and of the ratio to identity.
 *
 * Then, on 10,000 flags with no load: the first `br` and `gzip` request of a new revision (each
 * after a PATCH that makes the revision and an identity GET that builds its body, so it waits for
 * the compression only), once per encoding per round, next to the request that follows it (from
 * the cache). Last, the time until `ready()` of an SDK client (`createClient` of the build under
 * test, `stream: false`) on 10,000 flags: Node's `fetch` as it is (it asks for gzip by itself)
 * against a `fetch` that sends `accept-encoding: identity`; alternating runs, medians. For
 * information: no target.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import {
  appFlags,
  benchConfig,
  dist,
  fmt,
  loadRounds,
  loadSettings,
  median,
  startServer,
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
function get(server, key, encoding, identity) {
  const headers = {
    authorization: `Bearer ${key}`,
    ...(encoding.header && { 'accept-encoding': encoding.header }),
  };
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get(`${server.url}/sdk/flags`, { agent, headers }, (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          const sent = res.headers['content-encoding'];
          if (res.statusCode !== 200 || sent !== encoding.header)
            reject(new Error(`GET /sdk/flags (${encoding.id}): ${res.statusCode}, content-encoding ${sent}`));
          else if (identity && !encoding.decode(body).equals(identity))
            reject(
              new Error(`GET /sdk/flags (${encoding.id}): the body does not decode to the identity body`),
            );
          else resolve({ body, etag: res.headers.etag, ms: performance.now() - t0 });
        });
      })
      .on('error', reject);
  });
}

async function sdkReady(server, key, flags, runs) {
  const { createClient } = await import(dist().url('index.node.js'));
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
    const client = createClient({
      baseUrl: `${server.url}/api/v1`,
      apiKey: key,
      stream: false,
      logger: false,
      fetch: fetchAs,
    });
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
  const compressed = median(times.compressed);
  const identity = median(times.identity);
  return {
    runs,
    encoding,
    compressedMs: compressed,
    identityMs: identity,
    ratio: compressed / identity,
    times,
  };
}

export async function run({ log }) {
  const s = { ...loadSettings(), readyRuns: 5 };
  const envs = Object.fromEntries(SIZES.map((n) => [`flags-${n}`, appFlags(n)]));
  const { keys, config } = benchConfig(envs);
  const t0 = performance.now();
  const server = await startServer({ memory: true, config }, 'compression');
  log(
    `  server up with ${fmt.int(SIZES.reduce((a, b) => a + b))} seed flags in ${fmt.ms(performance.now() - t0, 0)}`,
  );
  const result = { settings: s };
  const rows = [];
  for (const n of SIZES) {
    const key = keys[`flags-${n}`].read;
    const identity = (await get(server, key, ENCODINGS[0])).body;
    const count = Object.keys(JSON.parse(identity.toString()).flags).length;
    if (count !== n) throw new Error(`expected ${n} flags in the body, got ${count}`);
    const bytes = {};
    for (const e of ENCODINGS) bytes[e.id] = (await get(server, key, e, identity)).body.length;
    const headers = (e) => ({
      authorization: `Bearer ${key}`,
      ...(e.header && { 'accept-encoding': e.header }),
    });
    const cases = ENCODINGS.map((e) => ({
      id: e.id,
      target: server,
      config: async () => ({ path: '/sdk/flags', headers: headers(e) }),
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
        `${f.cpuUsPerRequest.toFixed(0)} us`,
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
      const res = await fetch(`${server.url}/api/v1/flags/${encodeURIComponent(flag.key)}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${full}`, 'content-type': 'application/json' },
        body: JSON.stringify({ enabled }),
      });
      if (res.status !== 200) throw new Error(`PATCH ${flag.key}: ${res.status} ${await res.text()}`);
      const plain = await get(server, read, ENCODINGS[0]);
      const once = await get(server, read, e, plain.body);
      const cached = await get(server, read, e);
      first[e.id].push({ etag: plain.etag, identityMs: plain.ms, firstMs: once.ms, cachedMs: cached.ms });
    }
  result.firstRequest = {};
  const latency = [];
  for (const [id, list] of Object.entries(first)) {
    const m = (k) => median(list.map((x) => x[k]));
    result.firstRequest[id] = {
      samples: list,
      firstMs: m('firstMs'),
      cachedMs: m('cachedMs'),
      identityMs: m('identityMs'),
    };
    latency.push([
      `first ${id} request of a new revision`,
      list.length,
      fmt.ms(m('firstMs')),
      fmt.ms(m('cachedMs')),
      fmt.ms(m('identityMs')),
      '',
    ]);
  }
  const ready = await sdkReady(server, read, n, s.readyRuns);
  result.sdkReady = ready;
  latency.push(
    [
      `SDK ready(), Node's fetch as it is (${ready.encoding})`,
      ready.runs,
      fmt.ms(ready.compressedMs),
      '',
      '',
      fmt.pct(ready.ratio),
    ],
    [
      'SDK ready(), fetch with accept-encoding: identity',
      ready.runs,
      fmt.ms(ready.identityMs),
      '',
      '',
      '(baseline)',
    ],
  );
  const text = [
    table(
      [
        'compression: GET /sdk/flags',
        'body bytes',
        'vs identity',
        'req/s',
        'vs identity (median of rounds)',
        'p99',
        'server CPU/req',
      ],
      rows,
    ),
    table(
      [
        `compression: ${fmt.int(n)} flags, no load`,
        'runs',
        'time (median)',
        'next (cached)',
        'identity GET before it',
        'vs identity',
      ],
      latency,
    ),
  ].join('\n\n');
  return { result, text };
}
