/**
 * Benchmark: OFREP evaluation (`docs/protocol.md` §11) on an in-memory server with the 100 flags of
 * sdk-flags, against (a) `GET /sdk/flags` on the same server: (b) bulk evaluation (200), (c) the
 * same with `If-None-Match` (304), (d) one rollout flag strictly between 0 and 100 % (the user's
 * bucket decides). One fixed body, `{"context":{"targetingKey":"user-42"}}`: the server caches
 * nothing per user. `loadRounds`, the four in every round; for information, no target.
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
      `/sdk/flags ${sdk.status}; OFREP ${bulk.status}, ${evaluated.length} flags, ${rollout?.key}`,
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

  const postOf = (path, headers = post) => ({ path, method: 'POST', headers, body: BODY });
  const cases = [
    ['sdkFlags', '(a) GET /sdk/flags -> 200', sdk.bytes, async () => ({ path: '/sdk/flags', headers: auth })],
    ['bulk', `(b) POST ${BULK} -> 200`, bulk.bytes, async () => postOf(BULK)],
    [
      'bulk304',
      `(c) POST ${BULK} -> 304 (If-None-Match)`,
      0,
      async () => postOf(BULK, { ...post, 'if-none-match': await currentEtag() }),
      304,
    ],
    ['single', `(d) POST ${BULK}/<rollout> -> 200`, singleBytes, async () => postOf(single)],
  ].map(([id, label, bytes, config, status = 200]) => ({ id, label, bytes, config, status, target: server }));
  log(
    `  ${FLAGS} flags; single flag ${rollout.key}; ${s.rounds} rounds x 4 x ${s.duration} s, 50 connections`,
  );
  const figures = await loadRounds(cases, s, log, 'ofrep');

  const result = { settings: { ...s, flags: FLAGS, body: BODY, singleFlag: rollout.key }, ...figures };
  const rows = cases.map(({ id, label, bytes }) => {
    const f = figures[id];
    const ratio = id === 'sdkFlags' ? '(baseline)' : fmt.pct(f.ratio);
    return [label, fmt.int(bytes), fmt.int(f.rps), ratio, fmt.ms(f.p99Ms, 0), fmt.us(f.cpuUsPerRequest)];
  });
  const header = 'ofrep|body bytes|req/s (median)|vs (a) (median of rounds)|p99|server CPU/req';
  return { result, text: table(header, rows) };
}
