/**
 * A history that stays small under hostile changes (`docs/protocol.md` §3.4, §10.3,
 * §12.5): a large list's change is recorded as the keys added and removed, counted, with a
 * sample, never two whole copies; an environment's history is bounded in bytes as well as in
 * entries, oldest pruned, the same after a restart. Real servers on 127.0.0.1:0, each on a
 * journal in its own temporary data directory.
 */
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { applyOp, captureScope } from '../../../server/state/domains.js';
import { recordHistory } from '../../../server/state/flags/history.js';
import { type HistoryEntry, MemoryState } from '../../../server/state/kernel/model.js';
import { adminCaller } from '../../helpers/admin.js';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';

const tempDir = () => mkdtempSync(join(tmpdir(), 'flagwire-history-'));
const HISTORY = '/environments/acme/production/history';
const KEY_COUNT = 50_000;
const ROUNDS = 20;

type Change = {
  field: string;
  from?: unknown;
  to?: unknown;
  added?: unknown[];
  removed?: unknown[];
  addedCount?: number;
  removedCount?: number;
};
type Entry = { revision: number; flag: string; action: string; changes: Change[] };

/** `global.gc`, or one made available for this process; `undefined` where neither works. */
function collector(): (() => void) | undefined {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (existing) return existing;
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  } catch {
    return undefined;
  }
}

/** The heap in use after a full collection (two, so weak references are gone too). */
function heapAfterGc(gc: () => void): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** Bytes of every file under `dir`. */
function dirBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? dirBytes(path) : statSync(path).size;
  }
  return total;
}

/** 50,000 distinct 40-character keys of one round. */
const keysOf = (round: number) =>
  Array.from({ length: KEY_COUNT }, (_, i) =>
    `r${String(round).padStart(2, '0')}-${String(i).padStart(6, '0')}`.padEnd(40, '.'),
  );

/** The history as the admin API reads it, with the bytes of its answer. */
async function readHistory(
  t: TestServer,
  query = 'limit=1000',
): Promise<{ bytes: number; entries: Entry[] }> {
  const admin = await adminCaller(t.server);
  const res = await admin.call('GET', `${HISTORY}?${query}`);
  expect(res.status).toBe(200);
  const text = await res.text();
  return { bytes: Buffer.byteLength(text), entries: JSON.parse(text) as Entry[] };
}

async function ok(res: Promise<Response>, status = 200): Promise<unknown> {
  const answer = await res;
  const body = await answer.text();
  expect(answer.status, body.slice(0, 300)).toBe(status);
  return body ? JSON.parse(body) : undefined;
}

describe('a large list replaced again and again', () => {
  it('is recorded as counts and samples; memory, disk and the history read stay small; a restart keeps it', async () => {
    const dataDir = tempDir();
    const gc = collector();
    const a = await startTestServer({ dataDir });
    let before: { bytes: number; entries: Entry[] };
    try {
      await ok(a.api('POST', '/segments', { key: 'big', included: keysOf(0) }), 201);
      const heapBefore = gc && heapAfterGc(gc);
      const started = Date.now();
      for (let round = 1; round <= ROUNDS; round++)
        await ok(a.api('PATCH', '/segments/big', { included: keysOf(round) }));
      const heapAfter = gc && heapAfterGc(gc);
      before = await readHistory(a);
      const growth = heapBefore !== undefined && heapAfter !== undefined ? heapAfter - heapBefore : undefined;
      console.log(
        `history read ${before.bytes} bytes; heap growth ${growth === undefined ? 'not measured' : `${(growth / 2 ** 20).toFixed(1)} MiB`}; ` +
          `data dir ${(dirBytes(dataDir) / 2 ** 20).toFixed(1)} MiB; ${ROUNDS} replacements in ${Date.now() - started} ms`,
      );

      const big = before.entries.filter((e) => e.flag === 'segment:big');
      expect(big).toHaveLength(ROUNDS + 1);
      expect(before.bytes).toBeLessThan(200 * 1024);
      for (const entry of big.slice(0, ROUNDS)) {
        const change = entry.changes.find((c) => c.field === 'included')!;
        expect(change).toMatchObject({ addedCount: KEY_COUNT, removedCount: KEY_COUNT });
        expect(change).not.toHaveProperty('from');
        expect(change).not.toHaveProperty('to');
        expect(change.added!.length).toBeGreaterThan(0);
        expect(change.added!.length).toBeLessThanOrEqual(20);
        expect(change.removed!.length).toBeLessThanOrEqual(20);
      }
      const newest = big[0]!.changes.find((c) => c.field === 'included')!;
      expect(newest.added![0]).toBe(keysOf(ROUNDS)[0]);
      expect(newest.removed![0]).toBe(keysOf(ROUNDS - 1)[0]);
      // The creation: every key added, none removed.
      expect(big[ROUNDS]!.changes.find((c) => c.field === 'included')).toMatchObject({
        addedCount: KEY_COUNT,
        removedCount: 0,
        removed: [],
      });
      if (growth === undefined) console.warn('no gc in this process: heap growth not asserted');
      else expect(growth).toBeLessThan(100 * 2 ** 20);
      // The journal compacts by bytes (16 MiB, server/options.ts compactAfterBytes).
      expect(dirBytes(dataDir)).toBeLessThan(64 * 2 ** 20);
    } finally {
      await a.close();
    }

    const b = await startTestServer({ dataDir });
    try {
      const fullKeys = [KEYS.acmeProdFull, KEYS.acmeProdRead, KEYS.acmeStageFull, KEYS.otherFull];
      for (const key of fullKeys) {
        await ok(b.api('GET', '/flags', undefined, key));
        await ok(fetch(`${b.server.url}/sdk/flags`, { headers: { authorization: `Bearer ${key}` } }));
      }
      const segment = (await ok(b.api('GET', '/segments/big'))) as { included: string[] };
      expect(segment.included[0]).toBe(keysOf(ROUNDS)[0]);
      expect((await readHistory(b)).entries).toEqual(before.entries);
    } finally {
      await b.close();
    }
  }, 90_000);
});

describe('the byte bound of a history', () => {
  const describeText = (i: number) => `${String(i).padStart(3, '0')} ${'d'.repeat(990)}`;

  it('prunes the oldest entries past historyBytes, live and after a restart', async () => {
    const dataDir = tempDir();
    const bound = 8 * 1024;
    const a = await startTestServer({ dataDir, historyBytes: bound } as never);
    let kept: Entry[];
    try {
      await ok(a.api('POST', '/flags', { key: 'wordy', type: 'boolean' }), 201);
      for (let i = 0; i < 30; i++) await ok(a.api('PATCH', '/flags/wordy', { description: describeText(i) }));
      kept = (await readHistory(a)).entries;
      const bytes = kept.reduce((sum, e) => sum + Buffer.byteLength(JSON.stringify(e)), 0);
      expect(bytes).toBeLessThanOrEqual(bound);
      // Each of these entries is about 2 KiB (old and new description): a few are kept, the newest.
      expect(kept.length).toBeGreaterThan(1);
      expect(kept.length).toBeLessThan(10);
      const revisions = kept.map((e) => e.revision);
      expect(revisions).toEqual([...revisions].sort((x, y) => y - x));
      const newest = kept[0]!.changes.find((c) => c.field === 'description')!;
      expect(newest.to).toBe(describeText(29));
    } finally {
      await a.close();
    }
    const b = await startTestServer({ dataDir, historyBytes: bound } as never);
    try {
      expect((await readHistory(b)).entries).toEqual(kept);
    } finally {
      await b.close();
    }
    // Restored with a smaller bound, the history is pruned to it as it loads.
    const c = await startTestServer({ dataDir, historyBytes: 3 * 1024 } as never);
    try {
      const smaller = (await readHistory(c)).entries;
      expect(smaller.length).toBeGreaterThan(0);
      expect(smaller.length).toBeLessThan(kept.length);
      expect(smaller).toEqual(kept.slice(0, smaller.length));
    } finally {
      await c.close();
    }
  });
});

describe('the running total of a history', () => {
  const entry = (revision: number): HistoryEntry => ({
    revision,
    at: new Date(0).toISOString(),
    flag: 'f',
    action: 'updated',
    changes: [{ field: 'description', from: null, to: 'x'.repeat(200) }],
    actor: { type: 'system', id: 's', name: 's' },
  });
  const stateWithEnv = () => {
    const db = new MemoryState();
    db.historyBytes = 1200;
    applyOp(db, { t: 'env', id: 'p/e', project: 'p', environment: 'e', epoch: 'x', keys: [] });
    return { db, env: db.get('p/e')! };
  };

  it('stays right when a failed commit puts the history back (snapshot.ts captureScope)', () => {
    const { db, env } = stateWithEnv();
    for (const revision of [1, 2, 3]) recordHistory(env, entry(revision), db);
    const putBack = captureScope(db, 'p/e');
    for (const revision of [4, 5, 6, 7, 8]) recordHistory(env, entry(revision), db);
    putBack();
    expect(env.history.map((e) => e.revision)).toEqual([1, 2, 3]);
    for (const revision of [9, 10]) recordHistory(env, entry(revision), db);
    // As if 4 to 8 had never been: the same as recording 1, 2, 3, 9, 10 in a fresh state.
    const fresh = stateWithEnv();
    for (const revision of [1, 2, 3, 9, 10]) recordHistory(fresh.env, entry(revision), fresh.db);
    expect(env.history.map((e) => e.revision)).toEqual(fresh.env.history.map((e) => e.revision));
    const bytes = env.history.reduce((sum, e) => sum + Buffer.byteLength(JSON.stringify(e)), 0);
    expect(bytes).toBeLessThanOrEqual(1200);
    expect(env.history.at(-1)!.revision).toBe(10);
  });
});

describe('the boundary between a whole list and a counted one', () => {
  it('keeps from/to for lists of at most 100 entries and counts longer ones, segments and targets alike', async () => {
    const t = await startTestServer({ dataDir: tempDir() });
    try {
      const keys = (n: number, prefix = 'k') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
      await ok(t.api('POST', '/segments', { key: 'small', included: ['a', 'b', 'c'] }), 201);
      await ok(t.api('PATCH', '/segments/small', { included: ['a', 'b', 'd', 'e'] }));
      await ok(t.api('PATCH', '/segments/small', { included: keys(100) }));
      await ok(t.api('PATCH', '/segments/small', { included: keys(101) }));
      await ok(
        t.api('POST', '/flags', {
          key: 'targeted',
          type: 'boolean',
          targets: [{ variant: 'on', keys: ['ann'] }],
        }),
        201,
      );
      await ok(
        t.api('PATCH', '/flags/targeted', {
          targets: [
            { variant: 'on', keys: ['ann', ...keys(80, 'on-')] },
            { variant: 'off', keys: keys(70, 'off-') },
          ],
        }),
      );
      const entries = (await readHistory(t)).entries;
      const change = (flag: string, field: string, nth: number) =>
        entries.filter((e) => e.flag === flag)[nth]!.changes.find((c) => c.field === field)!;
      // Newest first: 101 keys, 100 keys, 4 keys, the creation.
      expect(change('segment:small', 'included', 3)).toEqual({
        field: 'included',
        from: null,
        to: ['a', 'b', 'c'],
      });
      expect(change('segment:small', 'included', 2)).toEqual({
        field: 'included',
        from: ['a', 'b', 'c'],
        to: ['a', 'b', 'd', 'e'],
      });
      expect(change('segment:small', 'included', 1)).toEqual({
        field: 'included',
        from: ['a', 'b', 'd', 'e'],
        to: keys(100),
      });
      expect(change('segment:small', 'included', 0)).toEqual({
        field: 'included',
        added: ['k100'],
        removed: [],
        addedCount: 1,
        removedCount: 0,
      });
      // Targets: (variant, key) pairs, 151 of them after the change.
      const targets = change('targeted', 'targets', 0);
      expect(targets).toMatchObject({ field: 'targets', addedCount: 150, removedCount: 0, removed: [] });
      expect(targets.added).toHaveLength(20);
      expect(targets.added![0]).toEqual({ variant: 'on', key: 'on-0' });
      expect(change('targeted', 'targets', 1)).toEqual({
        field: 'targets',
        from: null,
        to: [{ variant: 'on', keys: ['ann'] }],
      });
    } finally {
      await t.close();
    }
  });
});

describe('long clause values inside rules (§12.5)', () => {
  it('a rule with 5,000 values is recorded cut to a sample with its count, and each change of its values counted', async () => {
    const t = await startTestServer({ dataDir: tempDir() });
    try {
      const values = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `u${from + i}`);
      const rule = (id: string, list: string[]) => ({
        id,
        clauses: [
          { attribute: 'country', op: 'in', values: ['nz'] },
          { attribute: 'key', op: 'in', values: list },
        ],
        serve: { variant: 'on' },
      });
      await ok(
        t.api('POST', '/flags', { key: 'big-rule', type: 'boolean', rules: [rule('r1', values(5000))] }),
        201,
      );
      // 30 removed from the front, 7 added at the end; a second, short rule added before it.
      const next = [...values(4970, 30), ...values(7, 9000)];
      await ok(
        t.api('PATCH', '/flags/big-rule', {
          rules: [
            { ...rule('r0', ['x']), clauses: [{ attribute: 'key', op: 'in', values: ['x'] }] },
            rule('r1', next),
          ],
        }),
      );
      const { bytes, entries: all } = await readHistory(t, 'limit=10');
      // Never two whole copies: the history of two 5,000-value rules reads in a few KiB.
      expect(bytes).toBeLessThan(8 * 1024);
      const entries = all.filter((e) => e.flag === 'big-rule');
      const [update, create] = entries;
      const created = create!.changes.find((c) => c.field === 'rules')!;
      expect(created.from).toBeNull();
      const createdClause = (
        created.to as Array<{ clauses: Array<{ values: string[]; valuesCount?: number }> }>
      )[0]!.clauses[1]!;
      expect(createdClause).toMatchObject({ values: values(20), valuesCount: 5000 });
      expect(create!.changes.find((c) => c.field === 'rules[0].clauses[1].values')).toMatchObject({
        addedCount: 5000,
        removedCount: 0,
      });
      // The update: rule r1 is now at position 1; its values counted, the short rule kept whole.
      const rules = update!.changes.find((c) => c.field === 'rules')!;
      expect((rules.to as Array<{ id: string; clauses: unknown[] }>)[0]).toMatchObject({
        id: 'r0',
        clauses: [{ values: ['x'] }],
      });
      expect(
        (rules.to as Array<{ clauses: Array<{ valuesCount?: number }> }>)[1]!.clauses[1]!.valuesCount,
      ).toBe(4977);
      const counted = update!.changes.find((c) => c.field === 'rules[1].clauses[1].values')!;
      expect(counted).toEqual({
        field: 'rules[1].clauses[1].values',
        added: values(7, 9000),
        removed: values(20),
        addedCount: 7,
        removedCount: 30,
      });
      // The short clause that did not change is not counted.
      expect(update!.changes.filter((c) => c.field.startsWith('rules['))).toHaveLength(1);
    } finally {
      await t.close();
    }
  });
});

describe('the stream resume buffer is bounded in bytes (§5.3)', () => {
  it('large segment changes push the oldest frames out; a client further behind gets a full sync', async () => {
    const { SdkView } = await import('../../../server/stream/sdk-view.js');
    const env = { epoch: 'e', revision: 0, flags: new Map(), segments: new Map() } as never;
    const view = new SdkView(env, 1000, 4 * 1024 * 1024);
    const keys = (round: number) =>
      Array.from({ length: 20_000 }, (_, i) => `${round}-${i}-${'k'.repeat(30)}`);
    for (let revision = 1; revision <= 10; revision++) {
      const segment = {
        key: 's',
        description: null,
        included: keys(revision),
        excluded: [],
        rules: [],
        version: revision,
        createdAt: '',
        updatedAt: '',
      };
      view.apply({ revision, segment: { before: undefined, after: segment } } as never);
    }
    // Each frame is about 0.9 MB: four fit in 4 MiB, so a client at revision 5 resumes...
    expect(view.framesSince('e:5', true)?.length).toBe(5);
    expect(view.framesSince('e:9', true)?.length).toBe(1);
    // ...and one at revision 2 is too far behind: it gets a full sync, as past the count.
    expect(view.framesSince('e:2', true)).toBeUndefined();
    const kept = view.framesSince('e:5', true)!.reduce((n, frame) => n + frame.length, 0);
    expect(kept).toBeLessThanOrEqual(4 * 1024 * 1024);
    // SDKs without the capability got a small marker per revision: their history keeps them all.
    expect(view.framesSince('e:0', false)?.length).toBe(10);
  });
});
