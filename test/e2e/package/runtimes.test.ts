/**
 * Runtime matrix: the same smoke scenario (test/fixtures/runtime-smoke-scenario.mjs) runs on
 * Node 22 and 24, Deno 2, Bun 1 and Cloudflare's workerd, each a binary shipped inside an npm
 * package pinned in devDependencies (test/helpers/runtimes.ts finds it; a missing one fails,
 * never skips). The reference server runs in this process; each runtime loads flags from it
 * with a read-only key, evaluates a boolean and a rollout, sees a flip of the boolean arrive over
 * the stream, verifies a signed webhook body and refuses a tampered one, and closes.
 * The reference server itself (`dist/cli.js`) is then run on every runtime that can run it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bucketOf } from '../../../src/index.js';
import { buildWebhookEvent, signWebhookBody } from '../../../src/testing/index.js';
import { CLI } from '../../helpers/cli.js';
import {
  bunRuntime,
  denoRuntime,
  miniflareEntry,
  nodeRuntime,
  type Runtime,
  runChild,
  workerdRuntime,
} from '../../helpers/runtimes.js';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';

/** What the test uses of miniflare (typed here: it is installed with the runtimes, not the project). */
type MiniflareClass = new (
  options: Record<string, unknown>,
) => {
  dispatchFetch(url: string, init?: RequestInit): Promise<Response>;
  dispose(): Promise<void>;
};

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const SMOKE = fileURLToPath(new URL('../../fixtures/runtime-smoke.mjs', import.meta.url));
const WORKER = fileURLToPath(new URL('../../fixtures/runtime-smoke-worker.mjs', import.meta.url));
const DIST = fileURLToPath(new URL('../../../dist/index.js', import.meta.url));
/** Bound on one runtime's whole run; a healthy one takes well under a second or two. */
const RUN_MS = 20_000;

const ROLLOUT = 'smoke-rollout';
const USER_IN = 'user-42';
const USER_OUT = 'user-7';
const SECRET = 'whsec_runtimeMatrixSecret0000000000000000';

const node22 = nodeRuntime(22);
const node24 = nodeRuntime(24);
const deno = denoRuntime();
const bun = bunRuntime();
const workerd = workerdRuntime();

let t: TestServer;
/** A rollout that includes `USER_IN` at the very edge (percentage = its bucket) and not `USER_OUT`. */
let percentage: number;

beforeAll(async () => {
  try {
    readFileSync(DIST);
  } catch {
    throw new Error(`${DIST} is missing: run "npm run build" first (npm test does)`);
  }
  t = await startTestServer();
  percentage = bucketOf(ROLLOUT, USER_IN);
  if (bucketOf(ROLLOUT, USER_OUT) <= percentage) throw new Error('pick another USER_OUT');
  await ok(t.api('POST', '/flags', { key: ROLLOUT, type: 'rollout', percentage }));
  await ok(t.api('PATCH', `/flags/${ROLLOUT}`, { enabled: true }));
});
afterAll(() => t?.close());

async function ok(response: Promise<Response>): Promise<void> {
  const res = await response;
  if (!res.ok) throw new Error(`${res.status} ${await res.text()}`);
}

function binaryOf(runtime: Runtime): string {
  if (!runtime.bin) throw new Error(runtime.missing);
  return runtime.bin;
}

/** The scenario's parameters for one runtime, with its own boolean flag (off) to flip. */
async function scenario(id: string) {
  const boolKey = `smoke-bool-${id}`;
  await ok(t.api('POST', '/flags', { key: boolKey, type: 'boolean' }));
  const body = JSON.stringify(
    buildWebhookEvent({
      project: 'acme',
      environment: 'production',
      data: { flag: { key: boolKey, type: 'boolean', enabled: true, description: null } },
    }),
  );
  return {
    boolKey,
    params: {
      baseUrl: t.base,
      apiKey: KEYS.acmeProdRead,
      boolKey,
      rolloutKey: ROLLOUT,
      users: [USER_IN, USER_OUT],
      webhookSecret: SECRET,
      webhookBody: body,
      webhookSignature: signWebhookBody(body, SECRET),
    },
  };
}

/** What every runtime must report, given the lines it printed. */
function expectScenario(name: string, output: string, boolKey: string): void {
  const json = (prefix: string) => {
    const line = output.split('\n').find((l) => l.startsWith(`${prefix} `));
    if (!line) throw new Error(`${name} printed no ${prefix} line; its output:\n${output}`);
    return JSON.parse(line.slice(prefix.length + 1)) as Record<string, unknown>;
  };
  expect(output, `${name} reported an error; its output:\n${output}`).not.toMatch(/^ERROR /m);
  expect(json('READY'), `${name}: flags before the flip; its output:\n${output}`).toMatchObject({
    bool: false,
    rollout: [
      { value: true, isEnabled: true, reason: 'ROLLOUT_IN', bucket: percentage },
      { value: false, isEnabled: false, reason: 'ROLLOUT_OUT', bucket: bucketOf(ROLLOUT, USER_OUT) },
    ],
    state: 'connected',
  });
  expect(json('CHANGED'), `${name}: the flip over the stream; its output:\n${output}`).toEqual({
    bool: true,
  });
  expect(json('RESULT'), `${name}: the scenario's result; its output:\n${output}`).toEqual({
    webhook: `flag.enabled:${boolKey}`,
    tampered: 'WebhookVerificationError:signature_mismatch',
    closed: 'closed',
    boolAfterClose: true,
  });
}

/** Runs the scenario in a runtime's process, flipping the flag when it reports READY. */
async function smokeInProcess(runtime: Runtime, id: string, args: string[], entry = 'dist'): Promise<string> {
  const bin = binaryOf(runtime);
  const { boolKey, params } = await scenario(id);
  const run = runChild(bin, [...args, SMOKE, JSON.stringify(params), entry], {
    timeoutMs: RUN_MS,
    cwd: ROOT,
  });
  const fail = (what: string) => (error: unknown) => {
    throw new Error(`${runtime.name}: ${what}: ${(error as Error).message}; its output:\n${run.output()}`);
  };
  await run.line('READY').catch(fail('no READY line'));
  await ok(t.api('PATCH', `/flags/${boolKey}`, { enabled: true }));
  const { code, signal } = await run.exited;
  expectScenario(runtime.name, run.output(), boolKey);
  // After close() nothing of the client may keep the process alive: it exits by itself.
  expect(
    { code, signal },
    `${runtime.name} did not exit cleanly after close(); its output:\n${run.output()}`,
  ).toEqual({ code: 0, signal: null });
  return run.output().split('\n')[0]!;
}

it(`runs the SDK smoke scenario on ${node22.name} (the package's node build)`, async () => {
  const first = await smokeInProcess(node22, 'node22', [], 'flagwire');
  expect(first).toMatch(/^RUNTIME node 22\.\d+\.\d+ .*\/dist\/index\.node\.js$/);
});

it(`runs the SDK smoke scenario on ${node24.name} (the package's node build)`, async () => {
  const first = await smokeInProcess(node24, 'node24', [], 'flagwire');
  expect(first).toMatch(/^RUNTIME node 24\.\d+\.\d+ .*\/dist\/index\.node\.js$/);
});

it(`runs the SDK smoke scenario on ${deno.name}`, async () => {
  const first = await smokeInProcess(deno, 'deno', [
    'run',
    '--allow-net=127.0.0.1',
    '--allow-read',
    '--no-prompt',
  ]);
  expect(first).toMatch(/^RUNTIME deno 2\.\d+\.\d+ .*\/dist\/index\.js$/);
});

it(`runs the SDK smoke scenario on ${bun.name}`, async () => {
  const first = await smokeInProcess(bun, 'bun', []);
  expect(first).toMatch(/^RUNTIME bun 1\.\d+\.\d+ .*\/dist\/index\.js$/);
});

it(`runs the SDK smoke scenario on ${workerd.name} (miniflare ${workerd.miniflare ?? 'not installed'})`, async () => {
  const bin = binaryOf(workerd);
  // miniflare is installed with the runtimes, apart from the project (runtimesDir(), test/helpers/runtimes.ts).
  const { Miniflare } = (await import(pathToFileURL(miniflareEntry()).href)) as { Miniflare: MiniflareClass };
  const bundle = await build({
    entryPoints: [WORKER],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['workerd', 'worker'],
    write: false,
    logLevel: 'silent',
  });
  const previous = process.env.MINIFLARE_WORKERD_PATH;
  process.env.MINIFLARE_WORKERD_PATH = bin;
  const mf = new Miniflare({
    modules: true,
    script: bundle.outputFiles[0]!.text,
    // No nodejs_compat. Dates before 2024-11-11 refuse fetch's `cache` option, which the SDK sends.
    compatibilityDate: '2025-01-01',
    // The placeholder `request.cf`: the real one is fetched from Cloudflare, out of reach here.
    cf: false,
  });
  let output = '';
  try {
    const { boolKey, params } = await scenario('workerd');
    const res = await mf.dispatchFetch('http://worker.test/', {
      method: 'POST',
      // With the default `Accept-Encoding` (gzip, deflate, ...) the streamed response arrives
      // only when it ends, so READY would come too late to flip the flag; identity streams it.
      headers: { 'accept-encoding': 'identity' },
      body: JSON.stringify(params),
      signal: AbortSignal.timeout(RUN_MS),
    });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let flipped = false;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      output += decoder.decode(value, { stream: true });
      if (!flipped && /^READY /m.test(output)) {
        flipped = true;
        await ok(t.api('PATCH', `/flags/${boolKey}`, { enabled: true }));
      }
    }
    expect(res.status, `${workerd.name}: ${output}`).toBe(200);
    expectScenario(workerd.name, output, boolKey);
    expect(output.split('\n')[0]).toMatch(/^RUNTIME workerd Cloudflare-Workers/);
  } catch (error) {
    if (error instanceof Error && !error.message.includes(output)) {
      error.message = `${workerd.name}: ${error.message}; its output:\n${output}`;
    }
    throw error;
  } finally {
    await mf.dispose();
    if (previous === undefined) delete process.env.MINIFLARE_WORKERD_PATH;
    else process.env.MINIFLARE_WORKERD_PATH = previous;
  }
});

/**
 * Starts `dist/cli.js` with a durable data directory, creates a flag with the printed
 * full-access key, lists flags with the printed read-only key, and stops it with SIGTERM.
 */
async function serverOn(runtime: Runtime, args: string[]): Promise<void> {
  const bin = binaryOf(runtime);
  const dir = mkdtempSync(join(tmpdir(), 'flagwire-cli-'));
  const run = runChild(bin, [...args, CLI, '--port', '0', '--data', dir], { timeoutMs: RUN_MS });
  const fail = (what: string) => (error: unknown) => {
    throw new Error(`${runtime.name}: ${what}: ${(error as Error).message}; its output:\n${run.output()}`);
  };
  try {
    const listening = await run.line('flagwire-server listening on ').catch(fail('the server did not start'));
    const url = listening.split(' ').at(-1)!;
    const key = (access: string) => new RegExp(`${access}\\s+key: (fw_live_\\w+)`).exec(run.output())?.[1];
    const created = await fetch(`${url}/api/v1/flags`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key('full-access')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ key: 'on-runtime', type: 'boolean' }),
    });
    expect(created.status, `${runtime.name}: POST /api/v1/flags; its output:\n${run.output()}`).toBe(201);
    const listed = await fetch(`${url}/api/v1/flags`, {
      headers: { authorization: `Bearer ${key('read-only')}` },
    });
    expect(listed.status, `${runtime.name}: GET /api/v1/flags; its output:\n${run.output()}`).toBe(200);
    const flags = (await listed.json()) as Array<{ key: string }>;
    expect(flags.map((f) => f.key)).toEqual(['on-runtime']);
    run.child.kill('SIGTERM');
    const { code, signal } = await run.exited;
    expect(
      { code, signal },
      `${runtime.name}: the server's exit on SIGTERM; its output:\n${run.output()}`,
    ).toEqual({ code: 0, signal: null });
  } finally {
    run.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

it(`runs the reference server (dist/cli.js) on ${node22.name}`, () => serverOn(node22, []));
it(`runs the reference server (dist/cli.js) on ${node24.name}`, () => serverOn(node24, []));
it(`runs the reference server (dist/cli.js) on ${deno.name}`, () =>
  serverOn(deno, ['run', '-A', '--no-prompt']));
/**
 * The webhook dispatcher's shutdown closes its `node:http` agents (server/webhooks/sender.ts):
 * on Bun too, the server exits 0 on SIGTERM. Webhook delivery itself is not run on Bun.
 */
it(`runs the reference server (dist/cli.js) on ${bun.name}`, () => serverOn(bun, []));
