/** The reporters of `usage-ingest`, one request at a time each, every answer awaited (every count known). */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { request, serveCommands } from './child.mjs';
import { percentile, sum } from './util.mjs';

let bodies = [];
async function run({ kind, targets, key, seconds }) {
  const agents = new Map();
  const statuses = {};
  const accepted = targets.map(() => 0);
  const errors = [];
  const latencies = [];
  let duplicates = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const deadline = t0 + seconds * 1000;
  const reporter = async (target, r) => {
    if (!agents.has(target)) agents.set(target, new http.Agent({ keepAlive: true, maxSockets: Infinity }));
    const options = { agent: agents.get(target), read: kind === 'report' };
    const [usage, flags] = [new URL('/sdk/usage', target), new URL('/sdk/flags', target)];
    const report = () => `${bodies[r].head}u_${randomBytes(16).toString('base64url')}${bodies[r].tail}`;
    const send =
      kind === 'report'
        ? () => request('POST', usage, key, report(), options)
        : () => request('GET', flags, key, undefined, options);
    while (performance.now() < deadline) {
      const got = await send();
      latencies.push(got.ms);
      statuses[got.status] = (statuses[got.status] ?? 0) + 1;
      if (kind === 'report' && got.status === 202) {
        if (JSON.parse(got.body).duplicate === false) accepted[r]++;
        else duplicates++;
      } else if (got.status !== 200 && errors.length < 5)
        errors.push(`${got.status} ${got.body ?? ''}`.slice(0, 300));
    }
  };
  await Promise.all(targets.map(reporter));
  const elapsedMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  for (const agent of agents.values()) agent.destroy();
  const [p50, p99] = [percentile(latencies, 50), percentile(latencies, 99)];
  const latency = { mean: sum(latencies) / latencies.length, p50, p99 };
  const [requests, cpuUs] = [latencies.length, cpu.user + cpu.system];
  return { requests, elapsedMs, statuses, accepted, duplicates, errors, latency, cpuUs };
}
serveCommands({
  setup({ bodies: given }) {
    bodies = given;
    return bodies.length;
  },
  run,
});
