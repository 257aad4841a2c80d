/**
 * The measuring process of the `sdk-evaluate` benchmark (spawned by `bench/sdk-evaluate.mjs`).
 *
 *   node [--expose-gc ...] bench/sdk-lib/evaluate-child.mjs MODE CONFIG_JSON
 *
 * MODE `timing`: ns per call of `client.isEnabled` and of its floors, in alternating rounds.
 * MODE `garbage`: bytes allocated per call (run it with `--expose-gc` and a young generation
 *   large enough that no scavenge happens during one pass, see `sdk-evaluate.mjs`).
 *
 * Prints one JSON object on stdout; progress goes to stderr.
 *
 * The client is built with `bootstrap` + `offline: true` (no network). Users are objects
 * `{ key }` made up front (two sets of 1,000,000 distinct keys: `user-<n>` and UUID-like), so the
 * loops themselves allocate nothing. Every loop counts its `true` answers; the SDK and the floor
 * of the same case must count the same (this checks the bench's murmur3 against the SDK's).
 */
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { appFlags, median } from '../lib/util.mjs';

const [mode, configJson] = process.argv.slice(2);
const config = JSON.parse(configJson);
const USERS = config.users;
const { createClient } = await import(config.sdkUrl);

const err = (line) => process.stderr.write(`${line}\n`);

// ---------------------------------------------------------------- data

/** 100 flags of the other benchmarks' kind (`appFlags`); the last two are measured. */
const BOOLEAN_FLAG = 'checkout.new-payment-page';
const ROLLOUT_FLAG = 'checkout.rollout-half';
function makeFlags() {
  return [
    ...appFlags(98),
    { key: BOOLEAN_FLAG, type: 'boolean', enabled: true },
    { key: ROLLOUT_FLAG, type: 'rollout', enabled: true, percentage: 50 },
  ];
}

/** A flat (sequential) one-byte copy of an ASCII string, so no key is a cons string. */
const flat = (s) => Buffer.from(s, 'latin1').toString('latin1');

function makeUser(key) {
  return { key };
}

/** `user-0` ... `user-999999`. */
function sequentialUsers(n) {
  const users = new Array(n);
  for (let i = 0; i < n; i++) users[i] = makeUser(flat(`user-${i}`));
  return users;
}

/** Deterministic UUID-v4-like keys (xorshift32), e.g. `3f2b8c1e-9a4d-4c7f-8e21-5b0d6a9f4c33`. */
function uuidUsers(n) {
  let x = 0x9e3779b9;
  const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
  const bytes = new Uint8Array(16);
  const users = new Array(n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < 16; j += 4) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      bytes[j] = x;
      bytes[j + 1] = x >>> 8;
      bytes[j + 2] = x >>> 16;
      bytes[j + 3] = x >>> 24;
    }
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let s = '';
    for (let j = 0; j < 16; j++) {
      if (j === 4 || j === 6 || j === 8 || j === 10) s += '-';
      s += HEX[bytes[j]];
    }
    users[i] = makeUser(flat(s));
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
    for (let j = 0; j < fl; j++) {
      k |= flagKey.charCodeAt(j) << shift;
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
    k |= 0x3a << shift; // ':'
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
    for (let j = 0; j < ul; j++) {
      k |= userKey.charCodeAt(j) << shift;
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

err(`  sdk-evaluate ${mode}: generating 2 x ${USERS.toLocaleString('en-US')} users...`);
const flags = makeFlags();
const client = createClient({
  baseUrl: 'http://127.0.0.1:9/api/v1',
  apiKey: 'fw_live_BenchBenchBenchBenchBenchBench',
  bootstrap: flags,
  offline: true,
  logger: false,
});
await client.ready();
/** The floors' map: the same flags the client holds (`allFlags()` gives copies of its entries). */
const floorMap = new Map(Object.entries(client.allFlags()));
const userSets = { 'user-<n>': sequentialUsers(USERS), uuid: uuidUsers(USERS) };

/** The four cases: flag kind x key set; each has the SDK loop and its floor. */
const cases = [];
for (const [flag, key, floorName, floorLoop] of [
  ['boolean', BOOLEAN_FLAG, 'Map.get', mapGetLoop],
  ['rollout 50 %', ROLLOUT_FLAG, 'Map.get + inlined murmur3', murmurFloorLoop],
])
  for (const [keys, users] of Object.entries(userSets))
    cases.push({
      id: `${flag === 'boolean' ? 'boolean' : 'rollout50'}/${keys}`,
      flag,
      keys,
      floorName,
      sdk: () => sdkLoop(client, key, users),
      floor: () => floorLoop(floorMap, key, users),
      users,
    });

/**
 * One pass over all users: `{ ns, wallNs, hits }`. `ns` is the process's CPU time (user +
 * system): on a shared machine it leaves out the time the process waited for a core. After the
 * warm-up nothing compiles and nothing is collected, so the other threads add nothing.
 */
function pass(fn) {
  const u0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const hits = fn();
  const t1 = process.hrtime.bigint();
  const u = process.cpuUsage(u0);
  return { ns: (u.user + u.system) * 1000, wallNs: Number(t1 - t0), hits };
}

function warmUp(passes) {
  const hits = {};
  for (let p = 0; p < passes; p++) {
    for (const c of cases) {
      const s = pass(c.sdk).hits;
      const f = pass(c.floor).hits;
      if (s !== f) throw new Error(`${c.id}: the SDK says true ${s} times, the floor ${f} times`);
      hits[c.id] = s;
    }
  }
  return hits;
}

// ---------------------------------------------------------------- modes

async function timing() {
  const { rounds, passes } = config;
  const t0 = performance.now();
  const hits = warmUp(config.warmupPasses);
  err(
    `  sdk-evaluate timing: warmed up in ${((performance.now() - t0) / 1000).toFixed(1)} s; ${rounds} rounds x ${passes} passes`,
  );
  const perCase = Object.fromEntries(
    cases.map((c) => [c.id, { sdk: [], floor: [], sdkWall: [], floorWall: [] }]),
  );
  for (let r = 0; r < rounds; r++) {
    const line = [];
    for (const c of cases) {
      const runs = { sdk: [], floor: [] };
      // Alternate which goes first, so drift within a round favours neither.
      for (let p = 0; p < passes; p++)
        for (const which of (r + p) % 2 === 0 ? ['sdk', 'floor'] : ['floor', 'sdk'])
          runs[which].push(pass(c[which]));
      const pc = perCase[c.id];
      for (const which of ['sdk', 'floor']) {
        pc[which].push(median(runs[which].map((x) => x.ns)) / c.users.length);
        pc[`${which}Wall`].push(median(runs[which].map((x) => x.wallNs)) / c.users.length);
      }
      line.push(`${c.id} ${pc.sdk.at(-1).toFixed(1)}/${pc.floor.at(-1).toFixed(1)} ns`);
    }
    err(`  round ${r + 1}/${rounds} (CPU ns/call, sdk/floor): ${line.join(', ')}`);
  }
  return {
    cases: cases.map((c) => {
      const pc = perCase[c.id];
      const ratios = pc.sdk.map((x, i) => x / pc.floor[i]);
      return {
        id: c.id,
        flag: c.flag,
        keys: c.keys,
        floor: c.floorName,
        trueAnswers: hits[c.id],
        calls: c.users.length,
        sdkNsPerCall: pc.sdk,
        floorNsPerCall: pc.floor,
        ratios,
        sdkNsMedian: median(pc.sdk),
        floorNsMedian: median(pc.floor),
        ratioMedian: median(ratios),
        wallRatioMedian: median(pc.sdkWall.map((x, i) => x / pc.floorWall[i])),
      };
    }),
  };
}

async function garbage() {
  if (typeof globalThis.gc !== 'function') throw new Error('garbage mode needs --expose-gc');
  const gcEvents = [];
  const observer = new PerformanceObserver((list) => gcEvents.push(...list.getEntries()));
  observer.observe({ entryTypes: ['gc'] });
  const settle = () => new Promise((r) => setTimeout(r, 20));
  warmUp(config.warmupPasses);
  const samples = config.garbageSamples;

  /** Heap growth over `fn` with a full GC before; and the GC events that fell inside. */
  const measure = async (fn) => {
    globalThis.gc();
    globalThis.gc();
    await settle();
    const t0 = performance.now();
    const h0 = process.memoryUsage().heapUsed;
    fn();
    const h1 = process.memoryUsage().heapUsed;
    const t1 = performance.now();
    await settle();
    const inside = gcEvents.filter((e) => e.startTime >= t0 && e.startTime <= t1).length;
    return { bytes: h1 - h0, gcs: inside };
  };

  const controls = [];
  for (let s = 0; s < samples; s++) controls.push((await measure(() => 0)).bytes);
  const control = median(controls);
  const out = [];
  for (const c of cases) {
    const row = { id: c.id, flag: c.flag, keys: c.keys, floor: c.floorName, calls: c.users.length };
    for (const which of ['sdk', 'floor']) {
      const bytes = [];
      let gcs = 0;
      for (let s = 0; s < samples; s++) {
        const m = await measure(c[which]);
        bytes.push(m.bytes - control);
        gcs += m.gcs;
      }
      // The least of the samples: what the code under test allocates is the same every pass;
      // a one-off (code or feedback of a late (re)compilation) only ever adds.
      row[`${which}BytesPerCall`] = Math.min(...bytes) / c.users.length;
      row[`${which}BytesSamples`] = bytes;
      row[`${which}GcEvents`] = gcs;
    }
    err(
      `  ${c.id}: sdk ${row.sdkBytesPerCall.toFixed(3)} B/call (${row.sdkGcEvents} GCs), ` +
        `floor ${row.floorBytesPerCall.toFixed(3)} B/call (${row.floorGcEvents} GCs)`,
    );
    out.push(row);
  }
  observer.disconnect();
  return { controlBytes: control, samples, cases: out };
}

const modes = { timing, garbage };
if (!modes[mode]) throw new Error(`unknown mode ${mode}`);
const result = await modes[mode]();
process.stdout.write(JSON.stringify({ mode, node: process.version, execArgv: process.execArgv, ...result }));
