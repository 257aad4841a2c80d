/**
 * Benchmark: compressed `GET /sdk/flags` (`docs/protocol.md` §5.2), for 100 and for 10,000 flags.
 *
 * One server child with two environments from its config: `flags-100` gets the 100 flags of
 * sdk-flags (`createFlags`, through the management API), `flags-10000` is seeded with 10,000
 * flags of the same kind (`flagSpec(0..9999)`, config seed flags). For each size, on the same
 * server child:
 *
 * - body bytes of the answer with no `Accept-Encoding` (identity, the baseline), with
 *   `Accept-Encoding: gzip` and with `Accept-Encoding: br` (read with `node:http`, which does not
 *   decode; each compressed body is checked to decode to the identity body);
 * - req/s of the three with autocannon (its own process; it sends no `Accept-Encoding` of its
 *   own), 50 connections, pipelining 1; every round measures the three in turn (the order
 *   rotates a step per round); figures are medians over rounds of req/s and of each round's
 *   ratio to identity, with the server's CPU time per request. The per-revision cache of each
 *   encoding is warm before anything is measured (the set-up requests and a warm-up load).
 *
 * Then, on 10,000 flags, with no load: the first request of a new revision for `br` and for
 * `gzip` (it waits for the compression), each after a PATCH of its own that makes the new
 * revision and an identity GET that builds the revision's body (so the compressed request
 * waits for the compression only); once per encoding per round, median over rounds, next to
 * the request that follows it (served from the cache).
 *
 * Last, how long an SDK client (`createClient` of the build under test, `stream: false`) takes
 * to be ready on 10,000 flags: with Node's `fetch` as it is (it sends `Accept-Encoding: gzip,
 * deflate` by itself over http, so it gets gzip) against a `fetch` that sets
 * `accept-encoding: identity`; both through the same wrapper, which also records the encoding
 * of the answer. The clients run in this process (the server is a child); one warm-up each,
 * then alternating runs, median of each. For information: no target.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import {
  api,
  expectOnlyStatus,
  fmt,
  loadSettings,
  median,
  runLoadWithCpu,
  startServerChild,
  table,
} from './lib/util.mjs';
import { createFlags, flagSpec } from './sdk-flags.mjs';
import { distDir, distModules, ensureDependencies } from './sdk-lib/dist.mjs';

export const name = 'compression';

const LARGE = 10_000;
const PATH = '/sdk/flags';

/** The autocannon settings, and how many SDK clients are made per variant (after one warm-up each). */
const settings = () => ({ ...loadSettings(), readyRuns: 5 });

/** The three ways of asking: `header` is the request's `Accept-Encoding` (none for identity). */
const ENCODINGS = [
  { id: 'identity', header: undefined, decode: (bytes) => bytes },
  { id: 'gzip', header: 'gzip', decode: gunzipSync },
  { id: 'br', header: 'br', decode: brotliDecompressSync },
];

/** `fw_live_` + 32 characters of `[A-Za-z0-9]`. */
const newKey = () => `fw_live_${randomBytes(16).toString('hex')}`;

/** An environment of the config: its key, a full and a read-only API key, and seed flags. */
function environment(key, seedCount) {
  const full = newKey();
  const read = newKey();
  const flags = [];
  for (let i = 0; i < seedCount; i++) {
    const { body, enabled } = flagSpec(i);
    flags.push({ ...body, enabled });
  }
  return {
    keys: { full, read },
    config: {
      key,
      apiKeys: [
        { key: full, access: 'full' },
        { key: read, access: 'read-only' },
      ],
      flags,
    },
  };
}

/** Raw GETs on one keep-alive connection: `node:http` does not decode, so the bytes are the wire's body. */
function rawClient() {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const get = (url, headers) =>
    new Promise((resolve, reject) => {
      const t0 = performance.now();
      const req = http.get(url, { agent, headers }, (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () =>
          resolve({
            status: res.statusCode,
            headers: res.headers,
            body: Buffer.concat(chunks),
            ms: performance.now() - t0,
          }),
        );
      });
      req.on('error', reject);
    });
  return { get, close: () => agent.destroy() };
}

const headersFor = (auth, encoding) =>
  encoding.header ? { ...auth, 'accept-encoding': encoding.header } : auth;

/** GET in `encoding`; throws unless it is a 200 sent in that encoding (`sameAs`: the identity body it must decode to). */
async function fetchEncoded(raw, url, auth, encoding, sameAs) {
  const answer = await raw.get(url, headersFor(auth, encoding));
  const sent = answer.headers['content-encoding'];
  if (answer.status !== 200 || sent !== encoding.header)
    throw new Error(`GET ${PATH} (${encoding.id}): ${answer.status}, content-encoding ${sent}`);
  if (sameAs && !encoding.decode(answer.body).equals(sameAs))
    throw new Error(`GET ${PATH} (${encoding.id}): the body does not decode to the identity body`);
  return answer;
}

/** Bytes and req/s of the three encodings on one environment (`keys`, `flags` of them). */
async function measureSize({ server, raw, keys, flags, s, log }) {
  const url = `${server.url}${PATH}`;
  const auth = { authorization: `Bearer ${keys.read}` };
  const plain = await fetchEncoded(raw, url, auth, ENCODINGS[0]);
  const count = Object.keys(JSON.parse(plain.body.toString('utf8')).flags).length;
  if (count !== flags) throw new Error(`expected ${flags} flags in the body, got ${count}`);
  const bodyBytes = {};
  // Also warms each encoding's cache of the revision.
  for (const encoding of ENCODINGS)
    bodyBytes[encoding.id] = (await fetchEncoded(raw, url, auth, encoding, plain.body)).body.length;
  log(
    `  ${fmt.int(flags)} flags: body ${ENCODINGS.map((e) => `${e.id} ${fmt.int(bodyBytes[e.id])}`).join(', ')} bytes; ` +
      `${s.rounds} rounds x 3 x ${s.duration} s, ${s.connections} connections, pipelining ${s.pipelining}`,
  );

  const load = async (encoding, seconds) => {
    const summary = await runLoadWithCpu(server, {
      path: PATH,
      headers: headersFor(auth, encoding),
      connections: s.connections,
      pipelining: s.pipelining,
      duration: seconds,
    });
    expectOnlyStatus(summary, 200, `${flags} flags, ${encoding.id}`);
    return summary;
  };
  // Warm-up (JIT, connection set-up), not counted.
  for (const encoding of ENCODINGS) await load(encoding, s.warmup);
  const byRound = [];
  for (let round = 0; round < s.rounds; round++) {
    const order = ENCODINGS.map((_, i) => ENCODINGS[(i + round) % ENCODINGS.length]);
    const got = {};
    for (const encoding of order) got[encoding.id] = await load(encoding, s.duration);
    byRound.push(got);
    const parts = ENCODINGS.map(({ id }) => {
      const ratio = got[id].rps / got.identity.rps;
      return `${id} ${fmt.int(got[id].rps)} req/s (${fmt.pct(ratio)}, ${got[id].cpuUsPerRequest.toFixed(0)} us CPU/req)`;
    });
    log(`  ${fmt.int(flags)} flags, round ${round + 1}/${s.rounds}: ${parts.join(', ')}`);
  }

  const perEncoding = {};
  for (const { id } of ENCODINGS) {
    const mine = byRound.map((got) => got[id]);
    const ratios = byRound.map((got) => got[id].rps / got.identity.rps);
    // autocannon's bytes read per second over its requests per second: body and headers.
    const wire = mine.map((f) => f.throughputBytesPerSec / f.rpsAverage);
    perEncoding[id] = {
      bodyBytes: bodyBytes[id],
      bodyBytesRatioToIdentity: bodyBytes[id] / bodyBytes.identity,
      rounds: mine.map((f, i) => ({
        round: i + 1,
        rps: f.rps,
        ratioToIdentity: ratios[i],
        cpuUsPerRequest: f.cpuUsPerRequest,
        cpuBusy: f.cpuBusy,
        latencyP50Ms: f.latency.p50,
        latencyP99Ms: f.latency.p99,
        wireBytesPerResponse: wire[i],
      })),
      rpsMedian: median(mine.map((f) => f.rps)),
      ratioToIdentityMedian: median(ratios),
      cpuUsPerRequestMedian: median(mine.map((f) => f.cpuUsPerRequest)),
      latencyP99MsMedian: median(mine.map((f) => f.latency.p99)),
      wireBytesPerResponseMedian: median(wire),
    };
  }
  return { flags, ...perEncoding };
}

/**
 * The first compressed request of a new revision (it waits for the compression), per encoding:
 * PATCH (new revision), identity GET (builds the body), GET in the encoding (first), the same
 * again (cached). `samples` times per encoding.
 */
async function firstRequests({ server, raw, keys, samples, log }) {
  const url = `${server.url}${PATH}`;
  const auth = { authorization: `Bearer ${keys.read}` };
  const { body: flag, enabled: initially } = flagSpec(0);
  let enabled = initially;
  const out = {};
  for (const encoding of ENCODINGS.slice(1)) out[encoding.id] = [];
  for (let i = 0; i < samples; i++) {
    for (const encoding of ENCODINGS.slice(1)) {
      const before = (await raw.get(url, auth)).headers.etag;
      enabled = !enabled;
      await api(`${server.url}/api/v1`, 'PATCH', `/flags/${encodeURIComponent(flag.key)}`, keys.full, {
        enabled,
      });
      const plain = await fetchEncoded(raw, url, auth, ENCODINGS[0]);
      if (plain.headers.etag === before) throw new Error(`the PATCH made no new revision (ETag ${before})`);
      const first = await fetchEncoded(raw, url, auth, encoding, plain.body);
      const cached = await fetchEncoded(raw, url, auth, encoding);
      out[encoding.id].push({
        etag: plain.headers.etag,
        identityFirstMs: plain.ms,
        firstMs: first.ms,
        cachedMs: cached.ms,
        bodyBytes: first.body.length,
      });
      log(
        `  first ${encoding.id} request of ${plain.headers.etag}: ${fmt.ms(first.ms)} ` +
          `(then ${fmt.ms(cached.ms)} cached; the identity GET before it ${fmt.ms(plain.ms)})`,
      );
    }
  }
  const result = {};
  for (const [id, list] of Object.entries(out)) {
    result[id] = {
      samples: list,
      firstMsMedian: median(list.map((x) => x.firstMs)),
      cachedMsMedian: median(list.map((x) => x.cachedMs)),
      identityFirstMsMedian: median(list.map((x) => x.identityFirstMs)),
    };
  }
  return result;
}

/** `createClient` of the build under test: `index.node.js` (Node's entry) when there is one. */
async function loadCreateClient() {
  const dir = distDir();
  const node = join(dir, 'index.node.js');
  const path = existsSync(node) ? node : distModules().sdk.path;
  ensureDependencies(dir);
  const { createClient } = await import(pathToFileURL(path).href);
  return { createClient, path };
}

/** Time until `ready()` of an SDK client on the environment, with Node's `fetch` compressed or not. */
async function sdkReady({ server, keys, flags, runs, log }) {
  const { createClient, path } = await loadCreateClient();
  const variants = [
    { id: 'compressed', set: {} },
    { id: 'identity', set: { 'accept-encoding': 'identity' } },
  ];
  const once = async (variant) => {
    let encoding;
    const wrapped = async (input, init = {}) => {
      const headers = new Headers(init.headers);
      for (const [k, v] of Object.entries(variant.set)) headers.set(k, v);
      const res = await fetch(input, { ...init, headers });
      if (String(input).endsWith(PATH)) encoding = res.headers.get('content-encoding') ?? 'identity';
      return res;
    };
    const t0 = performance.now();
    const client = createClient({
      baseUrl: `${server.url}/api/v1`,
      apiKey: keys.read,
      stream: false,
      logger: false,
      fetch: wrapped,
    });
    try {
      await client.ready({ timeoutMs: 30_000 });
      const ms = performance.now() - t0;
      const count = Object.keys(client.allFlags()).length;
      if (count !== flags) throw new Error(`SDK client (${variant.id}) holds ${count} flags, not ${flags}`);
      return { ms, encoding };
    } finally {
      await client.close();
    }
  };
  const times = { compressed: [], identity: [] };
  const encodings = {};
  for (const variant of variants) await once(variant);
  for (let i = 0; i < runs; i++) {
    // Alternate which goes first.
    for (const variant of i % 2 === 0 ? variants : [...variants].reverse()) {
      const { ms, encoding } = await once(variant);
      times[variant.id].push(ms);
      encodings[variant.id] = encoding;
    }
  }
  if (encodings.identity !== 'identity' || encodings.compressed === 'identity')
    throw new Error(`SDK clients got ${JSON.stringify(encodings)}`);
  const result = { sdk: path, runs, encodings };
  for (const { id } of variants) result[id] = { ms: times[id], msMedian: median(times[id]) };
  result.compressedOverIdentity = result.compressed.msMedian / result.identity.msMedian;
  log(
    `  SDK ready on ${fmt.int(flags)} flags (${path}): ${encodings.compressed} ${fmt.ms(result.compressed.msMedian)}, ` +
      `identity ${fmt.ms(result.identity.msMedian)} (median of ${runs})`,
  );
  return result;
}

function loadTable(sizes) {
  const rows = [];
  for (const size of sizes) {
    for (const { id } of ENCODINGS) {
      const m = size[id];
      const baseline = id === 'identity';
      rows.push({
        what: `${fmt.int(size.flags)} flags, ${baseline ? 'no Accept-Encoding (identity)' : `Accept-Encoding: ${id}`}`,
        bytes: fmt.int(m.bodyBytes),
        bytesRatio: baseline ? '(baseline)' : fmt.pct(m.bodyBytesRatioToIdentity),
        wire: fmt.int(m.wireBytesPerResponseMedian),
        rps: fmt.int(m.rpsMedian),
        ratio: baseline ? '(baseline)' : fmt.pct(m.ratioToIdentityMedian),
        p99: fmt.ms(m.latencyP99MsMedian, 0),
        cpu: `${m.cpuUsPerRequestMedian.toFixed(0)} us`,
      });
    }
  }
  return table(rows, [
    { key: 'what', title: 'compression: GET /sdk/flags', align: 'left' },
    { key: 'bytes', title: 'body bytes' },
    { key: 'bytesRatio', title: 'vs identity' },
    { key: 'wire', title: 'wire bytes/resp (autocannon)' },
    { key: 'rps', title: 'req/s (median)' },
    { key: 'ratio', title: 'vs identity (median of rounds)' },
    { key: 'p99', title: 'p99' },
    { key: 'cpu', title: 'server CPU/req' },
  ]);
}

function latencyTable(first, ready) {
  const rows = ENCODINGS.slice(1).map(({ id }) => ({
    what: `first ${id} request of a new revision`,
    runs: first[id].samples.length,
    time: fmt.ms(first[id].firstMsMedian),
    cached: fmt.ms(first[id].cachedMsMedian),
    identity: fmt.ms(first[id].identityFirstMsMedian),
    ratio: '',
  }));
  rows.push(
    {
      what: `SDK ready(), Node's fetch as it is (${ready.encodings.compressed})`,
      runs: ready.compressed.ms.length,
      time: fmt.ms(ready.compressed.msMedian),
      ratio: fmt.pct(ready.compressedOverIdentity),
    },
    {
      what: 'SDK ready(), fetch with accept-encoding: identity',
      runs: ready.identity.ms.length,
      time: fmt.ms(ready.identity.msMedian),
      ratio: '(baseline)',
    },
  );
  return table(rows, [
    { key: 'what', title: `compression: ${fmt.int(LARGE)} flags, no load`, align: 'left' },
    { key: 'runs', title: 'runs' },
    { key: 'time', title: 'time (median)' },
    { key: 'cached', title: 'next request (cached)' },
    { key: 'identity', title: 'identity GET before it' },
    { key: 'ratio', title: 'time vs identity' },
  ]);
}

export async function run({ log = console.log } = {}) {
  const s = settings();
  const small = environment('flags-100', 0);
  const large = environment(`flags-${LARGE}`, LARGE);
  const t0 = performance.now();
  const server = await startServerChild(
    { memory: true, config: { projects: [{ key: 'bench', environments: [small.config, large.config] }] } },
    'compression',
  );
  const raw = rawClient();
  try {
    log(`  server up with ${fmt.int(LARGE)} seed flags in ${fmt.ms(performance.now() - t0, 0)}`);
    const created = await createFlags(`${server.url}/api/v1`, small.keys.full);
    const sizes = [];
    for (const [keys, flags] of [
      [small.keys, created.length],
      [large.keys, LARGE],
    ])
      sizes.push(await measureSize({ server, raw, keys, flags, s, log }));
    const first = await firstRequests({ server, raw, keys: large.keys, samples: s.rounds, log });
    const ready = await sdkReady({ server, keys: large.keys, flags: LARGE, runs: s.readyRuns, log });
    const result = {
      settings: { ...s, flags: sizes.map((size) => size.flags) },
      [`flags${sizes[0].flags}`]: sizes[0],
      [`flags${sizes[1].flags}`]: sizes[1],
      firstRequest: { flags: LARGE, ...first },
      sdkReady: { flags: LARGE, ...ready },
    };
    return { result, text: `${loadTable(sizes)}\n\n${latencyTable(first, ready)}` };
  } finally {
    raw.close();
    await server.close();
  }
}
