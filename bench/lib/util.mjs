/** The runner's side of the benchmarks (the children's side is `child.mjs`). */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { request } from './child.mjs';

export const BENCH_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const REPO_DIR = resolve(BENCH_DIR, '..');
export const RESULTS_FILE = join(BENCH_DIR, 'results', 'latest.json');
/** A numeric setting from the environment; `listKnob` takes `1,16,64`. */
export const knob = (name, fallback) => Number(process.env[name] ?? fallback);
/** Settings `{ passMs: 50 }` from `FLAGWIRE_BENCH_<prefix>PASS_MS` and so on. */
export function knobs(prefix, defaults) {
  const name = (k) => `FLAGWIRE_BENCH_${prefix}${k.replace(/[A-Z]/g, '_$&').toUpperCase()}`;
  return Object.fromEntries(Object.entries(defaults).map(([k, v]) => [k, knob(name(k), v)]));
}
export const listKnob = (name, fallback) => (process.env[name] ?? fallback).split(',').map(Number);
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** `list` rotated by `k` steps: the order of a round. */
export const rotated = (list, k) => list.map((_, i) => list[(i + k) % list.length]);
/** The build under test: `FLAGWIRE_DIST` (inside the repository), else `dist/`. */
export function dist() {
  const dir = resolve(REPO_DIR, process.env.FLAGWIRE_DIST ?? 'dist');
  return { dir, path: (file) => join(dir, file), url: (file) => pathToFileURL(join(dir, file)).href };
}
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
/** The median of each of `keys` over `list` (objects, or their property `at`). */
export const medians = (keys, list, at) =>
  Object.fromEntries(keys.map((k) => [k, median(list.map((x) => (at === undefined ? x : x[at])[k]))]));
/** `total` over `n` as evenly as can be: 16 over 3 → [6, 5, 5]. */
export const evenSplit = (total, n) =>
  Array.from({ length: n }, (_, i) => Math.floor(total / n) + (i < total % n ? 1 : 0));
export function stats(v) {
  return { n: v.length, min: Math.min(...v), median: median(v), p99: percentile(v, 99), max: Math.max(...v) };
}
/** A change's propagation, from `propagationSample`s (`child.mjs`), one per PATCH. */
export function propagationStats(samples) {
  const of = (k) => stats(samples.map((x) => x[k]));
  const last = { lastAfterResponseMs: of('fromResponseMs'), lastAfterSendMs: of('fromSendMs') };
  return { ...last, firstAfterSendMs: of('firstFromSendMs'), patchRoundTripMs: of('toResponseMs') };
}
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
/** A temp dir (under `FLAGWIRE_BENCH_TMPDIR`, else the OS's), deleted at `cleanUp()` or exit. */
export function tempDir(prefix) {
  const parent = process.env.FLAGWIRE_BENCH_TMPDIR ?? os.tmpdir();
  const dir = mkdtempSync(join(parent, `flagwire-bench-${prefix}-`));
  tempDirs.add(dir);
  defer(() => {
    rmSync(dir, { recursive: true, force: true });
    tempDirs.delete(dir);
  });
  return dir;
}
/** `node [execArgv] bench/script [args]` with `ulimit -n 65536` (or the hard limit); IPC or piped stdout. */
function spawnNode(script, args = [], { execArgv = [], env = {}, ipc = true } = {}) {
  const raise = `ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null; exec "$0" "$@"`;
  const argv = [process.execPath, ...execArgv, join(BENCH_DIR, script), ...args];
  const child = spawn('bash', ['-c', raise, ...argv], {
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
/** The flags of a child measuring garbage: `--expose-gc` and a young generation of `mb` MB. */
const semiSpace = (mb) => [`--min-semi-space-size=${mb}`, `--max-semi-space-size=${mb}`];
export const garbageArgv = (mb) => ['--expose-gc', ...semiSpace(mb)];
/**
 * A child serving commands over IPC (`child.mjs`): `call` rejects at once when the child is gone (a
 * crash fails the run instead of hanging it); `close()` kills it after 5 s. Closed at `cleanUp()`.
 */
export function startChild(script, label, { args, env, execArgv } = {}) {
  const { child, exited } = spawnNode(script, args, { env, execArgv });
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
  return { call, close, cpu: () => call('cpu') };
}
/** A server in its own process (`server-child.mjs`): the build's, or with `bare` a baseline. */
export async function startServer(options, label, { track = false, bare } = {}) {
  const proc = startChild('lib/server-child.mjs', `${label} server`, { execArgv: ['--expose-gc'] });
  const started = await proc.call('start', { module: dist().url('server.js'), options, track, bare });
  const streams = (count) => proc.call('streams', { count, timeoutMs: 60_000 }, 65_000);
  return { ...proc, ...started, memory: () => proc.call('memory'), streams };
}
/** Starts counting the CPU time of children; `await (await cpuMeter(procs))()` → ms of each since. */
export async function cpuMeter(procs) {
  const cpu = () => Promise.all(procs.map((p) => p.cpu()));
  const before = await cpu();
  return async () =>
    (await cpu()).map((b, i) => (b.user + b.system - before[i].user - before[i].system) / 1000);
}
const newKey = () => `fw_live_${randomBytes(16).toString('hex')}`;
/** Project `bench` with `environments` (`{ key: seed flags }`), keys `keys[env].full` and `.read`. */
export function benchConfig(environments) {
  const keys = {};
  const envs = Object.entries(environments).map(([key, flags]) => {
    keys[key] = { full: newKey(), read: newKey() };
    const access = (apiKey, i) => ({ key: apiKey, access: i === 0 ? 'full' : 'read-only' });
    return { key, apiKeys: [keys[key].full, keys[key].read].map(access), flags };
  });
  return { keys, config: { projects: [{ key: 'bench', environments: envs }] } };
}
/** A reference server in memory with `environments` (as `benchConfig`): `{ server, keys }`. */
export async function memoryServer(label, environments, track = false) {
  const { keys, config } = benchConfig(environments);
  return { keys, server: await startServer({ memory: true, config }, label, { track }) };
}
const AREAS = 'checkout search billing onboarding profile ads feed cart mail api'.split(' ');
/** `count` flags as an application has: half rollouts, half booleans, some described, ~60 % on. */
export function appFlags(count) {
  return Array.from({ length: count }, (_, i) => {
    const area = AREAS[i % AREAS.length];
    const key = `${area}.experiment-${String(i).padStart(3, '0')}`;
    const flag = i % 2 === 0 ? { key, type: 'rollout', percentage: (i * 7) % 101 } : { key, type: 'boolean' };
    if (i % 3 === 0) flag.description = `Experiment ${i} of the ${area} team`;
    return { ...flag, enabled: i % 5 < 3 };
  });
}
/** `request` (`child.mjs`) with its answer read, and parsed as `json` when it is JSON. */
export async function httpJson(method, url, key, body, options) {
  const r = await request(method, url, key, body, { timeoutMs: 300_000, ...options, read: true });
  try {
    r.json = JSON.parse(r.body);
  } catch {}
  return r;
}
/** autocannon in its own process (`lib/load-child.mjs`): 50 connections, pipelining 1 by default. */
export const runLoad = (config) =>
  runJson('lib/load-child.mjs', [JSON.stringify({ connections: 50, pipelining: 1, ...config })]);
/** Throws unless every answer of a `runLoad` summary had `status`, with no errors or timeouts. */
export function expectStatus(summary, status, label) {
  const codes = Object.keys(summary.statusCodes);
  if (summary.errors === 0 && summary.timeouts === 0 && codes.length === 1 && Number(codes[0]) === status)
    return summary;
  throw new Error(
    `${label}: expected only ${status}, got ${JSON.stringify(summary.statusCodes)}, ${summary.errors} errors, ${summary.timeouts} timeouts`,
  );
}
/** `FLAGWIRE_BENCH_ROUNDS` (3) of `FLAGWIRE_BENCH_DURATION` s (5), after a warm-up of 2 s. */
export const loadSettings = () => ({ ...knobs('', { rounds: 3, duration: 5 }), warmup: 2 });
/**
 * Load cases (`{ id, target, status, config: async () => autocannon config }`) against the first, the
 * baseline, in rotating rounds → medians over rounds of req/s, of the ratio, of CPU per request, of p99.
 */
export async function loadRounds(cases, { rounds, duration, warmup }, log, title) {
  const once = async (c, seconds) => {
    const cpu = await cpuMeter([c.target]);
    const config = { url: c.target.url, ...(await c.config()), duration: seconds };
    const summary = expectStatus(await runLoad(config), c.status ?? 200, `${title} ${c.id}`);
    const [ms] = await cpu();
    return { ...summary, cpuUsPerRequest: (ms * 1000) / summary.requests, p99Ms: summary.latency.p99 };
  };
  for (const c of cases) await once(c, warmup);
  const byRound = [];
  for (let round = 0; round < rounds; round++) {
    const got = {};
    for (const c of rotated(cases, round)) got[c.id] = await once(c, duration);
    byRound.push(got);
    const parts = cases.map(({ id }) => `${id} ${fmt.int(got[id].rps)} (${fmt.us(got[id].cpuUsPerRequest)})`);
    log(`  ${title}, round ${round + 1}/${rounds}, req/s (server CPU/req): ${parts.join(', ')}`);
  }
  const keys = ['rps', 'cpuUsPerRequest', 'p99Ms'];
  const out = {};
  for (const { id } of cases) {
    const mine = byRound.map((got) => Object.fromEntries(keys.map((k) => [k, got[id][k]])));
    const ratio = median(byRound.map((got) => got[id].rps / got[cases[0].id].rps));
    out[id] = { ...medians(keys, mine), ratio, rounds: mine };
  }
  return out;
}
/** A plain-text table: `head` (cells split at `|`) and `rows`. */
export function table(head, rows) {
  const header = head.split('|');
  const cells = [header, ...rows].map((row) => row.map((c) => String(c ?? '')));
  const widths = header.map((_, i) => Math.max(...cells.map((r) => r[i]?.length ?? 0)));
  const line = (row) =>
    `  ${widths.map((w, i) => (i === 0 ? (row[i] ?? '').padEnd(w) : (row[i] ?? '').padStart(w))).join('  ')}`;
  const rule = `  ${widths.map((w) => '-'.repeat(w)).join('  ')}`;
  return [line(cells[0]), rule, ...cells.slice(1).map(line)].join('\n');
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
/** Merges `{ [benchmark]: result }` into `bench/results/latest.json`; the others' last results stay. */
export function writeResults(meta, results) {
  mkdirSync(dirname(RESULTS_FILE), { recursive: true });
  let previous = {};
  try {
    previous = JSON.parse(readFileSync(RESULTS_FILE, 'utf8'));
  } catch {}
  const benchmarks = { ...(previous.benchmarks ?? {}), ...results };
  writeFileSync(RESULTS_FILE, `${JSON.stringify({ meta, benchmarks })}\n`);
}
