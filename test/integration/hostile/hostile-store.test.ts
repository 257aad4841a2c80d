/**
 * Hostile suite, the store (`docs/protocol.md` §7.3): a change the store cannot write
 * is refused before anything reaches memory or is acknowledged, on the journal and on Postgres;
 * an environment that cannot be written to a snapshot leaves the others serving and the journal
 * whole; the snapshot is written and read as one line per environment (no string of the whole
 * state), and a snapshot of the earlier format still loads.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { StorageRefusedError } from '../../../server/store/errors.js';
import { createFileStorage } from '../../../server/store/file-storage.js';
import { createPostgresStorage } from '../../../server/store/postgres/storage.js';
import type { Memory, Storage } from '../../../server/store/storage.js';
import { createDatabaseAt } from '../../helpers/postgres.js';
import { startTestServer } from '../../helpers/server.js';

type Op = { env: string; value: unknown };

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'flagwire-hostile-store-'));
  dirs.push(dir);
  return dir;
}

/** A journal store in `dir`, compacting after `entries` entries. */
const journal = (dir: string, entries = 1000, warn: (message: string) => void = () => {}) =>
  createFileStorage<Op>({ dir, compactAfterEntries: entries, compactAfterBytes: 1 << 30, warn });

/** A memory of ops by environment, whose snapshot is `{envs: [{id, project, environment, ops}]}`. */
function recordingMemory(): Memory<Op> & { applied: Op[] } {
  const applied: Op[] = [];
  return {
    applied,
    apply(ops) {
      applied.push(...ops);
      return () => {};
    },
    capture: () => () => {},
    snapshot: () => {
      const envs = new Map<string, Op[]>();
      for (const op of applied) envs.set(op.env, [...(envs.get(op.env) ?? []), op]);
      return {
        envs: [...envs].map(([id, ops]) => ({ id, project: 'p', environment: id, ops })),
        adminToken: 'x',
      };
    },
  };
}

/** A value `JSON.stringify` cannot write. */
const unwritable = (): unknown => ({ n: 1n });

async function refusesBeforeMemory(storage: Storage<Op>, memory: ReturnType<typeof recordingMemory>) {
  await storage.commit('a', () => [{ env: 'a', value: 1 }]);
  const refused = await storage
    .commit('a', () => [{ env: 'a', value: unwritable() }])
    .catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(StorageRefusedError);
  expect((refused as Error).message).toMatch(/^the change cannot be stored/);
  expect(memory.applied.map((op) => op.value)).toEqual([1]);
  // The store goes on.
  await storage.commit('a', () => [{ env: 'a', value: 2 }]);
  expect(memory.applied.map((op) => op.value)).toEqual([1, 2]);
}

describe('a change the store cannot write (§7.3)', () => {
  it('is refused by the journal before memory, and the journal goes on', async () => {
    const dir = await tempDir();
    const storage = journal(dir);
    await storage.load();
    const memory = recordingMemory();
    storage.attach(memory);
    await refusesBeforeMemory(storage, memory);
    await storage.close();
    const again = journal(dir);
    const loaded = await again.load();
    const replayed = [
      ...loaded.snapshots.flatMap((s) =>
        (s.data as { envs: Array<{ ops: Op[] }> }).envs.flatMap((e) => e.ops),
      ),
      ...loaded.entries.flat(),
    ];
    expect(replayed.map((op) => op.value)).toEqual([1, 2]);
    await again.close();
  });

  it('is refused by Postgres before memory, and the store goes on', async () => {
    const url = await createDatabaseAt(inject('postgres').url);
    const storage = await createPostgresStorage<Op>({
      url,
      connectTimeoutMs: 10_000,
      poolSize: 2,
      catchUpIntervalMs: 5000,
      compactAfterEntries: 1000,
      warn: () => {},
    });
    await storage.load();
    const memory = recordingMemory();
    storage.attach(memory);
    try {
      await refusesBeforeMemory(storage, memory);
    } finally {
      await storage.close();
    }
  });

  it('through the API: an unwritable write answers 400, not 500, and the environment serves', async () => {
    const t = await startTestServer({ memory: true });
    try {
      // A flag whose description the journal could not write is not reachable through JSON
      // bodies; the answer's mapping is checked with the store's own error.
      const { asApiError } = await import('../../../server/http/app.js');
      const { ApiError } = await import('../../../server/errors.js');
      const mapped = asApiError(new StorageRefusedError('the change cannot be stored: x'));
      expect(mapped).toBeInstanceOf(ApiError);
      expect(mapped).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
      expect((await t.api('GET', '/flags')).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('snapshots (§7.3)', () => {
  it('are one line per environment, read back as they were written', async () => {
    const dir = await tempDir();
    const storage = journal(dir, 3);
    await storage.load();
    const memory = recordingMemory();
    storage.attach(memory);
    for (const env of ['a', 'b', 'c']) await storage.commit(env, () => [{ env, value: env.repeat(1000) }]);
    await storage.close();
    const lines = (await readFile(join(dir, 'snapshot.json'), 'utf8')).split('\n').filter(Boolean);
    expect(JSON.parse(lines[0]!)).toEqual({ format: 2, seq: 3 });
    expect(lines.slice(1, 4).map((l) => (JSON.parse(l) as { env: { id: string } }).env.id)).toEqual([
      'a',
      'b',
      'c',
    ]);
    expect(JSON.parse(lines[4]!)).toEqual({ shared: { adminToken: 'x' } });
    const again = journal(dir, 3);
    const loaded = await again.load();
    expect(loaded.snapshots[0]!.data).toEqual(memory.snapshot());
    await again.close();
  });

  it('an environment that cannot be written leaves the journal whole and the store serving, and the log names it', async () => {
    const dir = await tempDir();
    const warnings: string[] = [];
    const storage = journal(dir, 2, (m) => warnings.push(m));
    await storage.load();
    const memory = recordingMemory();
    const snapshot = memory.snapshot;
    // Environment "bad" holds what a snapshot cannot write (as a value past the string limit would).
    memory.snapshot = () => {
      const data = snapshot() as { envs: Array<{ id: string; ops: unknown[] }> };
      for (const env of data.envs) if (env.id === 'bad') env.ops.push(unwritable());
      return data;
    };
    storage.attach(memory);
    await storage.commit('good', () => [{ env: 'good', value: 1 }]);
    await storage.commit('bad', () => [{ env: 'bad', value: 2 }]);
    await storage.commit('good', () => [{ env: 'good', value: 3 }]);
    await storage.commit('good', () => [{ env: 'good', value: 4 }]);
    expect(warnings.some((w) => /environment p\/bad \(bad\) cannot be written to a snapshot/.test(w))).toBe(
      true,
    );
    expect(warnings.some((w) => /journal keeps every entry/.test(w))).toBe(true);
    // Commits go on: the store did not fail.
    await storage.commit('good', () => [{ env: 'good', value: 5 }]);
    await storage.close();
    const again = journal(dir);
    const loaded = await again.load();
    expect(loaded.snapshots).toEqual([]);
    expect(loaded.entries.flat().map((op) => op.value)).toEqual([1, 2, 3, 4, 5]);
    await again.close();
  });

  it('a snapshot of the earlier format (one JSON document) still loads', async () => {
    const dir = await tempDir();
    const data = { envs: [{ id: 'a', project: 'p', environment: 'a', ops: [] }] };
    await writeFile(join(dir, 'snapshot.json'), JSON.stringify({ format: 1, seq: 7, data }));
    const storage = journal(dir);
    const loaded = await storage.load();
    expect(loaded.snapshots[0]!.data).toEqual(data);
    await storage.close();
  });
});
