/** Benchmark `ofrep`: OFREP bulk, bulk 304, one rollout flag, against `GET /sdk/flags` in the same rounds. */
import * as u from './lib/util.mjs';

const { fmt } = u;
const FLAGS = 100;
const BODY = JSON.stringify({ context: { targetingKey: 'user-42' } });
const BULK = '/ofrep/v1/evaluate/flags';
export async function run({ log }) {
  const s = u.loadSettings();
  const { keys, server } = await u.memoryServer('ofrep', { live: u.appFlags(FLAGS) });
  const key = keys.live.read;
  const auth = { authorization: `Bearer ${key}` };
  const post = { ...auth, 'content-type': 'application/json' };
  const probe = (path, headers) => u.httpJson('POST', `${server.url}${path}`, key, BODY, { headers });

  // Set-up checks: the answers the load counts on.
  const sdk = await u.httpJson('GET', `${server.url}/sdk/flags`, key);
  const bulk = await probe(BULK);
  const evaluated = bulk.json?.flags ?? [];
  const rollout = evaluated.find((f) => f.reason === 'SPLIT' && typeof f.metadata?.bucket === 'number');
  const failed = evaluated.find((f) => f.errorCode)?.errorCode;
  if (sdk.status !== 200 || bulk.status !== 200 || evaluated.length !== FLAGS || !rollout || failed)
    throw new Error(`/sdk/flags ${sdk.status}; OFREP ${bulk.status}, ${evaluated.length} flags, ${failed}`);
  const single = `${BULK}/${encodeURIComponent(rollout.key)}`;
  const singleBytes = (await probe(single)).body.length;
  /** The current ETag: asked before each 304 load, as it changes with the 12-hour token window (§11.4). */
  const currentEtag = async () => {
    const { etag } = (await probe(BULK)).headers;
    const cached = await probe(BULK, { 'if-none-match': etag });
    if (cached.status !== 304) throw new Error(`bulk OFREP with If-None-Match answered ${cached.status}`);
    return etag;
  };
  await currentEtag();

  const postOf = (path, headers = post) => ({ path, method: 'POST', headers, body: BODY });
  const etagged = async () => postOf(BULK, { ...post, 'if-none-match': await currentEtag() });
  const sdkFlags = async () => ({ path: '/sdk/flags', headers: auth });
  const cases = [
    ['sdkFlags', '(a) GET /sdk/flags -> 200', sdk.body.length, sdkFlags],
    ['bulk', `(b) POST ${BULK} -> 200`, bulk.body.length, async () => postOf(BULK)],
    ['bulk304', `(c) POST ${BULK} -> 304 (If-None-Match)`, 0, etagged, 304],
    ['single', `(d) POST ${BULK}/<rollout> -> 200`, singleBytes, async () => postOf(single)],
  ].map(([id, label, bytes, config, status = 200]) => ({ id, label, bytes, config, status, target: server }));
  log(`  ${FLAGS} flags; single flag ${rollout.key}; ${s.rounds} rounds x 4 x ${s.duration} s`);
  const figures = await u.loadRounds(cases, s, log, 'ofrep');

  const result = { settings: { ...s, flags: FLAGS, body: BODY, singleFlag: rollout.key }, ...figures };
  const rows = cases.map(({ id, label, bytes }) => {
    const f = figures[id];
    const ratio = id === 'sdkFlags' ? '(baseline)' : fmt.pct(f.ratio);
    return [label, fmt.int(bytes), fmt.int(f.rps), ratio, fmt.ms(f.p99Ms, 0), fmt.us(f.cpuUsPerRequest)];
  });
  const header = 'ofrep|body bytes|req/s (median)|vs (a) (median of rounds)|p99|server CPU/req';
  return { result, text: u.table(header, rows) };
}
