/**
 * The chaos suite's run: one durable reference server (a child process, so SIGKILL is
 * real) or, with `store: 'postgres'`, three instances on one Postgres behind a round-robin
 * front (chaos-cluster.ts), SDK clients each behind a fault-injecting proxy, webhook receivers
 * that fail some deliveries, writers following the seeded model, and a conductor applying the
 * seeded fault plan. It returns what it observed; `test/e2e/chaos/chaos.test.ts` asserts on it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient, type FlagwireClient, type SdkFlag } from '../../src/index.js';
import { ChaosCluster } from './chaos-cluster.js';
import { canonical, type ModelFlag, type Mutation, nextMutation, sameFlag } from './chaos-model.js';
import { type ChaosSettings, describeStep, type NetworkFault, planFaults, type Step } from './chaos-plan.js';
import { ChaosServer, type ChaosTarget } from './chaos-server.js';
import { CONVERGENCE_DEADLINE_MS, Gate, until } from './chaos-sync.js';
import { awaitWebhooks, type ChaosWebhook, startWebhooks, type WebhookFigures } from './chaos-webhooks.js';
import { Rng } from './prng.js';
import { startProxy, type TestProxy } from './proxy.js';
import { freshDatabase } from './server.js';

/** Fast reconnection and a watchdog of five missed pings. */
const CLIENT_OPTIONS = {
  initialRetryDelayMs: 50,
  maxRetryDelayMs: 1000,
  streamReadTimeoutMs: 1000,
  timeoutMs: 2000,
  pollIntervalMs: 300,
  logger: false,
} as const;

const USERS = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'grace', 'heidi'].map((key, i) => ({
  key: `${key}-${i}`,
  plan: i % 2 ? 'pro' : 'free',
}));

export interface ChaosReport {
  settings: ChaosSettings;
  plan: string[];
  /** What went wrong; empty on a good run. */
  defects: string[];
  mutations: { acked: number; unknown: number; unknownCommitted: number };
  faults: Record<string, number>;
  /** Committed flag changes (acked, plus unacknowledged ones the store holds). */
  committed: number;
  revisions: number;
  clients: {
    evaluations: number;
    throws: number;
    changes: number;
    /** ms from the last fault until the last client held the server's state. */
    convergedMs: number;
    connections: number;
  };
  webhooks: WebhookFigures[];
  /** ms from the last fault until the last webhook had every event. */
  deliveredMs: number;
  durationMs: number;
  /** The server processes: kills, restarts, the last lines of their stderr. */
  serverLog: string[];
}

/** An SDK client behind its proxy, watched for throws and for going backwards. */
interface Watched {
  client: FlagwireClient;
  proxy: TestProxy;
  throws: number;
  evaluations: number;
  changes: number;
}

function watch(index: number, client: FlagwireClient, proxy: TestProxy, defects: string[]): Watched {
  const w: Watched = { client, proxy, throws: 0, evaluations: 0, changes: 0 };
  const maxVersion = new Map<string, number>();
  let revision = -1;
  client.on('change', ({ key, after }) => {
    w.changes += 1;
    const now = client.status().revision ?? -1;
    if (now < revision) defects.push(`client ${index} went back from revision ${revision} to ${now}`);
    revision = Math.max(revision, now);
    if (after) {
      const seen = maxVersion.get(key) ?? -1;
      if (after.version <= seen)
        defects.push(`client ${index} applied ${key} version ${after.version} after version ${seen}`);
      maxVersion.set(key, Math.max(seen, after.version));
    }
    for (const user of USERS) {
      try {
        w.evaluations += 2;
        client.isEnabled(key, user);
        client.isEnabledDetail(key, user.key);
      } catch {
        w.throws += 1;
      }
    }
  });
  return w;
}

export async function runChaos(settings: ChaosSettings): Promise<ChaosReport> {
  const started = Date.now();
  const defects: string[] = [];
  const steps = planFaults(settings);
  const server: ChaosTarget =
    settings.store === 'postgres'
      ? new ChaosCluster(await freshDatabase(), settings.seed)
      : new ChaosServer();
  const proxies: TestProxy[] = [];
  const watched: Watched[] = [];
  const receivers: ChaosWebhook[] = [];
  const faults: Record<string, number> = {};
  const report = (extra: Partial<ChaosReport>): ChaosReport => ({
    settings,
    plan: steps.map(describeStep),
    defects,
    mutations: { acked: 0, unknown: 0, unknownCommitted: 0 },
    faults,
    committed: 0,
    revisions: 0,
    clients: { evaluations: 0, throws: 0, changes: 0, convergedMs: Number.NaN, connections: 0 },
    webhooks: [],
    deliveredMs: Number.NaN,
    durationMs: Date.now() - started,
    serverLog: server.log(),
    ...extra,
  });

  try {
    await server.start();

    receivers.push(...(await startWebhooks(settings, server)));

    for (let i = 0; i < settings.clients; i++) {
      const proxy = await startProxy(server.port);
      proxies.push(proxy);
      const client = createClient({
        baseUrl: `${proxy.url}/api/v1`,
        apiKey: server.readKey,
        ...CLIENT_OPTIONS,
      });
      watched.push(watch(i, client, proxy, defects));
    }
    await Promise.all(watched.map((w) => w.client.ready({ timeoutMs: 20_000 })));
    const initialRevision = (await server.snapshot()).revision;

    // ---------------------------------------------------------------- writers
    const model = new Map<string, ModelFlag | undefined>();
    const expectedEvents: string[] = [];
    const counts = { acked: 0, unknown: 0, unknownCommitted: 0 };
    const gate = new Gate();
    let done = 0;
    let finishedWriters = 0;
    let onProgress: (() => void) | undefined;
    /** Set by the conductor before a kill: the next write to start calls it (so writes are in flight). */
    let onWriteStarted: (() => void) | undefined;

    const commit = (m: Mutation) => {
      model.set(m.key, m.after);
      expectedEvents.push(m.event);
    };

    /** After a failed call: whichever of before / after the store holds is what happened. */
    const resolveUnknown = async (m: Mutation) => {
      for (;;) {
        await server.up();
        try {
          const { status, json } = await server.api('GET', `/flags/${m.key}`);
          const actual = status === 404 ? undefined : canonical(json as ModelFlag);
          if (sameFlag(actual, m.after)) {
            counts.unknownCommitted += 1;
            commit(m);
          } else if (!sameFlag(actual, m.before)) {
            defects.push(
              `${m.method} ${m.path} failed, and the store holds neither the state before nor after it: ${JSON.stringify(actual)}`,
            );
            model.set(m.key, actual);
          }
          return;
        } catch {
          // The server went down again: wait for it.
        }
      }
    };

    const writer = async (w: number) => {
      const rng = new Rng(settings.seed ^ Math.imul(w + 1, 0x9e3779b1));
      const keys = Array.from({ length: settings.keysPerWriter }, (_, k) => `chaos-w${w}-k${k}`);
      const share =
        Math.floor(settings.mutations / settings.writers) +
        (w < settings.mutations % settings.writers ? 1 : 0);
      for (let i = 0; i < share; i++) {
        await gate.pass();
        const key = rng.pick(keys);
        const m = nextMutation(rng, key, model.get(key));
        try {
          const call = server.api(m.method, m.path, m.body);
          onWriteStarted?.();
          const { status, json } = await call;
          if (status === m.okStatus) {
            counts.acked += 1;
            commit(m);
          } else {
            defects.push(
              `${m.method} ${m.path} ${JSON.stringify(m.body)} answered ${status} ${JSON.stringify(json)}`,
            );
            await resolveUnknown(m);
          }
        } catch {
          counts.unknown += 1;
          await resolveUnknown(m);
        }
        done += 1;
        onProgress?.();
        await sleep(rng.int(2 * settings.paceMs + 1));
      }
      finishedWriters += 1;
      gate.poke();
      onWriteStarted?.();
    };

    // ---------------------------------------------------------------- conductor
    const applyNetwork = (fault: NetworkFault, action: Step['action'], rng: Rng) => {
      for (const i of fault.clients) {
        const proxy = proxies[i]!;
        if (action === 'heal') {
          if (fault.kind === 'delay') proxy.setDelay(0);
          if (fault.kind === 'reject') proxy.setReject(false);
          if (fault.kind === 'truncate') proxy.setTruncate(undefined);
          continue;
        }
        if (fault.kind === 'cut') proxy.cutAll();
        if (fault.kind === 'stall') proxy.stallAll();
        if (fault.kind === 'delay') proxy.setDelay(fault.ms);
        if (fault.kind === 'reject') {
          proxy.setReject(true);
          proxy.cutAll();
        }
        if (fault.kind === 'truncate') {
          proxy.setTruncate(() => rng.range(1, fault.maxBytes));
          proxy.cutAll();
        }
      }
    };

    const checkStore = async (when: string) => {
      const { json } = await server.api('GET', '/flags');
      const stored = new Map((json as ModelFlag[]).map((f) => [f.key, canonical(f)]));
      for (const [key, flag] of model) {
        if (!sameFlag(stored.get(key), flag))
          defects.push(
            `${when}: ${key} is ${JSON.stringify(stored.get(key))}, acknowledged ${JSON.stringify(flag)}`,
          );
      }
    };

    const conductor = async () => {
      const rng = new Rng(settings.seed ^ 0xc0d);
      for (const step of steps) {
        while (done < step.at) await new Promise<void>((resolve) => (onProgress = resolve));
        faults[step.fault.kind] = (faults[step.fault.kind] ?? 0) + (step.action === 'start' ? 1 : 0);
        if (step.fault.kind !== 'kill') {
          applyNetwork(step.fault, step.action, rng);
          continue;
        }
        // SIGKILL with writes in flight (on Postgres, of the instance the last request went to);
        // restart (on the same port and data dir, or a new instance behind the front) once
        // every writer has settled what it had in flight; then every acknowledged write must be there.
        await new Promise<void>((resolve) => (onWriteStarted = resolve));
        onWriteStarted = undefined;
        // 0 to 3 ms after a write left: before, during or after its commit.
        await sleep(rng.int(4));
        gate.close();
        await server.kill();
        await sleep(step.fault.downMs);
        await server.start();
        await gate.parked(() => settings.writers - finishedWriters);
        await checkStore(`after restart @${step.at}`);
        gate.open();
      }
    };

    await Promise.all([conductor(), ...Array.from({ length: settings.writers }, (_, w) => writer(w))]);

    // ---------------------------------------------------------------- convergence
    for (const proxy of proxies) {
      proxy.setDelay(0);
      proxy.setReject(false);
      proxy.setTruncate(undefined);
    }
    const healedAt = Date.now();
    await checkStore('at the end');
    const final = await server.snapshot();
    const same = (flags: Record<string, SdkFlag>) =>
      JSON.stringify(Object.entries(flags).sort(([a], [b]) => (a < b ? -1 : 1))) ===
      JSON.stringify(Object.entries(final.flags).sort(([a], [b]) => (a < b ? -1 : 1)));
    let convergedMs = 0;
    await Promise.all(
      watched.map(async (w, i) => {
        const ok = await until(CONVERGENCE_DEADLINE_MS, (wake) => {
          if (same(w.client.allFlags())) return true;
          const off = w.client.on('change', wake);
          return off;
        });
        if (!ok) {
          const status = w.client.status();
          defects.push(
            `client ${i} did not converge within ${CONVERGENCE_DEADLINE_MS} ms (state ${status.state}, revision ${status.revision} of ${final.revision}, last error ${status.lastError?.code ?? '-'})`,
          );
        }
        convergedMs = Math.max(convergedMs, Date.now() - healedAt);
        // And says so: back on the stream, not polling or reconnecting.
        const connected = await until(CONVERGENCE_DEADLINE_MS, (wake) =>
          w.client.status().state === 'connected' ? true : w.client.on('status', wake),
        );
        if (!connected)
          defects.push(`client ${i} is ${w.client.status().state}, not connected, after the faults`);
      }),
    );

    // Every client evaluates exactly as a client holding the server's snapshot does.
    const reference = createClient({
      baseUrl: server.url,
      apiKey: server.readKey,
      offline: true,
      bootstrap: { revision: final.revision, epoch: 'x', eventId: `x:${final.revision}`, flags: final.flags },
      logger: false,
    });
    for (const [i, w] of watched.entries()) {
      for (const key of Object.keys(final.flags)) {
        for (const user of USERS) {
          if (w.client.isEnabled(key, user) !== reference.isEnabled(key, user)) {
            defects.push(`client ${i} evaluates ${key} for ${user.key} unlike the server's snapshot`);
          }
        }
      }
    }
    await reference.close();

    // ---------------------------------------------------------------- webhooks
    const { webhooks, deliveredMs } = await awaitWebhooks(
      receivers,
      expectedEvents,
      server,
      defects,
      healedAt,
    );

    const revisions = final.revision - initialRevision;
    if (revisions !== expectedEvents.length)
      defects.push(`the server made ${revisions} revisions for ${expectedEvents.length} committed changes`);

    return report({
      mutations: counts,
      committed: expectedEvents.length,
      revisions,
      clients: {
        evaluations: watched.reduce((n, w) => n + w.evaluations, 0),
        throws: watched.reduce((n, w) => n + w.throws, 0),
        changes: watched.reduce((n, w) => n + w.changes, 0),
        convergedMs,
        connections: proxies.reduce((n, p) => n + p.accepted, 0),
      },
      webhooks,
      deliveredMs,
    });
  } finally {
    await Promise.all(watched.map((w) => w.client.close()));
    await Promise.all(proxies.map((p) => p.close()));
    await Promise.all(receivers.map((r) => r.receiver.close()));
    await server.stop();
  }
}
