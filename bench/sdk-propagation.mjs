/**
 * Benchmark `sdk-propagation`: per PATCH, the time until every SDK client sees the flip. The server
 * writes the frames before it answers, so "after 200" can be negative.
 */
import * as u from './lib/util.mjs';

const { fmt } = u;
const FLAG = 'propagation.toggle';
function summarize(results) {
  /** Spread between the first and the last receiver of a PATCH. */
  const spreadMsMedian = u.median(results.map((r) => r.fromSendMs - r.firstFromSendMs));
  return { samples: results.length, ...u.propagationStats(results), spreadMsMedian, results };
}
export async function run({ log }) {
  const s = { ...u.knobs('PROP_', { clients: 200, patches: 20 }), warmupPatches: 3, gapMs: 50 };
  const other = (i) => (i % 2 ? { type: 'boolean' } : { type: 'rollout', percentage: 25 });
  const others = Array.from({ length: 20 }, (_, i) => ({ key: `propagation.other-${i}`, ...other(i) }));
  const live = [{ key: FLAG, type: 'boolean' }, ...others];
  const { keys, server } = await u.memoryServer('sdk-propagation', { live }, true);
  const sdkUrl = u.dist().url('index.js');
  const clients = u.startChild('lib/propagation-clients.mjs', 'sdk clients', { args: [sdkUrl] });
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
  const { results, warnings } = await patches(s.patches);
  const many = summarize(results);
  await clients.call('closeClients', { keep: 1 });
  await server.streams(1);
  const one = summarize([...one1, ...(await patches(s.patches)).results]);

  const ratio = (k) => many[k].median / one[k].median;
  const ratios = {
    afterResponseMedian: ratio('lastAfterResponseMs'),
    fromSendMedian: ratio('lastAfterSendMs'),
  };
  /** What each additional client adds to the last client's time (from send), in microseconds. */
  const perExtraClientUs =
    ((many.lastAfterSendMs.median - one.lastAfterSendMs.median) * 1000) / (s.clients - 1);
  const result = { settings: s, sdkClients: many, singleClient: one, ratios, perExtraClientUs, warnings };
  const ms = (v) => fmt.ms(v, 2);
  const row = (what, m, vs) => {
    const [r, f] = [m.lastAfterResponseMs, m.lastAfterSendMs];
    return [what, m.samples, ...[r.median, r.p99, f.median, f.p99, m.patchRoundTripMs.median].map(ms), vs];
  };
  const vs = `${fmt.x(ratios.afterResponseMedian, 1)} / ${fmt.x(ratios.fromSendMedian, 1)}`;
  const text = u.table(
    'sdk-propagation (PATCH -> every isEnabled)|PATCHes|after 200: median|p99|from send: median|p99|PATCH 200 in|median vs 1 client (after 200 / from send)',
    [
      row('1 SDK client (baseline, 2 x pooled)', one, '1.0x'),
      row(`${s.clients} SDK clients, one process`, many, vs),
    ],
  );
  const extra = `  each extra client adds ${perExtraClientUs.toFixed(0)} us (from send, median)`;
  return { result, text: `${text}\n${extra}` };
}
