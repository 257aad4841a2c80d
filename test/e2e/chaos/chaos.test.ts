/**
 * Chaos: convergence and durability under faults (`docs/reliability.md`).
 *
 * One durable reference server (a child process), SDK clients each behind a TCP proxy,
 * webhook receivers that fail some deliveries. A seeded schedule of mutations (create,
 * toggle, percentage, description, delete, recreate) runs interleaved with faults: cut
 * connections, silent stalls, delayed bytes, a 503 front, responses dropped midway, and
 * SIGKILL + restart of the server on the same port and data dir. At the end: every client
 * holds exactly the server's flags, none threw or went backwards, every acknowledged write
 * is in the store, and every committed change reached every webhook, validly signed.
 *
 * The Postgres mode runs the same with three instances on one database (`docs/scaling.md`)
 * behind a round-robin TCP front on one port: a kill SIGKILLs one instance (the one the last
 * request went to) and a new one takes its place; the store is read through the front.
 *
 *   npm test                                   both quick variants: the journal (50 clients,
 *                                              2,000 mutations) and Postgres (20 clients, 600)
 *   npm run test:chaos                         the long one on the journal (100 clients, 10,000 mutations)
 *   CHAOS_STORE=postgres npm run test:chaos    the long one on Postgres
 *   CHAOS_STORE=postgres npx vitest run test/e2e/chaos/chaos.test.ts   the quick Postgres variant alone
 *   CHAOS_SEED=<n>|random ...                  replays a seed (printed with every failure)
 */
import { describe, expect, it } from 'vitest';
import type { ChaosSettings } from '../../helpers/chaos-plan.js';
import { runChaos } from '../../helpers/chaos-run.js';

function parseSeed(text: string | undefined): number {
  if (text === undefined || text === '') return 20261123;
  if (text === 'random') return (Math.random() * 2 ** 32) >>> 0;
  const seed = Number(text);
  if (!Number.isInteger(seed) || seed < 0)
    throw new Error(`CHAOS_SEED must be an integer or "random", got ${text}`);
  return seed >>> 0;
}

function parseStore(text: string | undefined): ChaosSettings['store'] {
  if (text === undefined || text === '' || text === 'journal') return 'journal';
  if (text === 'postgres') return 'postgres';
  throw new Error(`CHAOS_STORE must be "journal" or "postgres", got ${text}`);
}

/** `npm run test:chaos` (or CHAOS_LONG=1) runs the long variant. */
const LONG = process.env.CHAOS_LONG === '1' || process.env.npm_lifecycle_event === 'test:chaos';
const SEED = parseSeed(process.env.CHAOS_SEED);
/** Which store the long variant runs on; with `postgres`, only the Postgres variant runs. */
const STORE = parseStore(process.env.CHAOS_STORE);

const LONG_SETTINGS: Omit<ChaosSettings, 'store'> = {
  seed: SEED,
  clients: 100,
  mutations: 10_000,
  writers: 8,
  keysPerWriter: 10,
  webhooks: 3,
  networkFaults: 200,
  kills: 12,
  paceMs: 10,
};

const SETTINGS: ChaosSettings = LONG
  ? { ...LONG_SETTINGS, store: 'journal' }
  : {
      seed: SEED,
      store: 'journal',
      clients: 50,
      mutations: 2_000,
      writers: 4,
      keysPerWriter: 8,
      webhooks: 3,
      networkFaults: 40,
      kills: 4,
      paceMs: 8,
    };

/** Small enough for every `npm test` (well under a minute on two cores). */
const POSTGRES_SETTINGS: ChaosSettings = LONG
  ? { ...LONG_SETTINGS, store: 'postgres' }
  : {
      seed: SEED,
      store: 'postgres',
      clients: 20,
      mutations: 600,
      writers: 4,
      keysPerWriter: 8,
      webhooks: 3,
      networkFaults: 15,
      kills: 3,
      paceMs: 8,
    };

function chaosTest(settings: ChaosSettings): void {
  const kills = settings.store === 'postgres' ? 'SIGKILLs of an instance' : 'SIGKILLs';
  it(
    `${settings.clients} clients and ${settings.webhooks} webhooks converge on every acknowledged write of ${settings.mutations} mutations under ${settings.networkFaults} network faults and ${settings.kills} ${kills}`,
    async () => {
      const report = await runChaos(settings);
      const env = `CHAOS_SEED=${SEED}${settings.store === 'postgres' ? ' CHAOS_STORE=postgres' : ''}`;
      const replay = `replay: ${env}${LONG ? ' npm run test:chaos' : ' npx vitest run test/e2e/chaos/chaos.test.ts'}`;
      console.log(
        `chaos seed ${SEED} (${settings.store}): ${report.mutations.acked} acknowledged + ${report.mutations.unknown} unacknowledged writes ` +
          `(${report.mutations.unknownCommitted} of them committed), ${report.committed} changes, faults ${JSON.stringify(report.faults)}, ` +
          `${report.clients.connections} client connections, ${report.clients.changes} changes applied, ` +
          `${report.clients.evaluations} evaluations (${report.clients.throws} threw), all converged ${report.clients.convergedMs} ms after the last fault, ` +
          `webhooks ${report.webhooks.map((w) => `${w.unique} of ${w.expected} events in ${w.requests} requests (${w.failedAnswers} failed answers)`).join(', ')}, all delivered ${report.deliveredMs} ms after the last fault, ` +
          `${(report.durationMs / 1000).toFixed(1)} s`,
      );
      const context = `${replay}\nplan:\n  ${report.plan.join('\n  ')}\nserver:\n  ${report.serverLog.join('\n  ')}`;
      expect(report.defects, context).toEqual([]);
      expect(report.clients.throws, context).toBe(0);
      expect(report.revisions, context).toBe(report.committed);
      expect(report.faults.kill ?? 0, context).toBe(settings.kills);
      for (const hook of report.webhooks) expect(hook.unique, context).toBe(hook.expected);
      expect(report.webhooks[0]?.expected, context).toBe(report.committed);
    },
    LONG ? 3_600_000 : 240_000,
  );
}

describe.skipIf(STORE !== 'journal')(`chaos (${LONG ? 'long' : 'quick'}, CHAOS_SEED=${SEED})`, () => {
  chaosTest(SETTINGS);
});

describe.skipIf(LONG && STORE !== 'postgres')(
  `chaos on Postgres, three instances behind a front (${LONG ? 'long' : 'quick'}, CHAOS_SEED=${SEED})`,
  () => {
    chaosTest(POSTGRES_SETTINGS);
  },
);
