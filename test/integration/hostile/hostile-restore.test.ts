/**
 * Hostile suite, start-up (`docs/protocol.md` §7.3): stored data of one environment that
 * cannot be restored (an unreadable snapshot line, a snapshot of the wrong shape, a journal entry
 * that cannot be applied) leaves that environment answering
 * `503 UNAVAILABLE` (its keys are still known: SDKs keep last-known values and retry, not treat it
 * as a revoked key) while the other environments serve and take writes; the log names the
 * environment and the reason; nothing of it is lost: once its data reads again, it serves again,
 * with the other environments' writes made meanwhile.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { restoreState } from '../../../server/state/domains.js';
import { createDatabaseAt } from '../../helpers/postgres.js';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

const STAGING = 'acme/staging';

/** A data directory where `acme/staging` and `acme/production` each hold a flag, compacted. */
async function dataDirWithFlags(): Promise<string> {
  const dataDir = await mkdtemp(join(tmpdir(), 'flagwire-hostile-restore-'));
  dirs.push(dataDir);
  const t = await startTestServer({ dataDir });
  const flag = (key: string) => ({ key, type: 'boolean', enabled: true });
  expect((await t.api('POST', '/flags', flag('stage-flag'), KEYS.acmeStageFull)).status).toBe(201);
  expect((await t.api('POST', '/flags', flag('prod-flag'))).status).toBe(201);
  await t.close(); // compacts: every environment is one line of snapshot.json
  return dataDir;
}

const snapshotPath = (dir: string) => join(dir, 'snapshot.json');

/** Rewrites the snapshot line of environment `id` with `edit` (given and answering the line). */
async function editEnvLine(dir: string, id: string, edit: (line: string) => string): Promise<string> {
  const lines = (await readFile(snapshotPath(dir), 'utf8')).split('\n');
  const index = lines.findIndex((l) => l.startsWith(`{"env":{"id":${JSON.stringify(id)}`));
  expect(index).toBeGreaterThan(0);
  const original = lines[index]!;
  lines[index] = edit(original);
  await writeFile(snapshotPath(dir), lines.join('\n'));
  return original;
}

/** Edits the environment object of `id`'s snapshot line. */
const editEnv = (dir: string, id: string, edit: (env: Record<string, unknown>) => void) =>
  editEnvLine(dir, id, (line) => {
    const piece = JSON.parse(line) as { env: Record<string, unknown> };
    edit(piece.env);
    return JSON.stringify(piece);
  });

/** A server on `dataDir` whose error log is kept. */
async function restart(dataDir: string): Promise<{ t: TestServer; errors: string[] }> {
  const errors: string[] = [];
  const t = await startTestServer({
    dataDir,
    logger: { info() {}, warn() {}, error: (message) => void errors.push(message) },
  });
  return { t, errors };
}

const sdkFlags = (t: TestServer, key: string) =>
  fetch(`${t.server.url}/sdk/flags`, { headers: { authorization: `Bearer ${key}` } });

/** The environment's keys answer 503 with a reason (SDK, management, OFREP); the others serve. */
async function expectIsolated(t: TestServer, errors: string[], reason: RegExp) {
  expect(errors.filter((e) => e.includes(STAGING))).toEqual([
    expect.stringMatching(
      new RegExp(`environment ${STAGING} \\(${STAGING}\\) could not be restored: ${reason.source}`),
    ),
  ]);
  const sdk = await sdkFlags(t, KEYS.acmeStageFull);
  expect(sdk.status).toBe(503);
  expect(sdk.headers.get('retry-after')).toBe('30');
  expect(await sdk.json()).toEqual({
    error: 'UNAVAILABLE',
    message: expect.stringMatching(/^environment acme\/staging could not be restored/),
  });
  expect((await t.api('GET', '/flags', undefined, KEYS.acmeStageFull)).status).toBe(503);
  const write = await t.api('POST', '/flags', { key: 'new', type: 'boolean' }, KEYS.acmeStageFull);
  expect(write.status).toBe(503);
  const ofrep = await fetch(`${t.server.url}/ofrep/v1/evaluate/flags`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEYS.acmeStageFull}`, 'content-type': 'application/json' },
    body: JSON.stringify({ context: { targetingKey: 'u' } }),
  });
  expect(ofrep.status).toBe(503);
  expect(await ofrep.json()).toMatchObject({ errorCode: 'GENERAL' });
  const manifest = await fetch(`${t.server.url}/openfeature/v0/manifest`, {
    headers: { authorization: `Bearer ${KEYS.acmeStageFull}` },
  });
  expect(manifest.status).toBe(503);
  // The other environments serve, and take writes.
  const prod = await sdkFlags(t, KEYS.acmeProdRead);
  expect(prod.status).toBe(200);
  expect(Object.keys(((await prod.json()) as { flags: object }).flags)).toContain('prod-flag');
  expect((await t.api('POST', '/flags', { key: 'meanwhile', type: 'boolean' })).status).toBe(201);
  expect((await sdkFlags(t, KEYS.otherFull)).status).toBe(200);
}

/** Once its data reads again, the environment serves its flag, and the others' writes are there. */
async function expectWholeAfterRepair(dataDir: string) {
  const { t, errors } = await restart(dataDir);
  try {
    expect(errors).toEqual([]);
    const stage = await sdkFlags(t, KEYS.acmeStageFull);
    expect(stage.status).toBe(200);
    expect(Object.keys(((await stage.json()) as { flags: object }).flags)).toEqual(['stage-flag']);
    const prod = (await (await sdkFlags(t, KEYS.acmeProdRead)).json()) as { flags: object };
    expect(Object.keys(prod.flags).sort()).toEqual(['meanwhile', 'prod-flag', 'seeded']);
  } finally {
    await t.close();
  }
}

describe('an environment whose stored data cannot be restored (§7.3)', () => {
  it('an unreadable snapshot line: that environment answers 503, the others serve, and nothing is lost', async () => {
    const dataDir = await dataDirWithFlags();
    const original = await editEnvLine(dataDir, STAGING, (line) => line.slice(0, line.length - 40));
    const { t, errors } = await restart(dataDir);
    try {
      await expectIsolated(t, errors, /its snapshot line cannot be read/);
    } finally {
      await t.close();
    }
    // The snapshot waited (its line is as it was) and the journal kept the others' writes.
    const kept = (await readFile(snapshotPath(dataDir), 'utf8')).split('\n');
    expect(kept.some((l) => l === original.slice(0, original.length - 40))).toBe(true);
    expect(await readFile(join(dataDir, 'journal.jsonl'), 'utf8')).toContain('"meanwhile"');
    await editEnvLine(dataDir, STAGING, () => original);
    await expectWholeAfterRepair(dataDir);
  });

  it('a snapshot of the wrong shape: the log says which field', async () => {
    const dataDir = await dataDirWithFlags();
    let flags: unknown;
    await editEnv(dataDir, STAGING, (env) => {
      flags = env.flags;
      env.flags = 'not a list';
    });
    const { t, errors } = await restart(dataDir);
    try {
      await expectIsolated(t, errors, /its snapshot does not hold an environment: its "flags" is not a list/);
    } finally {
      await t.close();
    }
    await editEnv(dataDir, STAGING, (env) => {
      env.flags = flags;
    });
    await expectWholeAfterRepair(dataDir);
  });

  it('a journal entry that cannot be applied: later entries of that environment wait with it', async () => {
    const dataDir = await dataDirWithFlags();
    const journal = join(dataDir, 'journal.jsonl');
    const seq = JSON.parse((await readFile(snapshotPath(dataDir), 'utf8')).split('\n')[0]!).seq as number;
    const broken = { s: seq + 1, o: [{ t: 'flag', env: STAGING, rev: 99, flag: null }] };
    await writeFile(journal, `${JSON.stringify(broken)}\n`);
    const { t, errors } = await restart(dataDir);
    try {
      await expectIsolated(t, errors, /an entry of its journal cannot be applied/);
    } finally {
      await t.close();
    }
  });

  it('on Postgres: an entry of one environment that cannot be applied leaves the others serving', async () => {
    const databaseUrl = await createDatabaseAt(inject('postgres').url);
    const first = await startTestServer({ databaseUrl });
    expect((await first.api('POST', '/flags', { key: 'prod-flag', type: 'boolean' })).status).toBe(201);
    await first.close();
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query(
        `INSERT INTO flagwire_entries (scope, seq, ops)
         SELECT $1, seq + 1, $2 FROM flagwire_scopes WHERE scope = $1`,
        [STAGING, JSON.stringify([{ t: 'flag', env: STAGING, rev: 99, flag: null }])],
      );
      await client.query('UPDATE flagwire_scopes SET seq = seq + 1 WHERE scope = $1', [STAGING]);
    } finally {
      await client.end();
    }
    const errors: string[] = [];
    const t = await startTestServer({
      databaseUrl,
      logger: { info() {}, warn() {}, error: (message) => void errors.push(message) },
    });
    try {
      await expectIsolated(t, errors, /an entry of its journal cannot be applied/);
    } finally {
      await t.close();
    }
  });

  it('a failure of what spans environments still stops the start, saying so', () => {
    const loaded = {
      snapshots: [],
      entries: [[{ t: 'project', project: null } as never]],
    };
    expect(() => restoreState(loaded, 100)).toThrow();
  });
});
