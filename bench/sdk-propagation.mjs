/**
 * Benchmark: how fast a flag change reaches SDK clients.
 *
 * One reference server (its own process, in memory) and, in another process, 200 flagwire SDK
 * clients (`createClient` with a read-only key, default options: snapshot, then the event
 * stream over the global `fetch`). 20 PATCHes toggle one boolean flag, one at a time; for each,
 * the time from the PATCH's 200 until every client's `change:<flag>` listener has run with
 * `isEnabled(flag)` answering the new value (events, no polling); median and p99. The PATCHes
 * are sent from the clients' process, so all timestamps share one clock. The server writes the
 * stream frames before it answers the PATCH, so a client can see the change before the 200 is
 * read: "after 200" can be negative (for context, "from send" counts from sending the PATCH).
 *
 * Baselines, same server, same run: the same measurement with a single SDK client, before and
 * after the 200 (pooled), and, for information, 200 raw `node:http` readers of the same stream
 * in the same process (what the delivery costs without the SDK's parsing and bookkeeping).
 * Order: raw 200, SDK 1, SDK 200 (the first client plus 199), SDK 1 again.
 *
 * Connections: Node's `fetch` uses undici's global `Agent`, whose per-origin pool has no
 * connection limit by default (`connections: null`); the clients' process reports the option
 * and how many connections it holds to the server, and the server's stream count is checked.
 * Children get `ulimit -n` raised (`lib/util.mjs` `spawnNode`).
 *
 * Settings: FLAGWIRE_BENCH_PROP_CLIENTS (200), FLAGWIRE_BENCH_PROP_PATCHES (20);
 * FLAGWIRE_BENCH_CPU_PROF=DIR writes CPU profiles of both children there.
 * The build under test (SDK and server): FLAGWIRE_DIST (see `sdk-lib/dist.mjs`).
 */
import { join, resolve } from 'node:path';
import { api, BENCH_DIR, fmt, median, percentile, rpc, sleep, spawnNode, table } from './lib/util.mjs';
import { distModules, ensureDependencies } from './sdk-lib/dist.mjs';

export const name = 'sdk-propagation';

const FLAG = 'propagation.toggle';

/** `--cpu-prof` into FLAGWIRE_BENCH_CPU_PROF (if set), as the other benchmarks do for their children. */
function profArgs(label) {
  const dir = process.env.FLAGWIRE_BENCH_CPU_PROF;
  return dir
    ? ['--cpu-prof', `--cpu-prof-dir=${resolve(dir)}`, `--cpu-prof-name=${label}-${Date.now()}.cpuprofile`]
    : [];
}

function settings() {
  const env = process.env;
  return {
    clients: Number(env.FLAGWIRE_BENCH_PROP_CLIENTS ?? 200),
    patches: Number(env.FLAGWIRE_BENCH_PROP_PATCHES ?? 20),
    warmupPatches: 3,
    gapMs: 50,
    otherFlags: 20,
  };
}

/** Starts `script` as a child with an IPC channel; `{ call, close, pid }`. */
function child(script, label, { args = [], env = {}, execArgv = [] } = {}) {
  const { child: proc, exited } = spawnNode(script, args, { env, execArgv });
  // A child that died (a crashed server) must not take this process down with an EPIPE.
  proc.on('error', () => {});
  const call = rpc(proc, label);
  return {
    call,
    pid: proc.pid,
    async close() {
      if (proc.exitCode !== null || proc.signalCode !== null || !proc.connected) return;
      await call('close', {}, 10_000).catch(() => {});
      await Promise.race([exited, sleep(5000)]);
      if (proc.exitCode === null) proc.kill();
    },
  };
}

function summarize(results) {
  const pick = (k) => results.map((r) => r[k]);
  return {
    samples: results.length,
    fromResponseMsMedian: median(pick('fromResponseMs')),
    fromResponseMsP99: percentile(pick('fromResponseMs'), 99),
    fromSendMsMedian: median(pick('fromSendMs')),
    fromSendMsP99: percentile(pick('fromSendMs'), 99),
    toResponseMsMedian: median(pick('toResponseMs')),
    firstFromSendMsMedian: median(pick('firstFromSendMs')),
    /** Spread between the first and the last receiver of a PATCH. */
    spreadMsMedian: median(results.map((r) => r.fromSendMs - r.firstFromSendMs)),
    results,
  };
}

export async function run({ log = console.log } = {}) {
  const s = settings();
  const dist = distModules();
  ensureDependencies(dist.dir);
  const server = child(join(BENCH_DIR, 'lib', 'server-child.mjs'), 'server child', {
    execArgv: ['--expose-gc', ...profArgs('sdk-propagation-server')],
    env: { FLAGWIRE_SERVER_MODULE_URL: dist.server.url },
  });
  let clients;
  try {
    const started = await server.call('start', { options: { memory: true } });
    const fullKey = started.keys.find((k) => k.access === 'full')?.key;
    const readKey = started.keys.find((k) => k.access === 'read-only')?.key;
    const url = started.url;
    const baseUrl = `${url}/api/v1`;
    await api(baseUrl, 'POST', '/flags', fullKey, { key: FLAG, type: 'boolean' });
    for (let i = 0; i < s.otherFlags; i++) {
      const body =
        i % 2
          ? { key: `propagation.other-${i}`, type: 'boolean' }
          : { key: `propagation.other-${i}`, type: 'rollout', percentage: 25 };
      await api(baseUrl, 'POST', '/flags', fullKey, body);
    }
    const streamCount = async () => (await server.call('memory')).streamCount;
    const waitStreams = async (n) => {
      const t0 = Date.now();
      let count = await streamCount();
      while (count !== n && Date.now() - t0 < 10_000) {
        await sleep(100);
        count = await streamCount();
      }
      if (count !== n) throw new Error(`server holds ${count} streams, expected ${n}`);
      return count;
    };

    clients = child(join(BENCH_DIR, 'sdk-lib', 'propagation-clients.mjs'), 'sdk clients', {
      args: [JSON.stringify({ sdkUrl: dist.sdk.url })],
      execArgv: profArgs('sdk-propagation-clients'),
    });
    const patches = (target, count) =>
      clients.call('patches', { url, key: fullKey, flag: FLAG, count, gapMs: s.gapMs, target }, 300_000);
    log(
      `  SDK ${dist.sdk.path}, server ${dist.server.path}; ${s.clients} clients, ${s.patches} PATCHes per phase`,
    );

    // 1. Raw readers (information): the delivery to N connections in this process, no SDK.
    const rawOpened = await clients.call('rawOpen', { url, key: readKey, count: s.clients }, 120_000);
    await waitStreams(s.clients);
    await patches('raw', s.warmupPatches);
    const raw = summarize((await patches('raw', s.patches)).results);
    log(
      `  ${s.clients} raw readers (opened in ${rawOpened.ms.toFixed(0)} ms): after 200 median ${fmt.ms(raw.fromResponseMsMedian, 2)}, p99 ${fmt.ms(raw.fromResponseMsP99, 2)}`,
    );
    await clients.call('rawClose');
    await waitStreams(0);

    // 2. One SDK client.
    const first = await clients.call('open', { baseUrl, key: readKey, flag: FLAG, count: 1 }, 60_000);
    await waitStreams(1);
    await patches('sdk', s.warmupPatches);
    const one1 = (await patches('sdk', s.patches)).results;
    log(`  1 SDK client: after 200 median ${fmt.ms(median(one1.map((r) => r.fromResponseMs)), 2)}`);

    // 3. N SDK clients (the first one plus N - 1).
    const opened = await clients.call(
      'open',
      { baseUrl, key: readKey, flag: FLAG, count: s.clients - 1 },
      180_000,
    );
    const streamsAtN = await waitStreams(s.clients);
    log(
      `  ${opened.clients} SDK clients ready and connected in ${(opened.ms / 1000).toFixed(1)} s; server streams ${streamsAtN}; ` +
        `fetch dispatcher ${JSON.stringify(opened.fetchDispatcher)}; ulimit -n ${opened.fdLimit}`,
    );
    await patches('sdk', s.warmupPatches);
    const manyOut = await patches('sdk', s.patches);
    const many = summarize(manyOut.results);
    log(
      `  ${s.clients} SDK clients: after 200 median ${fmt.ms(many.fromResponseMsMedian, 2)}, p99 ${fmt.ms(many.fromResponseMsP99, 2)}`,
    );

    // 4. One SDK client again (the first), so the baseline brackets the N-client phase.
    await clients.call('closeClients', { keep: 1 });
    await waitStreams(1);
    await patches('sdk', s.warmupPatches);
    const last = await patches('sdk', s.patches);
    const one = summarize([...one1, ...last.results]);
    log(
      `  1 SDK client again: after 200 median ${fmt.ms(median(last.results.map((r) => r.fromResponseMs)), 2)}`,
    );

    const ratio = (a, b) => a / b;
    const result = {
      settings: { ...s, sdk: dist.sdk.path, server: dist.server.path },
      connections: {
        fetchDispatcher: opened.fetchDispatcher,
        serverStreamsWithAllClients: streamsAtN,
        fdLimit: opened.fdLimit,
        openAllClientsMs: first.ms + opened.ms,
      },
      sdkClients: many,
      singleClient: one,
      rawReaders: raw,
      ratios: {
        afterResponseMedian: ratio(many.fromResponseMsMedian, one.fromResponseMsMedian),
        afterResponseP99: ratio(many.fromResponseMsP99, one.fromResponseMsP99),
        fromSendMedian: ratio(many.fromSendMsMedian, one.fromSendMsMedian),
        fromSendP99: ratio(many.fromSendMsP99, one.fromSendMsP99),
        sdkOverRawFromSendMedian: ratio(many.fromSendMsMedian, raw.fromSendMsMedian),
      },
      /** What each additional client adds to the last client's time (from send), in microseconds. */
      perExtraClientUs: ((many.fromSendMsMedian - one.fromSendMsMedian) * 1000) / (s.clients - 1),
      warnings: manyOut.warnings,
    };
    const x = (r) => (Number.isFinite(r) ? `${r.toFixed(1)}x` : '-');
    const ms = (v) => fmt.ms(v, 2);
    const rows = [
      {
        what: '1 SDK client (baseline, 2 x pooled)',
        n: one.samples,
        med: ms(one.fromResponseMsMedian),
        p99: ms(one.fromResponseMsP99),
        smed: ms(one.fromSendMsMedian),
        sp99: ms(one.fromSendMsP99),
        patch: ms(one.toResponseMsMedian),
        spread: '-',
        ratio: '1.0x',
      },
      {
        what: `${s.clients} SDK clients, one process`,
        n: many.samples,
        med: ms(many.fromResponseMsMedian),
        p99: ms(many.fromResponseMsP99),
        smed: ms(many.fromSendMsMedian),
        sp99: ms(many.fromSendMsP99),
        patch: ms(many.toResponseMsMedian),
        spread: ms(many.spreadMsMedian),
        ratio: `${x(result.ratios.afterResponseMedian)} / ${x(result.ratios.fromSendMedian)}`,
      },
      {
        what: `(info) ${s.clients} raw node:http SSE readers`,
        n: raw.samples,
        med: ms(raw.fromResponseMsMedian),
        p99: ms(raw.fromResponseMsP99),
        smed: ms(raw.fromSendMsMedian),
        sp99: ms(raw.fromSendMsP99),
        patch: ms(raw.toResponseMsMedian),
        spread: ms(raw.spreadMsMedian),
        ratio: `${x(ratio(raw.fromResponseMsMedian, one.fromResponseMsMedian))} / ${x(ratio(raw.fromSendMsMedian, one.fromSendMsMedian))}`,
      },
    ];
    const text = `${table(rows, [
      { key: 'what', title: 'sdk-propagation (PATCH -> every isEnabled)', align: 'left' },
      { key: 'n', title: 'PATCHes' },
      { key: 'med', title: 'after 200: median' },
      { key: 'p99', title: 'p99' },
      { key: 'smed', title: 'from send: median' },
      { key: 'sp99', title: 'p99' },
      { key: 'patch', title: 'PATCH 200 in' },
      { key: 'spread', title: 'first->last' },
      { key: 'ratio', title: 'median vs 1 client (after 200 / from send)' },
    ])}\n  each extra client adds ${result.perExtraClientUs.toFixed(0)} us (from send, median); ${s.clients} SDK clients / ${s.clients} raw readers (from send, median): ${x(result.ratios.sdkOverRawFromSendMedian)}`;
    return { result, text };
  } finally {
    await clients?.close();
    await server.close();
  }
}
