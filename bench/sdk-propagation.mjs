/**
 * Benchmark: how fast a flag change reaches SDK clients (bench/README.md). One reference server
 * (in memory) and, in another process, 200 SDK clients (`lib/propagation-clients.mjs`, which also
 * sends the PATCHes: one clock). Per PATCH, the time from its 200 (and from sending it) until
 * every client's `change:<flag>` listener has seen `isEnabled(flag)` flip. The server writes the
 * frames before it answers the PATCH, so "after 200" can be negative. Baseline, same server and
 * run: one client, before and after the 200 (pooled). Settings: FLAGWIRE_BENCH_PROP_CLIENTS (200),
 * FLAGWIRE_BENCH_PROP_PATCHES (20).
 */
import {
  benchConfig,
  dist,
  fmt,
  knob,
  median,
  propagationStats,
  startChild,
  startServer,
  table,
} from './lib/util.mjs';

const FLAG = 'propagation.toggle';

function summarize(results) {
  /** Spread between the first and the last receiver of a PATCH. */
  const spreadMsMedian = median(results.map((r) => r.fromSendMs - r.firstFromSendMs));
  return { samples: results.length, ...propagationStats(results), spreadMsMedian, results };
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
  const baseUrl = `${server.url}/api/v1`;
  const open = (count) => clients.call('open', { baseUrl, key: keys.live.read, flag: FLAG, count }, 180_000);
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

  const ratio = (k) => many[k].median / one[k].median;
  const result = {
    settings: s,
    sdkClients: many,
    singleClient: one,
    ratios: { afterResponseMedian: ratio('lastAfterResponseMs'), fromSendMedian: ratio('lastAfterSendMs') },
    /** What each additional client adds to the last client's time (from send), in microseconds. */
    perExtraClientUs: ((many.lastAfterSendMs.median - one.lastAfterSendMs.median) * 1000) / (s.clients - 1),
    warnings: manyOut.warnings,
  };
  const ms = (v) => fmt.ms(v, 2);
  const row = (what, m, vs) => {
    const [r, f] = [m.lastAfterResponseMs, m.lastAfterSendMs];
    return [
      what,
      m.samples,
      ms(r.median),
      ms(r.p99),
      ms(f.median),
      ms(f.p99),
      ms(m.patchRoundTripMs.median),
      vs,
    ];
  };
  const { afterResponseMedian: ar, fromSendMedian: fs } = result.ratios;
  const text = table(
    'sdk-propagation (PATCH -> every isEnabled)|PATCHes|after 200: median|p99|from send: median|p99|PATCH 200 in|median vs 1 client (after 200 / from send)',
    [
      row('1 SDK client (baseline, 2 x pooled)', one, '1.0x'),
      row(`${s.clients} SDK clients, one process`, many, `${fmt.x(ar, 1)} / ${fmt.x(fs, 1)}`),
    ],
  );
  const extra = `  each extra client adds ${result.perExtraClientUs.toFixed(0)} us (from send, median)`;
  return { result, text: `${text}\n${extra}` };
}
