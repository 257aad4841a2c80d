/**
 * The chaos suite's seeded schedule: which faults start and heal after how many
 * acknowledged-or-failed mutations. Pure: the same settings give the same plan.
 */
import { Rng } from './prng.js';

export interface ChaosSettings {
  seed: number;
  /**
   * `journal`: one server with a data dir, killed and restarted on the same port. `postgres`:
   * three instances on one database behind a round-robin front, killed and replaced one at a time.
   */
  store: 'journal' | 'postgres';
  /** SDK clients, each behind its own proxy. */
  clients: number;
  /** Mutations in all, shared by the writers. */
  mutations: number;
  /** Concurrent writers, each owning its own flag keys. */
  writers: number;
  /** Flag keys per writer. */
  keysPerWriter: number;
  /** Webhook receivers, each subscribed to every event type. */
  webhooks: number;
  /** Network faults (cut, stall, delay, reject, truncate) over the run. */
  networkFaults: number;
  /** SIGKILL + restart of the server (of one instance, on Postgres) over the run. */
  kills: number;
  /** Mean pause of a writer between two of its mutations, in ms (load shaping, not sync). */
  paceMs: number;
}

export type NetworkFault =
  | { kind: 'cut'; clients: number[] }
  | { kind: 'stall'; clients: number[] }
  | { kind: 'delay'; clients: number[]; ms: number }
  | { kind: 'reject'; clients: number[] }
  | { kind: 'truncate'; clients: number[]; maxBytes: number };

export type Fault = NetworkFault | { kind: 'kill'; downMs: number };

/** A fault starts (or heals, for the lasting kinds) once `at` mutations have finished. */
export interface Step {
  at: number;
  action: 'start' | 'heal';
  fault: Fault;
}

const LASTING = new Set(['delay', 'reject', 'truncate']);

function someClients(rng: Rng, clients: number): number[] {
  const share = rng.pick([0.1, 0.3, 0.5, 1]);
  const picked: number[] = [];
  for (let i = 0; i < clients; i++) if (rng.chance(share)) picked.push(i);
  if (picked.length === 0) picked.push(rng.int(clients));
  return picked;
}

function networkFault(rng: Rng, clients: number): NetworkFault {
  const targets = someClients(rng, clients);
  return rng.weighted<NetworkFault>([
    [3, () => ({ kind: 'cut', clients: targets })],
    [2, () => ({ kind: 'stall', clients: targets })],
    [2, () => ({ kind: 'delay', clients: targets, ms: rng.range(5, 300) })],
    [2, () => ({ kind: 'reject', clients: targets })],
    [2, () => ({ kind: 'truncate', clients: targets, maxBytes: rng.range(1, 600) })],
  ]);
}

/**
 * Faults spread over the first 90 % of the mutations; every lasting fault heals by the last
 * mutation, so the run ends on a healthy network.
 */
export function planFaults(settings: ChaosSettings): Step[] {
  const rng = new Rng(settings.seed ^ 0x0fa0175);
  const { mutations } = settings;
  const window = Math.floor(mutations * 0.9);
  const steps: Step[] = [];
  for (let i = 0; i < settings.networkFaults; i++) {
    const at = 1 + rng.int(window);
    const fault = networkFault(rng, settings.clients);
    steps.push({ at, action: 'start', fault });
    if (LASTING.has(fault.kind)) {
      const heal = Math.min(mutations, at + rng.range(10, Math.max(20, Math.floor(mutations / 10))));
      steps.push({ at: heal, action: 'heal', fault });
    }
  }
  for (let i = 0; i < settings.kills; i++) {
    const at = Math.min(window, Math.floor(((i + 1) * window) / (settings.kills + 1)) + rng.int(20));
    steps.push({ at, action: 'start', fault: { kind: 'kill', downMs: rng.pick([0, 50, 300, 1000]) } });
  }
  return steps.sort((a, b) => a.at - b.at);
}

/** One line per step, for the failure report. */
export function describeStep(step: Step): string {
  const { fault } = step;
  const who =
    'clients' in fault ? ` clients ${fault.clients.length === 0 ? '-' : fault.clients.join(',')}` : '';
  const detail =
    fault.kind === 'delay'
      ? ` ${fault.ms} ms`
      : fault.kind === 'truncate'
        ? ` after ${fault.maxBytes} B`
        : fault.kind === 'kill'
          ? ` down ${fault.downMs} ms`
          : '';
  return `@${step.at} ${step.action} ${fault.kind}${detail}${who}`;
}
