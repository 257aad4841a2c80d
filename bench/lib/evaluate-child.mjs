/**
 * The measuring process of `sdk-evaluate` (bench/README.md):
 * `node [--expose-gc ...] bench/lib/evaluate-child.mjs timing|garbage CONFIG_JSON` prints one JSON
 * object (progress on stderr). `timing`: CPU ns per call of `client.isEnabled` and of its floor, in
 * alternating passes; `garbage`: bytes allocated per call. The client has `bootstrap` + `offline`
 * (so usage is off); a second client, never started, counts its evaluations for usage reports
 * (issue 24: the `usage-on` cases, measured against the first client as their floor);
 * users `{ key }` are made up front, so the loops allocate nothing; the SDK and the floor of a case
 * must answer `true` as often (which checks the floor's murmur3 against the SDK's).
 */
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { err, flat, garbageMeter, pairedRounds, pass } from './measure.mjs';
import { appFlags } from './util.mjs';

const [mode, configJson] = process.argv.slice(2);
const config = JSON.parse(configJson);
const { createClient } = await import(config.sdkUrl);

/** 100 flags of the other benchmarks' kind (`appFlags`); the last two are measured. */
const BOOLEAN_FLAG = 'checkout.new-payment-page';
const ROLLOUT_FLAG = 'checkout.rollout-half';

/** `user-0` ... `user-999999`. */
function sequentialUsers(n) {
  const users = new Array(n);
  for (let i = 0; i < n; i++) users[i] = { key: flat(`user-${i}`) };
  return users;
}

/** Deterministic UUID-v4-like keys, e.g. `3f2b8c1e-9a4d-4c7f-8e21-5b0d6a9f4c33` (the hex of a hash of `i`). */
function uuidUsers(n) {
  const users = new Array(n);
  for (let i = 0; i < n; i++) {
    const h = createHash('sha1').update(String(i)).digest('hex');
    const variant = '89ab'[Number.parseInt(h[16], 16) & 3];
    const uuid = `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
    users[i] = { key: flat(uuid) };
  }
  return users;
}

// ---------------------------------------------------------------- the loops (one function each, so each stays monomorphic where it can)

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

// ---------------------------------------------------------------- set-up

err(`  sdk-evaluate ${mode}: generating 2 x ${config.users.toLocaleString('en-US')} users...`);
const bootstrap = [
  ...appFlags(98),
  { key: BOOLEAN_FLAG, type: 'boolean', enabled: true },
  { key: ROLLOUT_FLAG, type: 'rollout', enabled: true, percentage: 50 },
];
const client = createClient({
  baseUrl: 'http://127.0.0.1:9/api/v1',
  apiKey: 'fw_live_BenchBenchBenchBenchBenchBench',
  bootstrap,
  offline: true,
  logger: false,
});
await client.ready();
// Usage on (the default), never started: it counts every evaluation and sends nothing.
const counting = createClient({
  baseUrl: 'http://127.0.0.1:9/api/v1',
  apiKey: 'fw_live_BenchBenchBenchBenchBenchBench',
  bootstrap,
  usage: { flushIntervalMs: 3_600_000 },
  logger: false,
});
/** The floors' map: the same flags the client holds (`allFlags()` gives copies of its entries). */
const floorMap = new Map(Object.entries(client.allFlags()));
const userSets = { 'user-<n>': sequentialUsers(config.users), uuid: uuidUsers(config.users) };

/** The four cases, flag kind x key set: the SDK loop and its floor, each a pass over all users. */
const cases = [];
for (const [flag, key, floor, floorLoop] of [
  ['boolean', BOOLEAN_FLAG, 'Map.get', mapGetLoop],
  ['rollout 50 %', ROLLOUT_FLAG, 'Map.get + inlined murmur3', murmurFloorLoop],
])
  for (const [keys, users] of Object.entries(userSets))
    cases.push({
      info: {
        id: `${flag === 'boolean' ? 'boolean' : 'rollout50'}/${keys}`,
        flag,
        keys,
        floor,
        calls: users.length,
      },
      sdk: { run: () => sdkLoop(client, key, users), n: users.length },
      floor: { run: () => floorLoop(floorMap, key, users), n: users.length },
    });
// Usage counting on against off, on the sequential keys: the floor is the SDK without it.
for (const [flag, key] of [
  ['boolean', BOOLEAN_FLAG],
  ['rollout 50 %', ROLLOUT_FLAG],
]) {
  const users = userSets['user-<n>'];
  cases.push({
    info: {
      id: `${flag === 'boolean' ? 'boolean' : 'rollout50'}/usage-on`,
      flag,
      keys: 'user-<n>',
      floor: 'the SDK, usage off',
      calls: users.length,
    },
    sdk: { run: () => sdkUsageLoop(counting, key, users), n: users.length },
    floor: { run: () => sdkLoop(client, key, users), n: users.length },
  });
}

function warmUp() {
  const hits = {};
  for (let p = 0; p < config.warmupPasses; p++)
    for (const c of cases) {
      const [s, f] = [c.sdk, c.floor].map((x) => pass(x.run, x.n).hits);
      if (s !== f) throw new Error(`${c.info.id}: the SDK says true ${s} times, the floor ${f} times`);
      hits[c.info.id] = s;
    }
  return hits;
}

async function timing() {
  const { rounds, passes } = config;
  const t0 = performance.now();
  const hits = warmUp();
  err(`  sdk-evaluate timing: warmed up in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const per = new Map(cases.map((c) => [c, pairedRounds()]));
  for (let r = 0; r < rounds; r++) {
    const line = cases.map((c) => {
      const { ns, baseNs } = per.get(c).round(c.sdk, c.floor, passes, r);
      return `${c.info.id} ${ns.toFixed(1)}/${baseNs.toFixed(1)} ns`;
    });
    err(`  round ${r + 1}/${rounds} (CPU ns/call, sdk/floor): ${line.join(', ')}`);
  }
  return { cases: cases.map((c) => ({ ...c.info, trueAnswers: hits[c.info.id], ...per.get(c).summary() })) };
}

async function garbage() {
  warmUp();
  const meter = await garbageMeter(config.garbageSamples);
  const out = [];
  for (const c of cases) {
    const sdk = await meter.sample(c.sdk.run, c.sdk.n);
    const floor = await meter.sample(c.floor.run, c.floor.n);
    const line = (x) => `${x.perUnit.toFixed(3)} B/call (${x.gcs} GCs)`;
    err(`  ${c.info.id}: sdk ${line(sdk)}, floor ${line(floor)}`);
    out.push({ ...c.info, sdk, floor });
  }
  meter.stop();
  return { controlBytes: meter.control, cases: out };
}

const result = mode === 'timing' ? await timing() : mode === 'garbage' ? await garbage() : undefined;
if (!result) throw new Error(`unknown mode ${mode}`);
process.stdout.write(JSON.stringify({ mode, node: process.version, execArgv: process.execArgv, ...result }));
