/**
 * On Postgres every instance holds an entry as the instance that wrote it does (`docs/scaling.md`,
 * "Schema"): the entries and snapshots are stored as the JSON text written, keys in their order.
 * (Stored as `jsonb` before, they came back with their keys reordered, shortest first, to every
 * instance that read them from the table: a flag whose variants are `blue`, `red` had the off
 * variant and fallthrough `blue` on the writer and `red` on the others and after a restart, and a
 * copy of a flag another instance had copied before was previewed `changed` although nothing
 * differed. The same race, between the writer applying its own entry and a catch-up reading it
 * from the table first, made test/integration/server/admin-copy-flags.test.ts fail now and then on one instance.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FlagwireServer, startServer } from '../../../server/index.js';
import { MIGRATIONS } from '../../../server/store/postgres/schema.js';
import { type AdminCaller, adminCaller } from '../../helpers/admin.js';
import { type Json, makeEnv, makeKey, sendOk } from '../../helpers/lifecycle.js';
import { queryDatabase } from '../../helpers/postgres.js';
import { freshDatabase, KEYS, TEST_CONFIG } from '../../helpers/server.js';

const FROM = 'promo/staging';
const TO = 'promo/production';
/** Keys out of `jsonb`'s order: `blue` before `red`, `clauses` before `serve`. */
const TINT = {
  key: 'tint',
  type: 'string',
  variants: { blue: '#00f', red: '#f00' },
  rules: [
    { id: 'r_de', clauses: [{ attribute: 'country', op: 'in', values: ['de'] }], serve: { variant: 'red' } },
  ],
};

const servers: FlagwireServer[] = [];
let url = '';
let a: FlagwireServer;
let b: FlagwireServer;
let onA: AdminCaller;
let onB: AdminCaller;
let staging = '';
let sdkKey = '';

async function start(databaseUrl: string): Promise<FlagwireServer> {
  // A snapshot every few entries: a restart loads one, not only entries.
  const server = await startServer({
    port: 0,
    logger: false,
    config: TEST_CONFIG,
    databaseUrl,
    compactAfterEntries: 3,
  });
  servers.push(server);
  return server;
}

/** The flag as the SDK is served it by `server`, as text: key order included. */
async function served(server: FlagwireServer, key: string): Promise<string> {
  const res = await fetch(`${server.url}/sdk/flags`, {
    headers: { authorization: `Bearer ${sdkKey}`, 'x-flagwire-capabilities': 'targeting' },
  });
  expect(res.status).toBe(200);
  return JSON.stringify(((await res.json()) as Json).flags[key]);
}

beforeAll(async () => {
  url = await freshDatabase();
  a = await start(url);
  b = await start(url);
  onA = await adminCaller(a);
  onB = await adminCaller(b);
  staging = await makeEnv(onA, 'promo', 'staging');
  await makeEnv(onA, 'promo', 'production');
  sdkKey = (await makeKey(onA, staging, 'read-only')).key;
  await sendOk(onA, 'POST', `${staging}/flags`, TINT, 201);
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

describe('an entry read back from Postgres', () => {
  it('is the flag its writer holds: the same variants first, the same off variant, on every instance', async () => {
    // Settled reads: B has read the entry from the table by now.
    const [onWriter, onReader] = await Promise.all(
      [onA, onB].map((admin) => sendOk(admin, 'GET', `${staging}/flags/tint`, undefined)),
    );
    expect(JSON.stringify(onReader)).toBe(JSON.stringify(onWriter));
    expect(Object.keys(onReader!.variants)).toEqual(['blue', 'red']);
    expect(onReader!.offVariant).toBe('blue');
    expect(onReader!.fallthrough).toEqual({ variant: 'blue' });
    expect(await served(b, 'tint')).toBe(await served(a, 'tint'));
  });

  it('copied by one instance, previews unchanged on the other', async () => {
    const { to } = await sendOk(onB, 'POST', '/copy-flags/preview', { from: FROM, to: TO });
    await sendOk(onB, 'POST', '/copy-flags', { from: FROM, to: TO, expectedRevision: to.revision });
    const again = await sendOk(onA, 'POST', '/copy-flags/preview', { from: FROM, to: TO });
    expect(again.flags).toEqual([{ key: 'tint', status: 'unchanged', changes: [] }]);
  });

  it('is the same after a restart, from the snapshot and the entries after it', async () => {
    for (let i = 0; i < 4; i++)
      await sendOk(onA, 'PATCH', `${staging}/flags/tint`, { description: `take ${i}` });
    const [snapshot] = await queryDatabase(
      url,
      `SELECT count(*)::int AS n FROM flagwire_snapshots WHERE data::text LIKE '%"tint"%'`,
    );
    expect(snapshot?.n).toBeGreaterThan(0);
    const restarted = await start(url);
    expect(await served(restarted, 'tint')).toBe(await served(a, 'tint'));
    expect(await served(restarted, 'tint')).toContain('"variants":{"blue":"#00f","red":"#f00"}');
  });
});

describe('migration 5', () => {
  it('stores the entries and snapshots of a database made by migrations 1 to 4 as json', async () => {
    const older = await freshDatabase();
    for (const [i, sql] of MIGRATIONS.slice(0, 4).entries()) {
      await queryDatabase(older, sql);
      if (i === 0)
        await queryDatabase(
          older,
          'CREATE TABLE flagwire_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
        );
      await queryDatabase(older, 'INSERT INTO flagwire_migrations (version) VALUES ($1)', [i + 1]);
    }
    const types = () =>
      queryDatabase(
        older,
        `SELECT table_name, column_name, data_type FROM information_schema.columns
         WHERE (table_name, column_name) IN (('flagwire_entries', 'ops'), ('flagwire_snapshots', 'data'))
         ORDER BY table_name`,
      );
    expect((await types()).map((c: Json) => c.data_type)).toEqual(['jsonb', 'jsonb']);
    const server = await start(older);
    expect((await types()).map((c: Json) => c.data_type)).toEqual(['json', 'json']);
    const res = await fetch(`${server.url}/sdk/flags`, {
      headers: { authorization: `Bearer ${KEYS.acmeProdRead}` },
    });
    expect(Object.keys(((await res.json()) as Json).flags)).toEqual(['seeded']);
  });
});
