/** The measuring process of `sdk-evaluate` (`timing` or `garbage`); users made up front. */
import { createHash } from 'node:crypto';
import { err, flat, garbageMeter, pass, printResult, timeRounds } from './measure.mjs';
import { appFlags } from './util.mjs';

const [mode, configJson] = process.argv.slice(2);
const config = JSON.parse(configJson);
const { createClient } = await import(config.sdkUrl);
/** Added to 98 flags of the other benchmarks' kind (`appFlags`), and measured. */
const BOOLEAN_FLAG = 'checkout.new-payment-page';
const ROLLOUT_FLAG = 'checkout.rollout-half';
/** `user-0` ... `user-999999`. */
const sequentialUsers = (n) => Array.from({ length: n }, (_, i) => ({ key: flat(`user-${i}`) }));
/** Deterministic UUID-v4-like keys, e.g. `3f2b8c1e-9a4d-4c7f-8e21-5b0d6a9f4c33` (from a hash of `i`). */
function uuidUsers(n) {
  return Array.from({ length: n }, (_, i) => {
    const h = createHash('sha1').update(String(i)).digest('hex');
    const variant = '89ab'[Number.parseInt(h[16], 16) & 3];
    const uuid = `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
    return { key: flat(uuid) };
  });
}
// The loops: one function each, so each stays monomorphic where it can.
/** The SDK: what an application does. */
function sdkLoop(client, flagKey, users) {
  let hits = 0;
  for (let i = 0; i < users.length; i++) if (client.isEnabled(flagKey, users[i])) hits++;
  return hits;
}
/** The SDK with usage counting on: the same loop, its own function (its call site sees one client). */
function sdkUsageLoop(client, flagKey, users) {
  let hits = 0;
  for (let i = 0; i < users.length; i++) if (client.isEnabled(flagKey, users[i])) hits++;
  return hits;
}
/** Floor (a): a bare `Map.get` on the same flags, plus the `enabled` read that gives the answer. */
function mapGetLoop(map, flagKey, users) {
  let hits = 0;
  for (let i = 0; i < users.length; i++) {
    const flag = map.get(flagKey);
    if (flag?.enabled && users[i] !== undefined) hits++;
  }
  return hits;
}
/**
 * Floor (b): the `Map` lookup plus a straightforward murmur3_x86_32 (seed 0) over the ASCII
 * bytes of `flagKey + ':' + userKey`, read with `charCodeAt`, inlined, allocating nothing;
 * then `hash % 100 + 1 <= percentage`. ASCII only: it is a floor, not an implementation.
 */
function murmurFloorLoop(map, flagKey, users) {
  let hits = 0;
  const fl = flagKey.length;
  for (let i = 0; i < users.length; i++) {
    const flag = map.get(flagKey);
    if (flag === undefined || !flag.enabled) continue;
    const userKey = users[i].key;
    const ul = userKey.length;
    let h = 0;
    let k = 0;
    let shift = 0;
    // The bytes of `flagKey + ':' + userKey`, one loop, no string built.
    for (let j = 0, n = fl + 1 + ul; j < n; j++) {
      k |= (j < fl ? flagKey.charCodeAt(j) : j === fl ? 0x3a : userKey.charCodeAt(j - fl - 1)) << shift;
      shift += 8;
      if (shift === 32) {
        k = Math.imul(k, 0xcc9e2d51);
        k = (k << 15) | (k >>> 17);
        h ^= Math.imul(k, 0x1b873593);
        h = (h << 13) | (h >>> 19);
        h = (Math.imul(h, 5) + 0xe6546b64) | 0;
        k = 0;
        shift = 0;
      }
    }
    if (shift !== 0) {
      k = Math.imul(k, 0xcc9e2d51);
      k = (k << 15) | (k >>> 17);
      h ^= Math.imul(k, 0x1b873593);
    }
    h ^= fl + 1 + ul;
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    if (((h >>> 0) % 100) + 1 <= flag.percentage) hits++;
  }
  return hits;
}
err(`  sdk-evaluate ${mode}: generating 2 x ${config.users.toLocaleString('en-US')} users...`);
const bootstrap = [
  ...appFlags(98),
  { key: BOOLEAN_FLAG, type: 'boolean', enabled: true },
  { key: ROLLOUT_FLAG, type: 'rollout', enabled: true, percentage: 50 },
];
const options = { baseUrl: 'http://127.0.0.1:9/api/v1', apiKey: `fw_live_${'Bench'.repeat(6)}`, bootstrap };
const client = createClient({ ...options, offline: true, logger: false });
await client.ready();
// Usage on (the default), never started: it counts every evaluation and sends nothing.
const counting = createClient({ ...options, usage: { flushIntervalMs: 3_600_000 }, logger: false });
/** The floors' map: the same flags the client holds (`allFlags()` gives copies of its entries). */
const floorMap = new Map(Object.entries(client.allFlags()));
const userSets = { 'user-<n>': sequentialUsers(config.users), uuid: uuidUsers(config.users) };
/** The cases: the SDK loop against its floor, each a pass over all users. */
const N = config.users;
const pair = (info, run, floor) => ({ id: info.id, info, run, n: N, floor: { run: floor, n: N } });
const FLAGS = [
  ['boolean', 'boolean', BOOLEAN_FLAG, 'Map.get', mapGetLoop],
  ['rollout50', 'rollout 50 %', ROLLOUT_FLAG, 'Map.get + inlined murmur3', murmurFloorLoop],
];
const cases = [];
for (const [kind, flag, key, floor, floorLoop] of FLAGS)
  for (const [keys, users] of Object.entries(userSets)) {
    const info = { id: `${kind}/${keys}`, flag, keys, floor, calls: N };
    const [sdk, base] = [() => sdkLoop(client, key, users), () => floorLoop(floorMap, key, users)];
    cases.push(pair(info, sdk, base));
  }
// Usage counting on against off, on the sequential keys: the floor is the SDK without it.
const users = userSets['user-<n>'];
for (const [kind, flag, key] of FLAGS) {
  const info = { id: `${kind}/usage-on`, flag, keys: 'user-<n>', floor: 'the SDK, usage off', calls: N };
  const [sdk, base] = [() => sdkUsageLoop(counting, key, users), () => sdkLoop(client, key, users)];
  cases.push(pair(info, sdk, base));
}
function warmUp() {
  const hits = {};
  for (let p = 0; p < config.warmupPasses; p++)
    for (const c of cases) {
      const [s, f] = [c, c.floor].map((x) => pass(x.run, x.n).hits);
      if (s !== f) throw new Error(`${c.id}: the SDK says true ${s} times, the floor ${f} times`);
      hits[c.id] = s;
    }
  return hits;
}
function timing() {
  const hits = warmUp();
  const summary = timeRounds(cases, (c) => c.floor, { ...config, rotate: false });
  return { cases: cases.map((c) => ({ ...c.info, trueAnswers: hits[c.id], ...summary(c) })) };
}
async function garbage() {
  warmUp();
  const meter = await garbageMeter(config.garbageSamples);
  const out = [];
  for (const c of cases) {
    const sdk = await meter.sample(c.run, c.n);
    const floor = await meter.sample(c.floor.run, c.floor.n);
    out.push({ ...c.info, sdk, floor });
  }
  meter.stop();
  return { controlBytes: meter.control, cases: out };
}
printResult({ mode, ...(mode === 'timing' ? timing() : await garbage()) });
