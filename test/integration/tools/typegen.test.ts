/**
 * `flagwire types` (typegen/) against a real server with boolean, rollout, string, number and
 * json flags: its output byte for byte against golden files (one environment read with a
 * read-only key, as a `.d.ts` and a `.ts`; a project's environments merged with the admin
 * token; one environment after a flag is deleted), the built bin's `--check` passing and failing
 * with a diff, its exit codes, `--watch` picking up a created and a deleted flag, and exit code 2
 * with a message in every mode when the server cannot be read (refused, a non-2xx after the
 * retries, a body that is not flags).
 *
 * `FLAGWIRE_UPDATE_GOLDEN=1` rewrites the golden files from the server instead of comparing.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { check, generate } from '../../../typegen/generate.js';
import { render, TypegenError } from '../../../typegen/render.js';
import { readSource } from '../../../typegen/sources.js';
import { spawnCollecting } from '../../helpers/cli.js';
import type { TestServer } from '../../helpers/server.js';
import { TYPEGEN_KEYS as K, startTypegenServer, TYPED_FLAGS, whenFile } from '../../helpers/typegen.js';

const BIN = fileURLToPath(new URL('../../../dist/flagwire.js', import.meta.url));
const UPDATE = process.env.FLAGWIRE_UPDATE_GOLDEN === '1';

let t: TestServer;
let dir: string;

beforeAll(async () => {
  t = await startTypegenServer();
  dir = await mkdtemp(join(tmpdir(), 'flagwire-typegen-'));
});

afterAll(async () => {
  await t?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Compares `text` with the golden file `name` (or rewrites it with FLAGWIRE_UPDATE_GOLDEN=1). */
async function expectGolden(text: string, name: string): Promise<void> {
  const path = join(TYPED_FLAGS, 'golden', name);
  if (UPDATE) await writeFile(path, text);
  expect(text).toBe(await readFile(path, 'utf8'));
}

/** Runs the built `flagwire` bin to its end. */
async function flagwire(...args: string[]) {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run "npm run build" first (npm test does)`);
  const run = spawnCollecting(process.execPath, [BIN, ...args], {
    env: { ...process.env, FLAGWIRE_API_KEY: '', FLAGWIRE_ADMIN_TOKEN: '' },
  });
  const { code } = await run.exited;
  return { code, out: run.out(), err: run.err() };
}

describe('the generated file', () => {
  it('types one environment, read with a read-only key, as a .d.ts (golden)', async () => {
    const credentials = { baseUrl: t.base, apiKey: K.shopProdRead };
    const { text, keys } = await generate({ credentials, out: 'flags.d.ts' });
    expect(keys).toBe(7);
    await expectGolden(text, 'environment.d.ts');
    // Deterministic: the same flags in any order give the same bytes.
    const source = await readSource(credentials);
    const reversed = source.environments.map((env) => ({ flags: [...env.flags].reverse() }));
    expect(render({ environments: reversed }, { runtime: false })).toBe(text);
  });

  it('makes FLAG_KEYS a value in a .ts file (golden)', async () => {
    const { text } = await generate({
      credentials: { baseUrl: t.base, apiKey: K.shopProdRead },
      out: 'f.ts',
    });
    await expectGolden(text, 'environment.ts');
    expect(text).toContain('export const FLAG_KEYS = [\n  "banner",');
  });

  it("merges a project's environments with the admin token, naming where each key is (golden)", async () => {
    const credentials = { baseUrl: t.base, adminToken: t.server.adminToken!, project: 'shop' };
    const { text, keys } = await generate({ credentials, out: 'shop.d.ts' });
    expect(keys).toBe(8);
    await expectGolden(text, 'project.d.ts');
    expect(text).toContain('"staging-only": boolean;');
    expect(text).toContain('"theme": "dark" | "light" | "sepia" | "system";');
  });

  it('refuses a key whose flags have different types in different environments', async () => {
    const credentials = { baseUrl: t.base, adminToken: t.server.adminToken!, project: 'clash' };
    const error = await generate({ credentials, out: 'x.d.ts' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypegenError);
    expect((error as Error).message).toMatch(/"mixed" .*boolean in one, string in two/);
  });

  it('types a deleted flag no more (golden, compiled by typed-flags.test.ts)', async () => {
    const out = join(dir, 'before-delete.d.ts');
    const credentials = { baseUrl: t.base, apiKey: K.shopProdFull };
    await writeFile(out, (await generate({ credentials, out })).text);
    expect((await t.api('DELETE', '/flags/search-rollout', undefined, K.shopProdFull)).status).toBe(204);
    const after = await check({ credentials, out });
    expect(after.upToDate).toBe(false);
    expect(after.message).toContain('-    "search-rollout": boolean;');
    expect(after.message).toContain('-  "search-rollout",');
    await expectGolden((await generate({ credentials, out })).text, 'environment-deleted.d.ts');
  });
});

describe('the flagwire bin', () => {
  const lab = () => ['--base-url', t.base, '--api-key', K.labFull];

  it('writes the file, then --check passes; a change makes --check fail with a diff', async () => {
    const out = join(dir, 'lab', 'flags.d.ts');
    const first = await flagwire('types', '--out', out, ...lab());
    expect(first).toMatchObject({ code: 0, out: `flagwire types: wrote ${out} (0 flags)\n` });
    expect(first.err).toMatch(/no flags, so every key stays accepted/);
    const passing = await flagwire('types', '--check', '--out', out, ...lab());
    expect(passing).toMatchObject({ code: 0, out: `flagwire types: ${out} is up to date\n`, err: '' });

    expect((await t.api('POST', '/flags', { key: 'fresh', type: 'boolean' }, K.labFull)).status).toBe(201);
    const failing = await flagwire('types', '--check', '--out', out, ...lab());
    expect(failing.code).toBe(1);
    expect(failing.err).toContain(`flagwire types: ${out} is out of date (1 line to remove, 7 lines to add)`);
    expect(failing.err).toContain(`--- ${out} (on disk)\n+++ ${out} (from the server)\n`);
    expect(failing.err).toContain('+    "fresh": boolean;\n');
    expect(failing.err).toContain('-export declare const FLAG_KEYS: readonly [];\n');
    expect(await readFile(out, 'utf8')).not.toContain('fresh');

    expect((await flagwire('types', '--out', out, ...lab())).code).toBe(0);
    expect((await flagwire('types', '--check', '--out', out, ...lab())).code).toBe(0);
    expect((await t.api('DELETE', '/flags/fresh', undefined, K.labFull)).status).toBe(204);
  });

  it('fails --check for a missing file, and exits 2 on usage errors and refused credentials', async () => {
    const missing = await flagwire('types', '--check', '--out', join(dir, 'none.d.ts'), ...lab());
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/none\.d\.ts does not exist: run without --check to write it/);
    const noOut = await flagwire('types', ...lab());
    expect(noOut.code).toBe(2);
    expect(noOut.err).toMatch(/^flagwire: --out FILE is required/);
    const refused = await flagwire(
      'types',
      '--out',
      join(dir, 'x.d.ts'),
      '--base-url',
      t.base,
      '--api-key',
      'fw_live_0000000000000000000000000000000x',
    );
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/UNAUTHORIZED/);
    expect(existsSync(join(dir, 'x.d.ts'))).toBe(false);
    const noProject = await flagwire(
      'types',
      '--out',
      join(dir, 'x.d.ts'),
      '--base-url',
      t.base,
      '--admin-token',
      t.server.adminToken!,
      '--project',
      'nope',
    );
    expect(noProject).toMatchObject({ code: 2 });
    expect(noProject.err).toMatch(/no project "nope" \(projects: .*shop/);
    const watchProject = await flagwire(
      'types',
      '--watch',
      '--out',
      'x.d.ts',
      '--base-url',
      t.base,
      '--admin-token',
      'x'.repeat(20),
      '--project',
      'shop',
    );
    expect(watchProject.code).toBe(2);
    expect(watchProject.err).toMatch(/--watch follows one environment's stream/);
  });

  it('--watch picks up a created and a deleted flag, and ends on SIGTERM', async () => {
    const out = join(dir, 'watch', 'flags.ts');
    await mkdir(dirname(out), { recursive: true });
    const run = spawnCollecting(process.execPath, [BIN, 'types', '--watch', '--out', out, ...lab()]);
    await whenFile(out, (text) => text.includes('export const FLAG_KEYS = [] as const;'));

    expect(
      (
        await t.api(
          'POST',
          '/flags',
          { key: 'live', type: 'string', variants: { a: 'x', b: 'y' } },
          K.labFull,
        )
      ).status,
    ).toBe(201);
    const created = await whenFile(out, (text) => text.includes('"live"'));
    expect(created).toContain('    "live": "x" | "y";\n');
    expect(created).toContain('export const FLAG_KEYS = [\n  "live",\n] as const;');

    expect((await t.api('DELETE', '/flags/live', undefined, K.labFull)).status).toBe(204);
    const deleted = await whenFile(out, (text) => !text.includes('"live"'));
    expect(deleted).toContain('export const FLAG_KEYS = [] as const;');

    run.child.kill('SIGTERM');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    const lines = run
      .out()
      .split('\n')
      .filter((line) => line.startsWith('flagwire types: wrote'));
    expect(lines).toEqual([
      `flagwire types: wrote ${out} (0 flags)`,
      `flagwire types: wrote ${out} (1 flag)`,
      `flagwire types: wrote ${out} (0 flags)`,
    ]);
    expect(run.err()).toBe('');
  });
});

describe('the flagwire bin against a server it cannot read', () => {
  /** A base URL on 127.0.0.1 where nothing listens: connections are refused. */
  let refused: string;
  /** An HTTP server answering `/<case>/...`: 503 every time, HTML, JSON that is not flags. */
  let broken: string;
  let closeBroken: () => Promise<void>;

  beforeAll(async () => {
    const server = createServer((request, response) => {
      const [, kind] = request.url!.split('/');
      if (kind === 'busy') response.writeHead(503, { 'retry-after': '0' }).end('{"error":"UNAVAILABLE"}');
      else if (kind === 'html') response.writeHead(200, { 'content-type': 'text/html' }).end('<h1>hi</h1>');
      else response.writeHead(200, { 'content-type': 'application/json' }).end('{"flags":[]}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    broken = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    closeBroken = () => new Promise((resolve) => server.close(() => resolve()));
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    refused = `http://127.0.0.1:${(probe.address() as AddressInfo).port}/api/v1`;
    await new Promise((resolve) => probe.close(resolve));
  });
  afterAll(() => closeBroken?.());

  const key = ['--api-key', K.labFull];
  it.each([
    [
      'writing, refused',
      () => ['--base-url', refused, ...key],
      /\/api\/v1\/flags failed: .*ECONNREFUSED.*NETWORK_ERROR/,
    ],
    ['--check, refused', () => ['--check', '--base-url', refused, ...key], /ECONNREFUSED.*NETWORK_ERROR/],
    ['--watch, refused', () => ['--watch', '--base-url', refused, ...key], /ECONNREFUSED.*NETWORK_ERROR/],
    [
      '--check with the admin token, refused',
      () => ['--check', '--base-url', refused, '--admin-token', 'x'.repeat(20), '--project', 'shop'],
      /\/admin\/api\/overview failed: .*ECONNREFUSED.*NETWORK_ERROR/,
    ],
    [
      '--check, 503 after every retry',
      () => ['--check', '--base-url', `${broken}/busy/api/v1`, ...key],
      /\/busy\/api\/v1\/flags answered 503.*UNAVAILABLE/,
    ],
    [
      '--check, an answer that is not JSON',
      () => ['--check', '--base-url', `${broken}/html/api/v1`, ...key],
      /\/html\/api\/v1\/flags answered a body that is not JSON.*INVALID_RESPONSE/,
    ],
    [
      '--check, JSON that is not a list of flags',
      () => ['--check', '--base-url', `${broken}/shape/api/v1`, ...key],
      /\/shape\/api\/v1\/flags answered something that is not a list of flags.*INVALID_RESPONSE/,
    ],
  ])('exits 2 with the reason on stderr: %s', async (_, args, reason) => {
    const out = join(dir, 'unreadable', 'flags.d.ts');
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, 'as it was\n');
    const run = await flagwire('types', '--out', out, ...args());
    expect(run).toMatchObject({ code: 2, out: '' });
    expect(run.err).toMatch(/^flagwire types: /);
    expect(run.err).toMatch(reason);
    expect(await readFile(out, 'utf8')).toBe('as it was\n');
  });
});
