/**
 * What an app installs with flagwire: flagwire alone. The SDK needs nothing; the reference server
 * sends webhooks over `node:http`, and takes `pg`, an optional peer dependency, only when a
 * database is asked for (`docs/scaling.md`, "Installing"). The built package is packed once and
 * the tarball installed into a new app as a user's app installs it (no dev dependencies, no
 * install scripts); the app then runs with resolution held inside its own folder
 * (`helpers/installed-alone-hooks.mjs`), so nothing installed above it can stand in.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../../helpers/cli.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../..', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const shell = process.platform === 'win32';

interface LsNode {
  version?: string;
  dependencies?: Record<string, LsNode>;
}

/** The packages `npm ls --json` shows installed (a missing optional peer has no version). */
function installed(tree: LsNode): string[] {
  return Object.entries(tree.dependencies ?? {}).flatMap(([name, node]) =>
    node.version === undefined ? [] : [name, ...installed(node)],
  );
}

let dir: string;
let app: string;
/** `--import` of the hooks that keep the app's resolution inside its folder. */
let alone: string;

beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'flagwire-install-'));
  const { stdout } = await run(npm, ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], {
    cwd: root,
    shell,
  });
  const [{ filename }] = JSON.parse(stdout) as [{ filename: string }];
  app = join(dir, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  await run(
    npm,
    [
      'install',
      '--omit=dev',
      '--ignore-scripts',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      join(dir, filename),
    ],
    { cwd: app, shell },
  );
  const hooks = new URL('../../helpers/installed-alone-hooks.mjs', import.meta.url).href;
  const data = { root: pathToFileURL(app).href };
  const register = `import { register } from 'node:module'; register(${JSON.stringify(hooks)}, { data: ${JSON.stringify(data)} });`;
  alone = `--import=data:text/javascript,${encodeURIComponent(register)}`;
}, 60_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('installing the packed flagwire into an app', () => {
  it('installs flagwire and nothing else: no pg, no undici', async () => {
    const { stdout } = await run(npm, ['ls', '--omit=dev', '--all', '--json'], { cwd: app, shell });
    expect(installed(JSON.parse(stdout) as LsNode)).toEqual(['flagwire']);
  });

  it('runs the server on its own store without pg, and a database start-up says to install it', async () => {
    const script = `
      const { startServer } = await import('flagwire/server');
      const server = await startServer({ port: 0, memory: true, logger: false });
      const storage = server.storage;
      await server.close();
      const failure = await startServer({ port: 0, databaseUrl: 'postgres://u:p@127.0.0.1:1/db', logger: false })
        .then(() => 'started', (e) => ({ code: e.code, message: e.message }));
      console.log(JSON.stringify({ storage, failure }));`;
    const { stdout } = await run(process.execPath, [alone, '--input-type=module', '-e', script], {
      cwd: app,
    });
    const { storage, failure } = JSON.parse(stdout);
    expect(storage).toMatch(/^in memory/);
    expect(failure).toMatchObject({ code: 'DATABASE_DRIVER_MISSING' });
    expect(failure.message).toContain('run `npm install pg`');
  });

  it('flagwire-server --database exits 1 saying to npm install pg', async () => {
    const cli = join(app, 'node_modules', 'flagwire', 'dist', 'cli.js');
    const args = [alone, cli, '--port', '0', '--database', 'postgres://u:p@127.0.0.1:1/db'];
    const exit = await run(process.execPath, args, { cwd: app }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(exit.code).toBe(1);
    expect(exit.stderr).toMatch(/^flagwire-server: a database was asked for .*run `npm install pg`/m);
  });
});
