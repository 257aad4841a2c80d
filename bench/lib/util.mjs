/**
 * Shared helpers of the benchmarks: which server build to load, child processes
 * (server, bare server, load generator) with an IPC channel and a raised fd limit,
 * statistics, tables and the results file.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const BENCH_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const REPO_DIR = resolve(BENCH_DIR, '..');
export const RESULTS_FILE = join(BENCH_DIR, 'results', 'latest.json');

/** The server build under test: `FLAGWIRE_SERVER_MODULE` (a path or file URL), else `dist/server.js`. */
export function serverModule() {
  const given = process.env.FLAGWIRE_SERVER_MODULE;
  if (!given)
    return {
      path: join(REPO_DIR, 'dist', 'server.js'),
      url: pathToFileURL(join(REPO_DIR, 'dist', 'server.js')).href,
    };
  if (given.startsWith('file:')) return { path: fileURLToPath(given), url: given };
  const path = isAbsolute(given) ? given : resolve(process.cwd(), given);
  return { path, url: pathToFileURL(path).href };
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------- statistics

export function sorted(values) {
  return [...values].sort((a, b) => a - b);
}

/** Percentile with linear interpolation between closest ranks (numpy's default); p in 0..100. */
export function percentile(values, p) {
  if (values.length === 0) return Number.NaN;
  const s = sorted(values);
  const rank = (p / 100) * (s.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return s[lo] + (s[hi] - s[lo]) * (rank - lo);
}

export const median = (values) => percentile(values, 50);
export const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;

// ---------------------------------------------------------------- child processes

/** Highest fd limit we try to give children (the hard limit wins if it is lower). */
const FD_LIMIT = 65536;

/**
 * Starts `node [execArgv] script [args]` through `bash -c 'ulimit -n ...; exec node ...'`, so
 * the child gets a raised fd limit, with an IPC channel (fd 3, inherited through `exec`).
 */
export function spawnNode(script, args = [], { execArgv = [], env = {}, ipc = true, stdout = 'pipe' } = {}) {
  const raise = `ulimit -n ${FD_LIMIT} 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null; exec "$0" "$@"`;
  const child = spawn('bash', ['-c', raise, process.execPath, ...execArgv, script, ...args], {
    stdio: ['ignore', stdout, 'inherit', ...(ipc ? ['ipc'] : [])],
    env: { ...process.env, ...env },
    cwd: REPO_DIR,
  });
  const exited = new Promise((resolveExit) =>
    child.once('exit', (code, signal) => resolveExit({ code, signal })),
  );
  return { child, exited };
}

/** Request/response over a child's IPC channel: `call(cmd, payload)` resolves the child's reply. */
export function rpc(child, label) {
  let next = 1;
  const waiting = new Map();
  child.on('message', (msg) => {
    const entry = waiting.get(msg?.id);
    if (!entry) return;
    waiting.delete(msg.id);
    if (msg.error) entry.reject(new Error(`${label}: ${msg.error}`));
    else entry.resolve(msg.result);
  });
  child.once('exit', (code, signal) => {
    for (const entry of waiting.values())
      entry.reject(new Error(`${label} exited (code ${code}, signal ${signal}) before answering`));
    waiting.clear();
  });
  return (cmd, payload = {}, timeoutMs = 120_000) =>
    new Promise((resolveCall, rejectCall) => {
      const id = next++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        rejectCall(new Error(`${label}: no answer to ${cmd} within ${timeoutMs} ms`));
      }, timeoutMs);
      waiting.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolveCall(v);
        },
        reject: (e) => {
          clearTimeout(timer);
          rejectCall(e);
        },
      });
      child.send({ id, cmd, ...payload });
    });
}

/** Server-child execArgv (the bare server gets the same): `--expose-gc`, plus `--cpu-prof` when `FLAGWIRE_BENCH_CPU_PROF` names a directory. */
function serverExecArgv(name) {
  const argv = ['--expose-gc'];
  const profDir = process.env.FLAGWIRE_BENCH_CPU_PROF;
  if (profDir)
    argv.push(
      '--cpu-prof',
      `--cpu-prof-dir=${resolve(profDir)}`,
      `--cpu-prof-name=${name}-${Date.now()}.cpuprofile`,
    );
  return argv;
}

/**
 * A server of the benchmarks in its own process, driven over IPC: `start` with `payload`,
 * then `memory()` (`process.memoryUsage()` after `global.gc()`, plus `streamCount`),
 * `cpu()` (`process.cpuUsage()`) and `close()`.
 */
async function startChild(script, name, payload, env = {}) {
  const { child, exited } = spawnNode(join(BENCH_DIR, 'lib', script), [], {
    execArgv: serverExecArgv(name),
    env,
  });
  const call = rpc(child, `${name} child`);
  const started = await call('start', payload);
  return {
    ...started,
    pid: child.pid,
    call,
    memory: () => call('memory'),
    cpu: () => call('cpu'),
    async close() {
      if (child.exitCode !== null) return;
      await call('close').catch(() => {});
      await exited;
    },
  };
}

/**
 * A flagwire reference server in its own process (`bench/lib/server-child.mjs`, or another
 * child `script` of `bench/lib/` speaking the same commands), started with
 * `startServer({ port: 0, logger: false, ...options })`. Adds `fullKey` and `readKey`, and
 * `call(cmd, payload)` for the script's other commands.
 */
export async function startServerChild(options, name = 'server', script = 'server-child.mjs') {
  const server = await startChild(
    script,
    name,
    { options },
    {
      FLAGWIRE_SERVER_MODULE_URL: serverModule().url,
    },
  );
  server.fullKey = server.keys.find((k) => k.access === 'full')?.key;
  server.readKey = server.keys.find((k) => k.access === 'read-only')?.key;
  return server;
}

/** A bare `node:http` server answering fixed responses (`bench/lib/bare-child.mjs`). */
export function startBareChild(responses) {
  return startChild('bare-child.mjs', 'bare', { responses });
}

/** A bare `node:http` SSE fan-out server (`bench/lib/bare-sse-child.mjs`). */
export function startBareSseChild({ firstFrame, flag }) {
  return startChild('bare-sse-child.mjs', 'bare-sse', { firstFrame, flag });
}

/** Runs autocannon in its own process (`bench/lib/load-child.mjs`) and resolves its summary. */
export async function runLoad(config) {
  const { child, exited } = spawnNode(join(BENCH_DIR, 'lib', 'load-child.mjs'), [JSON.stringify(config)], {
    ipc: false,
  });
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    out += chunk;
  });
  const { code, signal } = await exited;
  if (code !== 0)
    throw new Error(`load generator exited with code ${code} signal ${signal}: ${out.slice(0, 500)}`);
  return JSON.parse(out);
}

/**
 * `runLoad({ url: target.url, ...config })` against a server child (`{ url, cpu() }`), adding
 * the child's CPU time per request (`cpuUsPerRequest`, µs) and its busy share (`cpuBusy`, 1 = one core).
 */
export async function runLoadWithCpu(target, config) {
  const start = await target.cpu();
  const summary = await runLoad({ url: target.url, ...config });
  const end = await target.cpu();
  const usedUs = end.user + end.system - start.user - start.system;
  return { ...summary, cpuUsPerRequest: usedUs / summary.requests, cpuBusy: usedUs / 1e6 / summary.duration };
}

/** Throws unless every answer of a `runLoad` summary had `status` (and there were some), with no errors or timeouts. */
export function expectOnlyStatus(summary, status, label) {
  const codes = summary.statusCodes;
  const clean = summary.errors === 0 && summary.timeouts === 0 && (codes[status] ?? 0) > 0;
  if (clean && Object.keys(codes).every((code) => Number(code) === status)) return;
  throw new Error(
    `${label}: expected only ${status}, got ${JSON.stringify(codes)}, ${summary.errors} errors, ${summary.timeouts} timeouts`,
  );
}

/**
 * Settings of an autocannon benchmark: `FLAGWIRE_BENCH_ROUNDS` rounds (3) of runs of
 * `FLAGWIRE_BENCH_DURATION` seconds (5), after a 2 s warm-up, 50 connections, pipelining 1.
 */
export function loadSettings() {
  const knob = (name, fallback) => Number(process.env[name] ?? fallback);
  const rounds = knob('FLAGWIRE_BENCH_ROUNDS', 3);
  const duration = knob('FLAGWIRE_BENCH_DURATION', 5);
  return { rounds, duration, warmup: 2, connections: 50, pipelining: 1 };
}

// ---------------------------------------------------------------- HTTP helper for set-up

/** One management API call; throws on an unexpected status. */
export async function api(base, method, path, key, body, expect = [200, 201, 204]) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!expect.includes(res.status)) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : undefined };
}

// ---------------------------------------------------------------- output

/** A plain-text table: `columns` is `[{ key, title, align?: 'left' | 'right' }]`. */
export function table(rows, columns) {
  const cells = rows.map((row) => columns.map((c) => String(row[c.key] ?? '')));
  const widths = columns.map((c, i) => Math.max(c.title.length, ...cells.map((r) => r[i].length)));
  const pad = (text, i) =>
    (columns[i].align ?? 'right') === 'left' ? text.padEnd(widths[i]) : text.padStart(widths[i]);
  const line = (parts) => `  ${parts.map(pad).join('  ')}`;
  return [
    line(columns.map((c) => c.title)),
    `  ${widths.map((w) => '-'.repeat(w)).join('  ')}`,
    ...cells.map(line),
  ].join('\n');
}

export const fmt = {
  int: (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-'),
  ms: (n, digits = 1) => (Number.isFinite(n) ? `${n.toFixed(digits)} ms` : '-'),
  pct: (r) => (Number.isFinite(r) ? `${(r * 100).toFixed(1)} %` : '-'),
  kb: (bytes) => (Number.isFinite(bytes) ? `${(bytes / 1024).toFixed(1)} KB` : '-'),
  mb: (bytes) => (Number.isFinite(bytes) ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : '-'),
};

export const verdict = (ok) => (ok ? 'PASS' : 'MISS');

/** Merges `{ [benchmark]: result }` into `bench/results/latest.json` (other benchmarks' last results stay). */
export function writeResults(meta, results) {
  mkdirSync(dirname(RESULTS_FILE), { recursive: true });
  let previous = {};
  try {
    previous = JSON.parse(readFileSync(RESULTS_FILE, 'utf8'));
  } catch {}
  const merged = {
    meta,
    benchmarks: { ...(previous.benchmarks ?? {}), ...results },
  };
  writeFileSync(RESULTS_FILE, `${JSON.stringify(merged, null, 2)}\n`);
  return RESULTS_FILE;
}
