/**
 * `pg` is an optional peer dependency (`docs/scaling.md`, "Installing"): the Postgres storage
 * imports it when a database is asked for, and without it start-up fails with a stable code and
 * a message that says what to install. The missing package is simulated through the storage's
 * import seam, as Node reports it from ESM and from CommonJS.
 */
import { describe, expect, it } from 'vitest';
import { DatabaseDriverMissingError, type ImportPg, loadPg } from '../../../server/store/postgres/driver.js';
import { createPostgresStorage } from '../../../server/store/postgres/storage.js';

/** An import that fails as Node's does when `name` is not installed. */
function missing(name: string, code: 'ERR_MODULE_NOT_FOUND' | 'MODULE_NOT_FOUND'): ImportPg {
  const message =
    code === 'ERR_MODULE_NOT_FOUND'
      ? `Cannot find package '${name}' imported from /app/node_modules/flagwire/dist/server.js`
      : `Cannot find module '${name}'\nRequire stack:\n- /app/node_modules/flagwire/dist/server.cjs`;
  return () => Promise.reject(Object.assign(new Error(message), { code }));
}

const options = {
  url: 'postgres://u:secret@127.0.0.1:1/db',
  connectTimeoutMs: 100,
  poolSize: 1,
  catchUpIntervalMs: 1000,
  compactAfterEntries: 100,
  warn: () => {},
};

describe('loading the Postgres driver', () => {
  it('answers the installed pg', async () => {
    const pg = await loadPg();
    expect(typeof pg.Pool).toBe('function');
    expect(typeof pg.Client).toBe('function');
  });

  it.each([['ERR_MODULE_NOT_FOUND'], ['MODULE_NOT_FOUND']] as const)(
    'without pg (%s): DATABASE_DRIVER_MISSING, saying to npm install pg',
    async (code) => {
      const error = await loadPg(missing('pg', code)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DatabaseDriverMissingError);
      expect(error).toMatchObject({ name: 'DatabaseDriverMissingError', code: 'DATABASE_DRIVER_MISSING' });
      expect((error as Error).message).toContain('run `npm install pg`');
      expect((error as Error).message).toContain('--database, FLAGWIRE_DATABASE_URL or databaseUrl');
      expect((error as Error).cause).toMatchObject({ code });
    },
  );

  it('passes on any other failure as it is: a module pg needs, an error inside pg', async () => {
    const inner = missing('pg-pool', 'MODULE_NOT_FOUND');
    await expect(loadPg(inner)).rejects.toMatchObject({ code: 'MODULE_NOT_FOUND' });
    const broken = new SyntaxError('Unexpected token');
    await expect(loadPg(() => Promise.reject(broken))).rejects.toBe(broken);
  });

  it('opening a Postgres storage without pg fails before connecting, without the password', async () => {
    const error = await createPostgresStorage(options, missing('pg', 'ERR_MODULE_NOT_FOUND')).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'DATABASE_DRIVER_MISSING' });
    expect((error as Error).message).not.toContain('secret');
  });
});
