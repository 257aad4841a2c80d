/**
 * Shared helpers of the benchmarks, on the runner's side (the children's side is `child.mjs`):
 * the build under test, child processes driven over IPC (servers, readers, load generators),
 * autocannon rounds against a baseline, the config of a benchmark's server, statistics, tables,
 * clean-up and the results file.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const BENCH_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const REPO_DIR = resolve(BENCH_DIR, '..');
export const RESULTS_FILE = join(BENCH_DIR, 'results', 'latest.json');

/** A numeric setting from the environment; `list` takes `1,16,64`. */
export const knob = (name, fallback) => Number(process.env[name] ?? fallback);
export const listKnob = (name, fallback) => (process.env[name] ?? fallback).split(',').map(Number);
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * The build under test: `FLAGWIRE_DIST` (a directory as `npm run build` lays out `dist/`, e.g.
 * `npx tsup --out-dir .bench-dist`), else `dist/`. `url(file)` of one of its files. A build outside
 * the repository resolves its dependencies through a `node_modules` link to the repository's:
 * never build into such a directory again with tsup (its `clean` follows the link and empties
 * the repository's `node_modules`); build inside the repository (`.bench-dist/`) instead.
 */
export function dist() {
  const dir = resolve(REPO_DIR, process.env.FLAGWIRE_DIST ?? 'dist');
  const rel = relative(REPO_DIR, dir);
  if (rel.startsWith('..') || isAbsolute(rel)) {
    try {
      lstatSync(join(dir, 'node_modules'));
    } catch {
      symlinkSync(join(REPO_DIR, 'node_modules'), join(dir, 'node_modules'), 'dir');
    }
  }
  return { dir, path: (file) => join(dir, file), url: (file) => pathToFileURL(join(dir, file)).href };
}

// ---------------------------------------------------------------- statistics

/** Percentile with linear interpolation between closest ranks (numpy's default); p in 0..100. */
export function percentile(values, p) {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const rank = (p / 100) * (s.length - 1);
  const lo = Math.floor(rank);
  return s[lo] + (s[Math.ceil(rank)] - s[lo]) * (rank - lo);
}
export const median = (values) => percentile(values, 50);
export const sum = (values) => values.reduce((a, b) => a + b, 0);
/** `total` over `n` as evenly as can be: 16 over 3 → [6, 5, 5]. */
export const evenSplit = (total, n) =>
  Array.from({ length: n }, (_, i) => Math.floor(total / n) + (i < total % n ? 1 : 0));
export const stats = (values) => ({
  n: values.length,
  min: Math.min(...values),
  median: median(values),
  p99: percentile(values, 99),
  max: Math.max(...values),
});

/** Statistics of a change's propagation: samples `{ fromResponseMs, fromSendMs, firstFromSendMs, toResponseMs }` per PATCH. */
export function propagationStats(samples) {
  const of = (k) => stats(samples.map((x) => x[k]));
  return {
    lastAfterResponseMs: of('fromResponseMs'),
    lastAfterSendMs: of('fromSendMs'),
    firstAfterSendMs: of('firstFromSendMs'),
    patchRoundTripMs: of('toResponseMs'),
  };
}

// ---------------------------------------------------------------- clean-up

const cleanups = [];
/** Runs `fn` at `cleanUp()` (the runner calls it after every benchmark, whatever happened). */
export const defer = (fn) => cleanups.push(fn);
export async function cleanUp() {
  while (cleanups.length > 0) await cleanups.pop()();
}

const tempDirs = new Set();
process.on('exit', () => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});
/** A temp dir (under `FLAGWIRE_BENCH_TMPDIR`, else the OS's), deleted at `cleanUp()` or when the runner exits. */
export function tempDir(prefix) {
  const dir = mkdtempSync(
    join(process.env.FLAGWIRE_BENCH_TMPDIR ?? os.tmpdir(), `flagwire-bench-${prefix}-`),
  );
  tempDirs.add(dir);
  defer(() => {
    rmSync(dir, { recursive: true, force: true });
    tempDirs.delete(dir);
  });
  return dir;
}

// ---------------------------------------------------------------- child processes

/**
 * Starts `node [execArgv] script [args]` through `bash -c 'ulimit -n 65536 (or the hard limit);
 * exec node ...'`, so the child has a raised fd limit; with an IPC channel (fd 3, kept by `exec`)
 * unless `ipc` is false, then its stdout is piped. `FLAGWIRE_BENCH_CPU_PROF=DIR`: a `--cpu-prof`
 * of every child (open the files in Chrome's DevTools).
 */
export function spawnNode(script, args = [], { execArgv = [], env = {}, ipc = true } = {}) {
  const raise = `ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null; exec "$0" "$@"`;
  const prof = process.env.FLAGWIRE_BENCH_CPU_PROF;
  const profArgs = prof ? ['--cpu-prof', `--cpu-prof-dir=${resolve(prof)}`] : [];
  const child = spawn('bash', ['-c', raise, process.execPath, ...profArgs, ...execArgv, script, ...args], {
    stdio: ['ignore', ipc ? 'inherit' : 'pipe', 'inherit', ...(ipc ? ['ipc'] : [])],
    env: { ...process.env, ...env },
    cwd: REPO_DIR,
  });
  const exited = new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));
  return { child, exited };
}

/** Runs `script` (no IPC) to its end; resolves the JSON it printed. */
export async function runJson(script, args = [], options = {}) {
  const { child, exited } = spawnNode(script, args, { ...options, ipc: false });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    out += chunk;
  });
  const { code, signal } = await exited;
  if (code !== 0) throw new Error(`${script} exited (code ${code}, signal ${signal}): ${out.slice(0, 500)}`);
  return JSON.parse(out);
}

/**
 * A child process of `bench/` (`script` relative to it) serving commands over IPC
 * (`child.mjs`): `call(cmd, payload, timeoutMs)` answers the child's reply, and rejects at once
 * once the child is gone (so a crashed child fails the run instead of hanging it); `close()`
 * asks it to close, then kills it if it has not exited within 5 s. Closed at `cleanUp()` too.
 */
export function startChild(script, label, { args, env, execArgv } = {}) {
  const { child, exited } = spawnNode(join(BENCH_DIR, script), args, { env, execArgv });
  child.on('error', () => {});
  const waiting = new Map();
  let next = 1;
  child.on('message', (msg) => {
    const entry = waiting.get(msg?.id);
    waiting.delete(msg?.id);
    if (msg.error) entry?.reject(new Error(`${label}: ${msg.error}`));
    else entry?.resolve(msg.result);
  });
  const gone = () => child.exitCode !== null || child.signalCode !== null || !child.connected;
  child.once('exit', (code, signal) => {
    for (const entry of waiting.values()) entry.reject(new Error(`${label} exited (${code ?? signal})`));
    waiting.clear();
  });
  const call = (cmd, payload = {}, timeoutMs = 120_000) =>
    new Promise((resolveCall, rejectCall) => {
      if (gone()) return rejectCall(new Error(`${label} exited (${child.exitCode ?? child.signalCode})`));
      const id = next++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        rejectCall(new Error(`${label}: no answer to ${cmd} within ${timeoutMs} ms`));
      }, timeoutMs);
      const settle = (fn) => (v) => {
        clearTimeout(timer);
        fn(v);
      };
      waiting.set(id, { resolve: settle(resolveCall), reject: settle(rejectCall) });
      child.send({ id, cmd, ...payload });
    });
  let closing;
  const close = () => {
    closing ??= (async () => {
      if (!gone()) await call('close', {}, 10_000).catch(() => {});
      const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(kill);
    })();
    return closing;
  };
  defer(close);
  return { pid: child.pid, call, close };
}

/**
 * A server in its own process (`lib/server-child.mjs`): the reference server of the build under
 * test, `startServer({ port: 0, logger: false, ...options })`, or with `bare` a baseline server
 * (see there). `track`: its event streams are tracked, for `streams(count)` (resolves once that
 * many are open), `sample()` and `cuts()`.
 */
export async function startServer(options, label, { track = false, bare } = {}) {
  const proc = startChild('lib/server-child.mjs', `${label} server`, { execArgv: ['--expose-gc'] });
  const started = await proc.call('start', { module: dist().url('server.js'), options, track, bare });
  return {
    ...proc,
    ...started,
    memory: () => proc.call('memory'),
    cpu: () => proc.call('cpu'),
    streams: (count, timeoutMs = 60_000) => proc.call('streams', { count, timeoutMs }, timeoutMs + 5000),
  };
}

/** CPU time (ms) a server child used between two `cpu()` answers. */
export const cpuMs = (a, b) => (b.user + b.system - a.user - a.system) / 1000;

// ---------------------------------------------------------------- the servers' data

const newKey = () => `fw_live_${randomBytes(16).toString('hex')}`;

/**
 * The config of a benchmark's server: project `bench` with `environments` (`{ key: flags }`,
 * seed flags), each with a new full and read-only key, answered as `keys[env].full` / `.read`.
 */
export function benchConfig(environments) {
  const keys = {};
  const envs = Object.entries(environments).map(([key, flags]) => {
    keys[key] = { full: newKey(), read: newKey() };
    const apiKeys = [
      { key: keys[key].full, access: 'full' },
      { key: keys[key].read, access: 'read-only' },
    ];
    return { key, apiKeys, flags };
  });
  return { keys, config: { projects: [{ key: 'bench', environments: envs }] } };
}

const AREAS = 'checkout search billing onboarding profile ads feed cart mail api'.split(' ');
/**
 * `count` seed flags of the kind an application has (sdk-flags, ofrep, compression, sdk-evaluate):
 * half rollouts with assorted percentages, half booleans, a description on every third, about
 * 60 % enabled.
 */
export function appFlags(count) {
  return Array.from({ length: count }, (_, i) => {
    const area = AREAS[i % AREAS.length];
    const key = `${area}.experiment-${String(i).padStart(3, '0')}`;
    const flag = i % 2 === 0 ? { key, type: 'rollout', percentage: (i * 7) % 101 } : { key, type: 'boolean' };
    if (i % 3 === 0) flag.description = `Experiment ${i} of the ${area} team`;
    return { ...flag, enabled: i % 5 < 3 };
  });
}

/** GET through `node:http` (which does not decode): `{ status, headers, body (a Buffer), ms }`. */
export function httpGet(url, headers, agent) {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers }, (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({ status: res.statusCode, headers: res.headers, body, ms: performance.now() - t0 });
        });
      })
      .on('error', reject);
  });
}

// ---------------------------------------------------------------- load (autocannon)

/** autocannon in its own process (`lib/load-child.mjs`): 50 connections, pipelining 1 unless `config` says. */
export const runLoad = (config) =>
  runJson(join(BENCH_DIR, 'lib', 'load-child.mjs'), [
    JSON.stringify({ connections: 50, pipelining: 1, ...config }),
  ]);

/** Throws unless every answer of a `runLoad` summary had `status`, with no errors or timeouts. */
export function expectStatus(summary, status, label) {
  const codes = Object.keys(summary.statusCodes);
  if (summary.errors === 0 && summary.timeouts === 0 && codes.length === 1 && Number(codes[0]) === status)
    return summary;
  throw new Error(
    `${label}: expected only ${status}, got ${JSON.stringify(summary.statusCodes)}, ${summary.errors} errors, ${summary.timeouts} timeouts`,
  );
}

/** Settings of the autocannon benchmarks: FLAGWIRE_BENCH_ROUNDS (3) of FLAGWIRE_BENCH_DURATION s (5). */
export const loadSettings = () => ({
  rounds: knob('FLAGWIRE_BENCH_ROUNDS', 3),
  duration: knob('FLAGWIRE_BENCH_DURATION', 5),
  warmup: 2,
});

/**
 * Load cases in rounds against the first case (the baseline), measured in the same rounds: a
 * warm-up run of each (not counted), then `rounds` rounds of `duration` s, every case once per
 * round, the order rotating a step per round. A case: `{ id, target (a server child), status,
 * config: async () => autocannon config }`. Answers per case id the medians over rounds of
 * req/s, of the per-round ratio to the baseline, of the server's CPU time per request and of p99.
 */
export async function loadRounds(cases, { rounds, duration, warmup }, log, title) {
  const once = async (c, seconds) => {
    const before = await c.target.cpu();
    const config = { url: c.target.url, ...(await c.config()), duration: seconds };
    const summary = expectStatus(await runLoad(config), c.status ?? 200, `${title} ${c.id}`);
    const usedUs = cpuMs(before, await c.target.cpu()) * 1000;
    return { ...summary, cpuUsPerRequest: usedUs / summary.requests };
  };
  for (const c of cases) await once(c, warmup);
  const byRound = [];
  for (let round = 0; round < rounds; round++) {
    const got = {};
    for (let i = 0; i < cases.length; i++) {
      const c = cases[(i + round) % cases.length];
      got[c.id] = await once(c, duration);
    }
    byRound.push(got);
    const parts = cases.map(({ id }) => `${id} ${fmt.int(got[id].rps)} (${fmt.us(got[id].cpuUsPerRequest)})`);
    log(`  ${title}, round ${round + 1}/${rounds}, req/s (server CPU/req): ${parts.join(', ')}`);
  }
  const base = cases[0].id;
  const out = {};
  for (const { id } of cases) {
    const mine = byRound.map((got) => got[id]);
    out[id] = {
      rps: median(mine.map((f) => f.rps)),
      ratio: median(byRound.map((got) => got[id].rps / got[base].rps)),
      cpuUsPerRequest: median(mine.map((f) => f.cpuUsPerRequest)),
      p99Ms: median(mine.map((f) => f.latency.p99)),
      rounds: mine.map((f) => ({ rps: f.rps, cpuUsPerRequest: f.cpuUsPerRequest, p99Ms: f.latency.p99 })),
    };
  }
  return out;
}

// ---------------------------------------------------------------- output

/** A plain-text table: `header` (cells, or one string of cells split at `|`) and `rows` (arrays of cells); the first column is left-aligned. */
export function table(head, rows) {
  const header = typeof head === 'string' ? head.split('|') : head;
  const cells = [header, ...rows].map((row) => row.map((c) => String(c ?? '')));
  const widths = header.map((_, i) => Math.max(...cells.map((r) => r[i]?.length ?? 0)));
  const line = (row) =>
    `  ${widths.map((w, i) => (i === 0 ? (row[i] ?? '').padEnd(w) : (row[i] ?? '').padStart(w))).join('  ')}`;
  return [
    line(cells[0]),
    `  ${widths.map((w) => '-'.repeat(w)).join('  ')}`,
    ...cells.slice(1).map(line),
  ].join('\n');
}

const finite =
  (f) =>
  (n, ...rest) =>
    Number.isFinite(n) ? f(n, ...rest) : '-';
export const fmt = {
  int: finite((n) => Math.round(n).toLocaleString('en-US')),
  ms: finite((n, digits = 1) => `${n.toFixed(digits)} ms`),
  pct: finite((r) => `${(r * 100).toFixed(1)} %`),
  kb: finite((bytes) => `${(bytes / 1024).toFixed(1)} KB`),
  mb: finite((bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`),
  x: finite((r, digits = 2) => `${r.toFixed(digits)}x`),
  us: finite((n) => `${n.toFixed(0)} us`),
  ns: finite((n) =>
    n < 1000 ? `${n.toFixed(1)} ns` : n < 1e6 ? `${(n / 1000).toFixed(2)} us` : `${(n / 1e6).toFixed(2)} ms`,
  ),
  /** Bytes per call; within +-0.005 of 0 (the control's jitter) shows as 0. */
  bytes: finite((b) =>
    Math.abs(b) < 0.005 ? '0.00 B' : Math.abs(b) < 100 ? `${b.toFixed(2)} B` : `${fmt.int(b)} B`,
  ),
};
export const verdict = (ok) => (ok ? 'PASS' : 'MISS');

/** Merges `{ [benchmark]: result }` into `bench/results/latest.json`, one line (read it with `jq`); the other benchmarks' last results stay. */
export function writeResults(meta, results) {
  mkdirSync(dirname(RESULTS_FILE), { recursive: true });
  let previous = {};
  try {
    previous = JSON.parse(readFileSync(RESULTS_FILE, 'utf8'));
  } catch {}
  const benchmarks = { ...(previous.benchmarks ?? {}), ...results };
  writeFileSync(RESULTS_FILE, `${JSON.stringify({ meta, benchmarks })}\n`);
}
