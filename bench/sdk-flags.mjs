/**
 * Benchmark: `GET /sdk/flags` with 100 flags (`appFlags`), req/s of the reference server (in
 * memory) against a bare `node:http` server answering the same bytes (status, headers and body
 * copied from the reference server's answer). The two servers and the load generator each run in
 * a process of their own; `loadRounds` alternates them (the figure is the median of the per-round
 * ratios ours/bare, which cancels most of the machine's drift) and gives the servers' CPU time
 * per request. The 304 path (`If-None-Match` with the current ETag) the same way, for information.
 */
import {
  appFlags,
  benchConfig,
  fmt,
  httpGet,
  loadRounds,
  loadSettings,
  startServer,
  table,
  verdict,
} from './lib/util.mjs';

const FLAGS = 100;
const TARGET_RATIO = 0.8;
/** Headers Node adds itself on every response; the bare server gets them from Node too. */
const NODE_ADDED = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

/** A server's answer as autocannon gets it (no `Accept-Encoding`), as the bare server replays it. */
async function capture(url, headers) {
  const { status, headers: all, body } = await httpGet(url, headers);
  const kept = Object.fromEntries(Object.entries(all).filter(([k]) => !NODE_ADDED.has(k)));
  return { status, headers: kept, body: body.toString('base64'), bytes: body.length };
}

export async function run({ log }) {
  const s = loadSettings();
  const { keys, config } = benchConfig({ live: appFlags(FLAGS) });
  const ours = await startServer({ memory: true, config }, 'sdk-flags');
  const auth = { authorization: `Bearer ${keys.live.read}` };
  const ok = await capture(`${ours.url}/sdk/flags`, auth);
  const etag = ok.headers.etag;
  const notModified = await capture(`${ours.url}/sdk/flags`, { ...auth, 'if-none-match': etag });
  const count = Object.keys(JSON.parse(Buffer.from(ok.body, 'base64').toString()).flags ?? {}).length;
  if (ok.status !== 200 || notModified.status !== 304 || count !== FLAGS)
    throw new Error(
      `GET /sdk/flags: ${ok.status} with ${count} flags; with If-None-Match ${notModified.status}`,
    );
  const bare = await startServer({}, 'sdk-flags-bare', { bare: { responses: { ok, notModified, etag } } });
  if ((await capture(`${bare.url}/sdk/flags`, auth)).body !== ok.body)
    throw new Error('the bare server answers other bytes than the reference server');
  log(
    `  ${FLAGS} flags, ${ok.bytes} bytes; ${s.rounds} rounds x ${s.duration} s, 50 connections, pipelining 1`,
  );

  const figures = {};
  for (const [status, headers] of [
    [200, auth],
    [304, { ...auth, 'if-none-match': etag }],
  ]) {
    const config = async () => ({ path: '/sdk/flags', headers });
    const cases = [
      { id: 'bare', target: bare, status, config },
      { id: 'ours', target: ours, status, config },
    ];
    figures[status] = await loadRounds(cases, s, log, `GET /sdk/flags -> ${status}`);
  }
  const met = figures[200].ours.ratio >= TARGET_RATIO;
  const result = {
    settings: { ...s, flags: FLAGS, bodyBytes: ok.bytes },
    ok200: figures[200],
    notModified304: figures[304],
    target: { ratioAtLeast: TARGET_RATIO, met },
  };
  const row = (label, { bare: b, ours: o }, target) => [
    label,
    fmt.int(b.rps),
    fmt.int(o.rps),
    fmt.pct(o.ratio),
    fmt.ms(o.p99Ms, 0),
    `${o.cpuUsPerRequest.toFixed(0)} / ${b.cpuUsPerRequest.toFixed(0)} us`,
    target,
  ];
  const text = table(
    'sdk-flags|bare req/s|ours req/s|ours/bare (median of rounds)|ours p99|CPU/req ours / bare|target',
    [
      row('GET /sdk/flags -> 200', figures[200], `>= 80 %: ${verdict(met)}`),
      row('GET /sdk/flags -> 304 (If-None-Match)', figures[304], '(info)'),
    ],
  );
  return { result, text };
}
