/**
 * The reporters of `usage-ingest.mjs`, in their own process, driven over IPC (`util.mjs`
 * `startChild`). `setup { bodies }`: reporter r's report is `bodies[r].head + id + bodies[r].tail`
 * (a JSON text whose `id` is left out), a fresh random id each time, as the SDK makes one per
 * report. `run { kind, targets, key, seconds }`: one reporter per entry of `targets` (the URL it
 * sends to; keep-alive connections, one agent per URL), each sending one request at a time,
 * until `seconds` are over; every request under way then is still awaited, so every report the
 * server counted is one this side knows the answer of. `kind`: `report` (`POST /sdk/usage`,
 * accepted when `202` with `duplicate: false`) or `baseline` (`GET /sdk/flags`, `200`). Answers
 * `{ requests, elapsedMs, statuses, accepted (per reporter), duplicates, errors, latency, cpuUs }`.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { serveCommands } from './child.mjs';
import { percentile } from './util.mjs';

let bodies = [];

/** One request; resolves `{ status, body? }` (the body only when `read`), or `{ status: 'error ...' }`. */
function send(agent, url, method, path, key, payload, read) {
  return new Promise((resolve) => {
    const headers = { authorization: `Bearer ${key}` };
    if (payload !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(payload);
    }
    const req = http.request({ host: url.hostname, port: url.port, path, method, agent, headers }, (res) => {
      if (!read) {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode }));
        return;
      }
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    req.setTimeout(30_000, () => req.destroy(new Error('timeout')));
    req.on('error', (error) => resolve({ status: `error ${error.code ?? error.message}` }));
    req.end(payload);
  });
}

async function run({ kind, targets, key, seconds }) {
  const agents = new Map();
  const agentOf = (target) => {
    if (!agents.has(target)) agents.set(target, new http.Agent({ keepAlive: true, maxSockets: Infinity }));
    return agents.get(target);
  };
  const statuses = {};
  const accepted = targets.map(() => 0);
  const errors = [];
  const latencies = [];
  let duplicates = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const deadline = t0 + seconds * 1000;
  await Promise.all(
    targets.map(async (target, r) => {
      const url = new URL(target);
      const agent = agentOf(target);
      while (performance.now() < deadline) {
        const sentAt = performance.now();
        let got;
        if (kind === 'report') {
          const id = `u_${randomBytes(16).toString('base64url')}`;
          got = await send(agent, url, 'POST', '/sdk/usage', key, bodies[r].head + id + bodies[r].tail, true);
        } else {
          got = await send(agent, url, 'GET', '/sdk/flags', key, undefined, false);
        }
        latencies.push(performance.now() - sentAt);
        statuses[got.status] = (statuses[got.status] ?? 0) + 1;
        if (kind === 'report' && got.status === 202) {
          if (JSON.parse(got.body).duplicate === false) accepted[r]++;
          else duplicates++;
        } else if (got.status !== 200 && errors.length < 5) {
          errors.push(`${got.status} ${got.body ?? ''}`.slice(0, 300));
        }
      }
    }),
  );
  const elapsedMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  for (const agent of agents.values()) agent.destroy();
  return {
    requests: latencies.length,
    elapsedMs,
    statuses,
    accepted,
    duplicates,
    errors,
    latency: {
      mean: latencies.reduce((a, b) => a + b, 0) / latencies.length,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
    },
    cpuUs: cpu.user + cpu.system,
  };
}

serveCommands({
  setup({ bodies: given }) {
    bodies = given;
    return bodies.length;
  },
  run,
  close() {
    setImmediate(() => process.exit(0));
    return true;
  },
});
