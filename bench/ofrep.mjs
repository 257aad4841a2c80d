/**
 * Benchmark: OFREP evaluation on the reference server (`docs/protocol.md` §11), in memory, with
 * the 100 flags of sdk-flags (`appFlags`), against `GET /sdk/flags` on the same server:
 *
 * - (a) `GET /sdk/flags` → 200, the baseline;
 * - (b) bulk `POST /ofrep/v1/evaluate/flags` → 200, every flag evaluated for the body's context;
 * - (c) the same with `If-None-Match` of the current ETag → 304;
 * - (d) one flag, `POST /ofrep/v1/evaluate/flags/<key>` → 200, an enabled rollout strictly between
 *   0 and 100 % (so the user's bucket decides).
 *
 * The body is fixed, `{"context":{"targetingKey":"user-42"}}` (autocannon sends one body): the
 * server caches nothing per user, so every request buckets the rollouts afresh. `loadRounds`: the
 * four in every round, the order rotating; medians over rounds of req/s and of the ratio to (a),
 * with the server's CPU time per request. For information: no target.
 */
import { appFlags, benchConfig, fmt, loadRounds, loadSettings, startServer, table } from './lib/util.mjs';

const FLAGS = 100;
const BODY = JSON.stringify({ context: { targetingKey: 'user-42' } });
const BULK = '/ofrep/v1/evaluate/flags';

export async function run({ log }) {
  const s = loadSettings();
  const { keys, config } = benchConfig({ live: appFlags(FLAGS) });
  const server = await startServer({ memory: true, config }, 'ofrep');
  const auth = { authorization: `Bearer ${keys.live.read}` };
  const post = { ...auth, 'content-type': 'application/json' };
  const probe = async (path, headers, body) => {
    const res = await fetch(`${server.url}${path}`, { method: body ? 'POST' : 'GET', headers, body });
    const text = await res.text();
    return { status: res.status, etag: res.headers.get('etag'), bytes: Buffer.byteLength(text), text };
  };

  // Set-up checks: the answers the load counts on.
  const sdk = await probe('/sdk/flags', auth);
  const bulk = await probe(BULK, post, BODY);
  const evaluated = JSON.parse(bulk.text).flags ?? [];
  const rollout = evaluated.find((f) => f.reason === 'SPLIT' && typeof f.metadata?.bucket === 'number');
  if (sdk.status !== 200 || bulk.status !== 200 || evaluated.length !== FLAGS || !rollout)
    throw new Error(
      `/sdk/flags ${sdk.status}; bulk OFREP ${bulk.status}, ${evaluated.length} flags, a rollout: ${!!rollout}`,
    );
  if (evaluated.some((f) => f.errorCode))
    throw new Error(`bulk OFREP: ${evaluated.find((f) => f.errorCode).errorCode}`);
  const single = `${BULK}/${encodeURIComponent(rollout.key)}`;
  const singleBytes = (await probe(single, post, BODY)).bytes;
  /** The current ETag: asked before each 304 load, as it changes with the 12-hour token window (§11.4). */
  const currentEtag = async () => {
    const { etag } = await probe(BULK, post, BODY);
    const cached = await probe(BULK, { ...post, 'if-none-match': etag }, BODY);
    if (cached.status !== 304) throw new Error(`bulk OFREP with If-None-Match answered ${cached.status}`);
    return etag;
  };
  await currentEtag();

  const cases = [
    {
      id: 'sdkFlags',
      label: '(a) GET /sdk/flags -> 200',
      bytes: sdk.bytes,
      config: async () => ({ path: '/sdk/flags', headers: auth }),
    },
    {
      id: 'bulk',
      label: `(b) POST ${BULK} -> 200`,
      bytes: bulk.bytes,
      config: async () => ({ path: BULK, method: 'POST', headers: post, body: BODY }),
    },
    {
      id: 'bulk304',
      label: `(c) POST ${BULK} -> 304 (If-None-Match)`,
      status: 304,
      bytes: 0,
      config: async () => ({
        path: BULK,
        method: 'POST',
        headers: { ...post, 'if-none-match': await currentEtag() },
        body: BODY,
      }),
    },
    {
      id: 'single',
      label: `(d) POST ${BULK}/<rollout> -> 200`,
      bytes: singleBytes,
      config: async () => ({ path: single, method: 'POST', headers: post, body: BODY }),
    },
  ].map((c) => ({ ...c, target: server }));
  log(
    `  ${FLAGS} flags; single flag ${rollout.key}; ${s.rounds} rounds x 4 x ${s.duration} s, 50 connections`,
  );
  const figures = await loadRounds(cases, s, log, 'ofrep');

  const result = { settings: { ...s, flags: FLAGS, body: BODY, singleFlag: rollout.key }, ...figures };
  const rows = cases.map((c) => {
    const f = figures[c.id];
    const ratio = c.id === 'sdkFlags' ? '(baseline)' : fmt.pct(f.ratio);
    return [
      c.label,
      fmt.int(c.bytes),
      fmt.int(f.rps),
      ratio,
      fmt.ms(f.p99Ms, 0),
      `${f.cpuUsPerRequest.toFixed(0)} us`,
    ];
  });
  const header = [
    'ofrep',
    'body bytes',
    'req/s (median)',
    'vs (a) (median of rounds)',
    'p99',
    'server CPU/req',
  ];
  return { result, text: table(header, rows) };
}
