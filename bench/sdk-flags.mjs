/** Benchmark `sdk-flags`: `GET /sdk/flags` req/s against a bare `node:http` server sending the same bytes. */
import * as u from './lib/util.mjs';

const { fmt } = u;
const FLAGS = 100;
const TARGET_RATIO = 0.8;
/** Headers Node adds itself on every response; the bare server gets them from Node too. */
const NODE_ADDED = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);
/** A server's answer as autocannon gets it (no `Accept-Encoding`), as the bare server replays it. */
async function capture(url, headers) {
  const { status, headers: all, body } = await u.httpJson('GET', url, undefined, undefined, { headers });
  const kept = Object.fromEntries(Object.entries(all).filter(([k]) => !NODE_ADDED.has(k)));
  return { status, headers: kept, body: body.toString('base64'), bytes: body.length };
}
export async function run({ log }) {
  const s = u.loadSettings();
  const { keys, server: ours } = await u.memoryServer('sdk-flags', { live: u.appFlags(FLAGS) });
  const auth = { authorization: `Bearer ${keys.live.read}` };
  const ok = await capture(`${ours.url}/sdk/flags`, auth);
  const etag = ok.headers.etag;
  const notModified = await capture(`${ours.url}/sdk/flags`, { ...auth, 'if-none-match': etag });
  const count = Object.keys(JSON.parse(Buffer.from(ok.body, 'base64').toString()).flags ?? {}).length;
  if (ok.status !== 200 || notModified.status !== 304 || count !== FLAGS)
    throw new Error(`GET /sdk/flags: ${ok.status}, ${count} flags; If-None-Match: ${notModified.status}`);
  const bare = await u.startServer({}, 'sdk-flags-bare', { bare: { responses: { ok, notModified, etag } } });
  if ((await capture(`${bare.url}/sdk/flags`, auth)).body !== ok.body)
    throw new Error('the bare server answers other bytes than the reference server');
  log(`  ${FLAGS} flags, ${ok.bytes} bytes; ${s.rounds} rounds x ${s.duration} s, 50 connections`);

  const figures = {};
  for (const status of [200, 304]) {
    const headers = status === 200 ? auth : { ...auth, 'if-none-match': etag };
    const config = async () => ({ path: '/sdk/flags', headers });
    const cases = [
      { id: 'bare', target: bare, status, config },
      { id: 'ours', target: ours, status, config },
    ];
    figures[status] = await u.loadRounds(cases, s, log, `GET /sdk/flags -> ${status}`);
  }
  const met = figures[200].ours.ratio >= TARGET_RATIO;
  const row = (label, { bare: b, ours: o }, target) => {
    const cpu = `${o.cpuUsPerRequest.toFixed(0)} / ${b.cpuUsPerRequest.toFixed(0)} us`;
    return [label, fmt.int(b.rps), fmt.int(o.rps), fmt.pct(o.ratio), fmt.ms(o.p99Ms, 0), cpu, target];
  };
  const text = u.table(
    'sdk-flags|bare req/s|ours req/s|ours/bare (median of rounds)|ours p99|CPU/req ours / bare|target',
    [
      row('GET /sdk/flags -> 200', figures[200], `>= 80 %: ${u.verdict(met)}`),
      row('GET /sdk/flags -> 304 (If-None-Match)', figures[304], '(info)'),
    ],
  );
  const result = {
    settings: { ...s, flags: FLAGS, bodyBytes: ok.bytes },
    ok200: figures[200],
    notModified304: figures[304],
    target: { ratioAtLeast: TARGET_RATIO, met },
  };
  return { result, text };
}
