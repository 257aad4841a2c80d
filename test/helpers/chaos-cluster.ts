/**
 * The chaos suite's Postgres mode (`CHAOS_STORE=postgres`): three `flagwire-server` child
 * processes on one fresh database, behind a round-robin TCP front (chaos-front.ts) on one
 * stable port. A kill SIGKILLs one instance, the one the write just sent most likely went to;
 * `start` then brings up a new instance on a new port, so three serve again. Management calls
 * and snapshots go through the front, to whichever instance is next.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { SdkFlag } from '../../src/index.js';
import { type ChaosFront, startFront } from './chaos-front.js';
import { type ChaosTarget, chaosApi, chaosSnapshot, SERVER_ARGS, tail } from './chaos-server.js';
import { type CliRun, startCli } from './cli.js';
import { Rng } from './prng.js';

/** Instances serving at once (one fewer between a kill and its restart). */
export const INSTANCES = 3;

interface Instance {
  id: number;
  run: CliRun;
  port: number;
  killed: boolean;
}

export class ChaosCluster implements ChaosTarget {
  readonly #databaseUrl: string;
  readonly #rng: Rng;
  #front: ChaosFront | undefined;
  /** Every instance started, killed ones included (for the log). */
  readonly #instances: Instance[] = [];
  readonly #events: string[] = [];
  readonly #started = Date.now();
  url = '';
  port = 0;
  fullKey = '';
  readKey = '';
  #up: Promise<void> = Promise.resolve();
  #markUp: () => void = () => {};

  constructor(databaseUrl: string, seed: number) {
    this.#databaseUrl = databaseUrl;
    this.#rng = new Rng(seed ^ 0x6b11);
  }

  get #live(): Instance[] {
    return this.#instances.filter((i) => !i.killed);
  }

  #note(event: string): void {
    this.#events.push(`+${((Date.now() - this.#started) / 1000).toFixed(2)} s ${event}`);
  }

  async start(): Promise<void> {
    if (!this.#front) {
      this.#front = await startFront();
      this.url = this.#front.url;
      this.port = this.#front.port;
    }
    const missing = INSTANCES - this.#live.length;
    // At first all together on the empty database: the migration and the set-up race, and must not.
    const runs = await Promise.all(
      Array.from({ length: missing }, () => startCli(['--database', this.#databaseUrl, ...SERVER_ARGS])),
    );
    for (const run of runs) {
      const instance: Instance = {
        id: this.#instances.length + 1,
        run,
        port: Number(new URL(run.url).port),
        killed: false,
      };
      if (this.fullKey === '') {
        this.fullKey = run.fullKey;
        this.readKey = run.readKey;
      } else if (run.fullKey !== this.fullKey || run.readKey !== this.readKey) {
        throw new Error(`instance ${instance.id} printed other keys than the first one on the same database`);
      }
      this.#instances.push(instance);
      this.#front.add(instance.id, instance.port);
      this.#note(`started instance ${instance.id} (pid ${run.child.pid}, port ${instance.port})`);
    }
    this.#markUp();
  }

  /**
   * Resolves while (or once) no kill waits for its restart: a write in flight on the killed
   * instance is settled by then (Postgres committed or rolled it back when its connection
   * closed), so reading the store tells what happened to it, as after the journal's restart.
   */
  up(): Promise<void> {
    return this.#up;
  }

  /**
   * SIGKILLs the instance the last request went to (a write the run just sent, most likely),
   * 0 to 29 ms later: a write on Postgres takes longer than the journal's, so that is before,
   * during or after its commit.
   */
  async kill(): Promise<void> {
    const live = this.#live;
    const last = this.#front!.lastRequested();
    const victim = live.find((i) => i.id === last) ?? this.#rng.pick(live);
    await sleep(this.#rng.int(30));
    this.#up = new Promise((resolve) => {
      this.#markUp = resolve;
    });
    // Out of the rotation first, so no new connection goes to a dead instance.
    this.#front!.remove(victim.id);
    victim.killed = true;
    victim.run.child.kill('SIGKILL');
    await victim.run.exited;
    this.#note(
      `SIGKILLed instance ${victim.id}${victim.id === last ? ' (the last request went to it)' : ''}`,
    );
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.#live.map(async ({ run }) => {
        if (run.child.exitCode === null && run.child.signalCode === null) {
          run.child.kill('SIGTERM');
          await run.exited;
        }
      }),
    );
    await this.#front?.close();
  }

  async api(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
    return chaosApi(this.url, this.fullKey, method, path, body);
  }

  async snapshot(): Promise<{ revision: number; flags: Record<string, SdkFlag> }> {
    return chaosSnapshot(this.url, this.readKey);
  }

  log(): string[] {
    const routed = this.#front?.routed ?? new Map<number, number>();
    return [
      ...this.#events,
      ...this.#instances.flatMap(({ id, run, port, killed }) => [
        `instance ${id} (pid ${run.child.pid}, port ${port}${killed ? ', SIGKILLed' : ''}, ${routed.get(id) ?? 0} connections):`,
        ...tail(run.stderr(), 10),
      ]),
    ];
  }
}
