/**
 * Benchmark: OFREP evaluation on the reference server (`docs/protocol.md` §11), with the same
 * 100 flags as sdk-flags (`createFlags`), against `GET /sdk/flags` on the same server child:
 *
 * - (a) `GET /sdk/flags` → 200, the baseline;
 * - (b) bulk `POST /ofrep/v1/evaluate/flags` → 200, every flag evaluated for the body's context;
 * - (c) the same with `If-None-Match` of the current ETag → 304;
 * - (d) one flag, `POST /ofrep/v1/evaluate/flags/<key>` → 200, an enabled rollout strictly between
 *   0 and 100 % (so the user's bucket decides).
 *
 * The body is fixed, `{"context":{"targetingKey":"user-42"}}` (autocannon sends one body): the
 * server caches nothing per user, so every request buckets the rollouts afresh, as for a new
 * user. The server and the load generator (autocannon) each run in their own process; every
 * round measures the four in turn (the order rotates a step per round) and the figures are the
 * medians over rounds of req/s and of each round's ratio to (a), with the server's CPU time per
 * request. For information: no target.
 */
import {
  expectOnlyStatus,
  fmt,
  loadSettings,
  median,
  runLoadWithCpu,
  startServerChild,
  table,
} from './lib/util.mjs';
import { createFlags } from './sdk-flags.mjs';

export const name = 'ofrep';

const TARGETING_KEY = 'user-42';
const BODY = JSON.stringify({ context: { targetingKey: TARGETING_KEY } });
const BULK = '/ofrep/v1/evaluate/flags';

/** One request with `fetch`: status, ETag and body (parsed when there is one). */
async function probe(url, init) {
  const res = await fetch(url, init);
  const text = await res.text();
  return { status: res.status, etag: res.headers.get('etag'), bytes: Buffer.byteLength(text), text };
}

export async function run({ log = console.log } = {}) {
  const s = loadSettings();
  const server = await startServerChild({ memory: true }, 'ofrep');
  try {
    const created = await createFlags(`${server.url}/api/v1`, server.fullKey);
    const auth = { authorization: `Bearer ${server.readKey}` };
    const post = { ...auth, 'content-type': 'application/json' };
    const postInit = (headers = post) => ({ method: 'POST', headers, body: BODY });

    // Set-up checks: the answers the load will count on.
    const sdk = await probe(`${server.url}/sdk/flags`, { headers: auth });
    if (sdk.status !== 200) throw new Error(`GET /sdk/flags answered ${sdk.status}`);
    const bulk = await probe(`${server.url}${BULK}`, postInit());
    if (bulk.status !== 200 || !bulk.etag)
      throw new Error(`bulk OFREP answered ${bulk.status}: ${bulk.text}`);
    const evaluated = JSON.parse(bulk.text).flags;
    if (evaluated.length !== created.length)
      throw new Error(`expected ${created.length} flags in the bulk answer, got ${evaluated.length}`);
    const failed = evaluated.filter((f) => f.errorCode);
    if (failed.length > 0)
      throw new Error(`bulk OFREP: ${failed.length} flags failed: ${failed[0].errorCode}`);
    const rollout = evaluated.find((f) => f.reason === 'SPLIT' && typeof f.metadata?.bucket === 'number');
    if (!rollout) throw new Error('no rollout decided by the bucket among the flags');
    const singlePath = `${BULK}/${encodeURIComponent(rollout.key)}`;
    const single = await probe(`${server.url}${singlePath}`, postInit());
    if (single.status !== 200) throw new Error(`single OFREP answered ${single.status}: ${single.text}`);
    /** The current ETag: asked again before each 304 load, as it changes with the 12-hour token window (§11.4). */
    const currentEtag = async () => {
      const answer = await probe(`${server.url}${BULK}`, postInit());
      const cached = await probe(`${server.url}${BULK}`, postInit({ ...post, 'if-none-match': answer.etag }));
      if (cached.status !== 304) throw new Error(`bulk OFREP with If-None-Match answered ${cached.status}`);
      return answer.etag;
    };
    await currentEtag();

    const cases = [
      {
        id: 'sdkFlags',
        label: '(a) GET /sdk/flags -> 200',
        status: 200,
        bytes: sdk.bytes,
        load: async () => ({ path: '/sdk/flags', headers: auth }),
      },
      {
        id: 'bulk',
        label: `(b) POST ${BULK} -> 200`,
        status: 200,
        bytes: bulk.bytes,
        load: async () => ({ path: BULK, method: 'POST', headers: post, body: BODY }),
      },
      {
        id: 'bulk304',
        label: `(c) POST ${BULK} -> 304 (If-None-Match)`,
        status: 304,
        bytes: 0,
        load: async () => ({
          path: BULK,
          method: 'POST',
          headers: { ...post, 'if-none-match': await currentEtag() },
          body: BODY,
        }),
      },
      {
        id: 'single',
        label: `(d) POST ${BULK}/<rollout> -> 200`,
        status: 200,
        bytes: single.bytes,
        load: async () => ({ path: singlePath, method: 'POST', headers: post, body: BODY }),
      },
    ];
    log(
      `  ${created.length} flags; bulk body ${bulk.bytes} bytes, /sdk/flags ${sdk.bytes} bytes; single flag ` +
        `${rollout.key}; context {targetingKey: '${TARGETING_KEY}'} (fixed); ${s.rounds} rounds x 4 x ` +
        `${s.duration} s, ${s.connections} connections, pipelining ${s.pipelining}`,
    );

    const measure = async (c, seconds) => {
      const summary = await runLoadWithCpu(server, {
        ...(await c.load()),
        connections: s.connections,
        pipelining: s.pipelining,
        duration: seconds,
      });
      expectOnlyStatus(summary, c.status, c.label);
      return summary;
    };
    // Warm-up (JIT, connection set-up), not counted.
    for (const c of cases) await measure(c, s.warmup);
    const perRound = [];
    for (let round = 1; round <= s.rounds; round++) {
      const figures = {};
      for (let i = 0; i < cases.length; i++) {
        const c = cases[(i + round - 1) % cases.length];
        figures[c.id] = await measure(c, s.duration);
      }
      perRound.push(figures);
      const baseline = figures.sdkFlags.rps;
      log(
        `  round ${round}/${s.rounds}: ` +
          cases
            .map((c) => {
              const f = figures[c.id];
              return `${c.id} ${fmt.int(f.rps)} req/s (${fmt.pct(f.rps / baseline)}, ${f.cpuUsPerRequest.toFixed(0)} us CPU/req)`;
            })
            .join(', '),
      );
    }

    const summaries = {};
    for (const c of cases) {
      const runs = perRound.map((figures) => ({ f: figures[c.id], baseline: figures.sdkFlags }));
      summaries[c.id] = {
        path: c.label,
        expectStatus: c.status,
        bodyBytes: c.bytes,
        rounds: runs.map(({ f, baseline }, i) => ({
          round: i + 1,
          rps: f.rps,
          ratioToSdkFlags: f.rps / baseline.rps,
          cpuUsPerRequest: f.cpuUsPerRequest,
          cpuBusy: f.cpuBusy,
          latencyP50Ms: f.latency.p50,
          latencyP99Ms: f.latency.p99,
        })),
        rpsMedian: median(runs.map(({ f }) => f.rps)),
        ratioToSdkFlagsMedian: median(runs.map(({ f, baseline }) => f.rps / baseline.rps)),
        cpuUsPerRequestMedian: median(runs.map(({ f }) => f.cpuUsPerRequest)),
        latencyP99MsMedian: median(runs.map(({ f }) => f.latency.p99)),
      };
    }
    const result = {
      settings: {
        ...s,
        flags: created.length,
        context: { targetingKey: TARGETING_KEY },
        singleFlag: rollout.key,
      },
      ...summaries,
    };
    const rows = cases.map((c) => {
      const m = summaries[c.id];
      return {
        path: c.label,
        bytes: fmt.int(c.bytes),
        rps: fmt.int(m.rpsMedian),
        ratio: c.id === 'sdkFlags' ? '(baseline)' : fmt.pct(m.ratioToSdkFlagsMedian),
        p99: fmt.ms(m.latencyP99MsMedian, 0),
        cpu: `${m.cpuUsPerRequestMedian.toFixed(0)} us`,
      };
    });
    const text = table(rows, [
      { key: 'path', title: 'ofrep', align: 'left' },
      { key: 'bytes', title: 'body bytes' },
      { key: 'rps', title: 'req/s (median)' },
      { key: 'ratio', title: 'vs (a) (median of rounds)' },
      { key: 'p99', title: 'p99' },
      { key: 'cpu', title: 'server CPU/req' },
    ]);
    return { result, text };
  } finally {
    await server.close();
  }
}
