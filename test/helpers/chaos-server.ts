/**
 * The chaos suite's server: the built `flagwire-server` in a child process (so SIGKILL is
 * real) with a durable data dir, restartable on the same port, and calls straight to it.
 * `ChaosTarget` is what the run needs of it, and of its Postgres counterpart (chaos-cluster.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SdkFlag } from '../../src/index.js';
import { type CliRun, startCli } from './cli.js';

/** What the chaos run drives: one server, or several instances behind one front. */
export interface ChaosTarget {
  /** Where SDK clients and writers connect; it stays the same over the run. */
  readonly url: string;
  readonly port: number;
  readonly fullKey: string;
  readonly readKey: string;
  /** Starts what is down: everything at first, after `kill` what it killed. */
  start(): Promise<void>;
  /** Resolves while (or once) no kill is waiting for its restart. */
  up(): Promise<void>;
  /** SIGKILLs the server (or one instance of it); `start` brings it back. */
  kill(): Promise<void>;
  stop(): Promise<void>;
  /** A management call with the full-access key. */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }>;
  /** The SDK snapshot. */
  snapshot(): Promise<{ revision: number; flags: Record<string, SdkFlag> }>;
  /** What happened to the server processes, and the last lines they wrote to stderr (for a failure report). */
  log(): string[];
}

/** The last `n` non-empty lines of `text`, indented. */
export function tail(text: string, n: number): string[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(-n)
    .map((line) => `    ${line}`);
}

/** Fast pings and a short, long retry schedule, so a run ends in seconds. */
export const SERVER_ARGS = [
  '--ping-interval',
  '0.2',
  '--webhook-retry-delays',
  '50,100,200,400,800,1000,1000,1000,1000,1000,1000,1000,1000,1000,1000',
  '--webhook-timeout',
  '1000',
];

/** A management call to `url` with the full-access key, bounded by a 10 s timeout. */
export async function chaosApi(
  url: string,
  fullKey: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  const headers: Record<string, string> = { authorization: `Bearer ${fullKey}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${url}/api/v1${path}`, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

/** The SDK snapshot at `url` with the read-only key, bounded by a 10 s timeout. */
export async function chaosSnapshot(
  url: string,
  readKey: string,
): Promise<{ revision: number; flags: Record<string, SdkFlag> }> {
  const res = await fetch(`${url}/api/v1/sdk/flags`, {
    headers: { authorization: `Bearer ${readKey}` },
    signal: AbortSignal.timeout(10_000),
  });
  return (await res.json()) as { revision: number; flags: Record<string, SdkFlag> };
}

/** The durable server in a child process, restartable on the same port and data dir. */
export class ChaosServer implements ChaosTarget {
  #run: CliRun | undefined;
  #stderr: string[] = [];
  port = 0;
  url = '';
  fullKey = '';
  readKey = '';
  readonly dataDir = mkdtempSync(join(tmpdir(), 'flagwire-chaos-'));
  #up: Promise<void> = Promise.resolve();
  #markUp: () => void = () => {};

  async start(): Promise<void> {
    const port = this.port ? ['--port', String(this.port)] : [];
    for (let attempt = 0; ; attempt++) {
      try {
        this.#run = await startCli(['--data', this.dataDir, ...SERVER_ARGS, ...port]);
        break;
      } catch (error) {
        // The port of a killed server is free at once; retry anyway, in case a
        // connection to it is still being torn down.
        if (attempt >= 20) throw error;
        await sleep(50);
      }
    }
    this.url = this.#run.url;
    this.port = Number(new URL(this.url).port);
    this.fullKey = this.#run.fullKey;
    this.readKey = this.#run.readKey;
    this.#markUp();
  }

  /** Resolves while (or once) the server is running. */
  up(): Promise<void> {
    return this.#up;
  }

  async kill(): Promise<void> {
    this.#up = new Promise((resolve) => {
      this.#markUp = resolve;
    });
    this.#run?.child.kill('SIGKILL');
    await this.#run?.exited;
    this.#stderr.push(this.#run?.stderr() ?? '');
  }

  async stop(): Promise<void> {
    if (this.#run && this.#run.child.exitCode === null && this.#run.child.signalCode === null) {
      this.#run.child.kill('SIGTERM');
      await this.#run.exited;
    }
    rmSync(this.dataDir, { recursive: true, force: true });
  }

  log(): string[] {
    const runs = [...this.#stderr, this.#run?.stderr() ?? ''];
    return runs.flatMap((stderr, i) => [
      `run ${i + 1}${i < runs.length - 1 ? ', SIGKILLed' : ''}:`,
      ...tail(stderr, 10),
    ]);
  }

  /** A management call straight to the server (never through a proxy). */
  async api(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
    return chaosApi(this.url, this.fullKey, method, path, body);
  }

  /** The SDK snapshot, straight from the server. */
  async snapshot(): Promise<{ revision: number; flags: Record<string, SdkFlag> }> {
    return chaosSnapshot(this.url, this.readKey);
  }
}
