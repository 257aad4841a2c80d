/**
 * Usage counts are exact under faults (`docs/protocol.md` §13.3): several SDK
 * processes (the built SDK) evaluate a seeded mix and report every 250 ms through a TCP proxy
 * that cuts a share of the server's answers after the server has them (so a report committed is
 * sent again, with its id), while the server is SIGKILLed and restarted: the journal server on
 * its data dir, and on Postgres three instances behind a round-robin front, one SIGKILLed at a
 * time and replaced. When the processes have flushed and closed, the server's totals per flag
 * and variant, and of unknown keys, equal the sum of what the processes counted themselves.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ChaosCluster } from '../../helpers/chaos-cluster.js';
import { ChaosServer, type ChaosTarget } from '../../helpers/chaos-server.js';
import { ensureBuilt } from '../../helpers/cli.js';
import { Rng } from '../../helpers/prng.js';
import { startProxy } from '../../helpers/proxy.js';
import { freshDatabase } from '../../helpers/server.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const CHILD = fileURLToPath(new URL('../../fixtures/usage-chaos-child.mjs', import.meta.url));
const SEED = Number(process.env.CHAOS_SEED ?? 20261124) >>> 0;
const PROCESSES = 4;
const KILLS = 3;

interface Outcome {
  tallies: Record<string, number>;
  flushed: boolean;
  evaluations: number;
  warnings: string[];
  /** Usage requests that failed on the wire, and retries the server had counted already. */
  wire: { lost: number; duplicates: number };
}

/** An SDK process: resolves `ready` once it loaded its flags, `done` with what it counted. */
function sdkProcess(baseUrl: string, apiKey: string, seed: number) {
  const child: ChildProcess = spawn(process.execPath, [CHILD, baseUrl, apiKey, String(seed)], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  onTestFinished(() => {
    child.kill('SIGKILL');
  });
  let out = '';
  let err = '';
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    if (out.startsWith('ready\n')) markReady();
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const done = new Promise<Outcome>((resolve, reject) =>
    child.on('exit', (code) => {
      const last = out.trim().split('\n').at(-1) ?? '';
      if (code === 0 && last.startsWith('{')) resolve(JSON.parse(last) as Outcome);
      else reject(new Error(`SDK process exited ${code}: ${err || out}`));
    }),
  );
  done.catch(() => {});
  return { ready: Promise.race([ready, done.then(() => {})]), done, stop: () => child.stdin!.end('stop\n') };
}

/** What the server counted, by `key/variant` (unknown keys as `key/unknown`), read with `readKey`. */
async function serverTotals(target: ChaosTarget): Promise<Record<string, number>> {
  const get = async (path: string) => {
    const res = await fetch(`${target.url}/api/v1${path}`, {
      headers: { authorization: `Bearer ${target.readKey}` },
      signal: AbortSignal.timeout(10_000),
    });
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const totals: Record<string, number> = {};
  for (const key of ['chaos-rollout', 'chaos-boolean', 'chaos-banner']) {
    const series = (await get(`/usage/flags/${key}`)) as {
      series: Array<{ variant: string | null; points: number[] }>;
    };
    for (const line of series.series) {
      const id = `${key}/${line.variant}`;
      totals[id] = (totals[id] ?? 0) + line.points.reduce((a, b) => a + b, 0);
    }
  }
  for (const row of (await get('/usage/unknown')) as Array<{ key: string; count: number }>)
    totals[`${row.key}/unknown`] = row.count;
  return totals;
}

const sum = (totals: Record<string, number>) => Object.values(totals).reduce((a, b) => a + b, 0);

async function exactUnderFaults(target: ChaosTarget): Promise<void> {
  ensureBuilt();
  const rng = new Rng(SEED);
  await target.start();
  onTestFinished(() => target.stop());
  const created = [
    await target.api('POST', '/flags', { key: 'chaos-rollout', type: 'rollout', percentage: 35 }),
    await target.api('PATCH', '/flags/chaos-rollout', { enabled: true }),
    await target.api('POST', '/flags', { key: 'chaos-boolean', type: 'boolean' }),
    await target.api('POST', '/flags', {
      key: 'chaos-banner',
      type: 'string',
      variants: { blue: 'blue', red: 'red', green: 'green' },
      fallthrough: { variant: 'red' },
      rules: [{ clauses: [{ attribute: 'plan', op: 'in', values: ['gold'] }], serve: { variant: 'blue' } }],
    }),
    await target.api('PATCH', '/flags/chaos-banner', { enabled: true }),
  ];
  expect(created.map((r) => r.status)).toEqual([201, 200, 201, 201, 200]);
  const proxy = await startProxy(target.port);
  onTestFinished(() => proxy.close());
  const processes = Array.from({ length: PROCESSES }, (_, i) =>
    sdkProcess(`${proxy.url}/api/v1`, target.readKey, SEED + i),
  );
  await Promise.all(processes.map((p) => p.ready));

  // 40 % of the connections lose the server's answer after its first bytes or so: a
  // report the server committed comes back with its id. Connections are cut every few tens of
  // ms, so the processes' keep-alive connections are new (and may lose an answer) all along.
  proxy.setTruncate(() => (rng.chance(0.4) ? rng.range(1, 60) : Number.POSITIVE_INFINITY));
  let faulting = true;
  const pump = (async () => {
    while (faulting) {
      await sleep(rng.range(20, 120));
      proxy.cutAll();
    }
  })();
  let seen = 0;
  for (let kill = 0; kill < KILLS; kill++) {
    // Kill once reports have come in four times since the last restart (read from the server).
    for (let grew = 0, waited = 0; grew < 4; waited++) {
      const now = sum(await serverTotals(target));
      if (now > seen) {
        seen = now;
        grew++;
      }
      if (waited > 400) throw new Error('usage reports stopped arriving');
      await sleep(50);
    }
    await target.kill();
    // Down for a moment (pacing), while the processes keep evaluating and reporting.
    await sleep(rng.range(50, 400));
    await target.start();
    await target.up();
  }
  faulting = false;
  await pump;
  proxy.setTruncate(undefined);
  for (const p of processes) p.stop();
  const outcomes = await Promise.all(processes.map((p) => p.done));
  expect(outcomes.map((o) => o.flushed)).toEqual(processes.map(() => true));
  // No report was given up (none waited past the bound, none was refused).
  expect(outcomes.flatMap((o) => o.warnings.filter((w) => w.includes('usage report')))).toEqual([]);
  const counted: Record<string, number> = {};
  for (const { tallies } of outcomes)
    for (const [id, count] of Object.entries(tallies)) counted[id] = (counted[id] ?? 0) + count;
  expect(sum(counted)).toBe(outcomes.reduce((n, o) => n + o.evaluations, 0));
  const wire = outcomes.map((o) => o.wire);
  console.info(`usage chaos (seed ${SEED}): ${JSON.stringify(wire)}`);
  expect(await serverTotals(target)).toEqual(counted);
  // The faults bit: answers were lost after the server had the report, and the retries came.
  expect(wire.reduce((n, w) => n + w.duplicates, 0)).toBeGreaterThan(0);
}

describe('usage counts are exact under faults', () => {
  it('on the journal, with the server SIGKILLed mid-run', async () => {
    await exactUnderFaults(new ChaosServer());
  }, 180_000);

  it('on Postgres, three instances, one SIGKILLed at a time', async () => {
    await exactUnderFaults(new ChaosCluster(await freshDatabase(), SEED));
  }, 180_000);
});
