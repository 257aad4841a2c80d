/**
 * Benchmark: how fast a flag change reaches SDK clients.
 *
 * One reference server (its own process, in memory) and, in another process, 200 flagwire SDK
 * clients (`lib/propagation-clients.mjs`: `createClient` with a read-only key, default options:
 * snapshot, then the event stream over the global `fetch`). 20 PATCHes toggle one boolean flag,
 * one at a time; for each, the time from the PATCH's 200 until every client's `change:<flag>`
 * listener has run with `isEnabled(flag)` answering the new value (events, no polling); median
 * and p99. The PATCHes are sent from the clients' process, so all timestamps share one clock. The
 * server writes the stream frames before it answers the PATCH, so a client can see the change
 * before the 200 is read: "after 200" can be negative ("from send" counts from sending the PATCH).
 *
 * Baseline, same server, same run: the same measurement with a single SDK client, before and after
 * the 200 clients (pooled). Order: 1 client, 200 (the first plus 199), 1 again.
 *
 * Settings: FLAGWIRE_BENCH_PROP_CLIENTS (200), FLAGWIRE_BENCH_PROP_PATCHES (20).
 */
import {
  benchConfig,
  dist,
  fmt,
  knob,
  median,
  percentile,
  startChild,
  startServer,
  table,
} from './lib/util.mjs';

const FLAG = 'propagation.toggle';

function summarize(results) {
  const pick = (k) => results.map((r) => r[k]);
  return {
    samples: results.length,
    fromResponseMsMedian: median(pick('fromResponseMs')),
    fromResponseMsP99: percentile(pick('fromResponseMs'), 99),
    fromSendMsMedian: median(pick('fromSendMs')),
    fromSendMsP99: percentile(pick('fromSendMs'), 99),
    toResponseMsMedian: median(pick('toResponseMs')),
    /** Spread between the first and the last receiver of a PATCH. */
    spreadMsMedian: median(results.map((r) => r.fromSendMs - r.firstFromSendMs)),
    results,
  };
}

export async function run({ log }) {
  const s = {
    clients: knob('FLAGWIRE_BENCH_PROP_CLIENTS', 200),
    patches: knob('FLAGWIRE_BENCH_PROP_PATCHES', 20),
    warmupPatches: 3,
    gapMs: 50,
  };
  const others = Array.from({ length: 20 }, (_, i) => ({
    key: `propagation.other-${i}`,
    ...(i % 2 ? { type: 'boolean' } : { type: 'rollout', percentage: 25 }),
  }));
  const { keys, config } = benchConfig({ live: [{ key: FLAG, type: 'boolean' }, ...others] });
  const server = await startServer({ memory: true, config }, 'sdk-propagation', { track: true });
  const sdkUrl = dist().url('index.js');
  const clients = startChild('lib/propagation-clients.mjs', 'sdk clients', {
    args: [JSON.stringify({ sdkUrl })],
  });
  const open = (count) =>
    clients.call(
      'open',
      { baseUrl: `${server.url}/api/v1`, key: keys.live.read, flag: FLAG, count },
      180_000,
    );
  const patches = async (count) => {
    const payload = { url: server.url, key: keys.live.full, flag: FLAG, gapMs: s.gapMs };
    await clients.call('patches', { ...payload, count: s.warmupPatches }, 300_000);
    return clients.call('patches', { ...payload, count }, 300_000);
  };
  log(`  SDK ${sdkUrl}; ${s.clients} clients, ${s.patches} PATCHes per phase`);

  await open(1);
  await server.streams(1);
  const one1 = (await patches(s.patches)).results;
  const opened = await open(s.clients - 1);
  await server.streams(s.clients);
  log(`  ${opened.clients} SDK clients ready and connected in ${(opened.ms / 1000).toFixed(1)} s`);
  const manyOut = await patches(s.patches);
  const many = summarize(manyOut.results);
  await clients.call('closeClients', { keep: 1 });
  await server.streams(1);
  const one = summarize([...one1, ...(await patches(s.patches)).results]);

  const result = {
    settings: s,
    sdkClients: many,
    singleClient: one,
    ratios: {
      afterResponseMedian: many.fromResponseMsMedian / one.fromResponseMsMedian,
      fromSendMedian: many.fromSendMsMedian / one.fromSendMsMedian,
    },
    /** What each additional client adds to the last client's time (from send), in microseconds. */
    perExtraClientUs: ((many.fromSendMsMedian - one.fromSendMsMedian) * 1000) / (s.clients - 1),
    warnings: manyOut.warnings,
  };
  const ms = (v) => fmt.ms(v, 2);
  const row = (what, m, ratio) => [
    what,
    m.samples,
    ms(m.fromResponseMsMedian),
    ms(m.fromResponseMsP99),
    ms(m.fromSendMsMedian),
    ms(m.fromSendMsP99),
    ms(m.toResponseMsMedian),
    ratio,
  ];
  const text = table(
    [
      'sdk-propagation (PATCH -> every isEnabled)',
      'PATCHes',
      'after 200: median',
      'p99',
      'from send: median',
      'p99',
      'PATCH 200 in',
      'median vs 1 client (after 200 / from send)',
    ],
    [
      row('1 SDK client (baseline, 2 x pooled)', one, '1.0x'),
      row(
        `${s.clients} SDK clients, one process`,
        many,
        `${fmt.x(result.ratios.afterResponseMedian, 1)} / ${fmt.x(result.ratios.fromSendMedian, 1)}`,
      ),
    ],
  );
  return {
    result,
    text: `${text}\n  each extra client adds ${result.perExtraClientUs.toFixed(0)} us (from send, median)`,
  };
}
