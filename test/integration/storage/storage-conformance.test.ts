/**
 * One storage protocol, tested once, for every store (`docs/architecture.md`, "One write
 * protocol"; `server/store/storage.ts`). The same promises are checked the same way on the
 * memory store, the journal (in a temporary directory) and Postgres (the run's real one,
 * test/helpers/postgres-setup.ts, a fresh database per test):
 *
 * - a committed plan reaches memory through the applier and is published by the time `commit`
 *   resolves; `[]` commits nothing; a throw commits nothing and reaches the caller;
 * - commits of one scope are serialized: each plan sees the previous one's result;
 * - `readSettled` sees every commit acknowledged before it was called, and answers nothing that
 *   is not durable yet;
 * - what was committed survives `close()` and a new storage on the same place (durable stores);
 * - leases: one holder at a time, renewal, `unlease`, expiry;
 * - `close()` is idempotent, and a commit after it fails saying the store is closed.
 *
 * A promise a store does not keep yet is listed in its `gaps` and run as `it.fails`, so the
 * run stays green and the marker must go once the store is fixed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { Applier, type Op, restoreState } from '../../../server/state/domains.js';
import type { FlagCommit } from '../../../server/state/flags/ops.js';
import type { MemoryState, StoredFlag } from '../../../server/state/kernel/model.js';
import { createFileStorage } from '../../../server/store/file-storage.js';
import { createMemoryStorage } from '../../../server/store/memory-storage.js';
import { createPostgresStorage } from '../../../server/store/postgres/storage.js';
import type { Memory, Storage } from '../../../server/store/storage.js';
import { createDatabaseAt, queryDatabase } from '../../helpers/postgres.js';

// ---------------------------------------------------------------- the stores

/** Promises of the protocol a store does not keep yet (run as `it.fails` on that store). */
type Gap = 'renew-lease' | 'commit-after-close';

interface StoreKind {
  name: 'memory' | 'journal' | 'postgres';
  /** What is committed survives `close()` and a new storage on the same place. */
  durable: boolean;
  /** Several instances share one place (leases exclude one another). */
  shared: boolean;
  /** A new, empty place to keep data in. */
  place(): Promise<string>;
  /** A storage on `place`, not loaded yet. */
  create(place: string, warn: (message: string) => void): Storage<Op> | Promise<Storage<Op>>;
  /** Lets the lease `name`'s time run out (shared stores). */
  expire?(place: string, name: string): Promise<void>;
  gaps: ReadonlySet<Gap>;
}

const dirs: string[] = [];

const STORES: StoreKind[] = [
  {
    name: 'memory',
    durable: false,
    shared: false,
    place: async () => 'memory',
    create: () => createMemoryStorage<Op>(),
    // Its close() does nothing: a commit after it is made as before.
    gaps: new Set<Gap>(),
  },
  {
    name: 'journal',
    durable: true,
    shared: false,
    async place() {
      const dir = await mkdtemp(join(tmpdir(), 'flagwire-conformance-'));
      dirs.push(dir);
      return dir;
    },
    // Small thresholds, so compaction runs in the middle of the tests' commits.
    create: (dir, warn) =>
      createFileStorage<Op>({ dir, compactAfterEntries: 4, compactAfterBytes: 1 << 20, warn }),
    gaps: new Set<Gap>(),
  },
  {
    name: 'postgres',
    durable: true,
    shared: true,
    place: () => createDatabaseAt(inject('postgres').url),
    create: (url, warn) =>
      createPostgresStorage<Op>({
        url,
        connectTimeoutMs: 10_000,
        poolSize: 4,
        // The safety net stays out of the way: what the tests see comes from the protocol itself.
        catchUpIntervalMs: 600_000,
        compactAfterEntries: 4,
        warn,
      }),
    // Nothing but the lease's own row says when it runs out: the test moves that time.
    async expire(url, name) {
      await queryDatabase(
        url,
        "UPDATE flagwire_leases SET until = now() - interval '1 second' WHERE name = $1",
        [name],
      );
    },
    // takeLease only takes over an expired lease, whoever holds it; after close(), the ended pool
    // answers StorageUnavailableError ("retry shortly"), which never comes true.
    gaps: new Set<Gap>(),
  },
];

afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

// ---------------------------------------------------------------- an opened storage

/** A storage opened as the server opens it: loaded, memory rebuilt, the applier attached. */
interface Opened {
  storage: Storage<Op>;
  db: MemoryState;
  /** Every entry that reached memory through `Memory.apply`, in order. */
  applied: Op[][];
  /** Flag changes the applier published (once durable), in order. */
  changes: FlagCommit[];
  /** Every op the applier published, in order. */
  published: Op[];
  warnings: string[];
}

const opened: Opened[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((o) => o.storage.close()));
});

async function open(kind: StoreKind, place: string): Promise<Opened> {
  const warnings: string[] = [];
  const storage = await kind.create(place, (message) => warnings.push(message));
  const db = restoreState(await storage.load(), 10_000);
  const applier = new Applier(db, (error) => {
    throw error;
  });
  const o: Opened = { storage, db, applied: [], changes: [], published: [], warnings };
  applier.onChange((change) => o.changes.push(change));
  applier.onCommitted((op) => o.published.push(op));
  // The applier itself, seen from outside: which entries the storage hands it.
  const memory: Memory<Op> = {
    apply(ops) {
      o.applied.push([...ops]);
      return applier.apply(ops);
    },
    capture: (scope) => applier.capture(scope),
    snapshot: (scope) => applier.snapshot(scope),
  };
  storage.attach(memory);
  opened.push(o);
  return o;
}

// ---------------------------------------------------------------- ops

const ENV = 'acme/production';
const OTHER = 'acme/staging';

function envOp(id: string): Op {
  const [project, environment] = id.split('/') as [string, string];
  return {
    t: 'env',
    id,
    project,
    environment,
    epoch: `epoch-${environment}`,
    keys: [],
    source: 'config',
    createdAt: '2024-01-01T00:00:00.000Z',
  };
}

function storedFlag(key: string, rev: number, description: string | null = null): StoredFlag {
  const at = new Date(Date.UTC(2024, 0, 1, 0, 0, rev)).toISOString();
  return {
    key,
    type: 'boolean',
    enabled: rev % 2 === 1,
    description,
    version: rev,
    createdAt: at,
    updatedAt: at,
  };
}

/** The op that sets flag `key` at revision `rev`. */
const flagOp = (env: string, rev: number, key: string, description: string | null = null): Op => ({
  t: 'flag',
  env,
  rev,
  flag: storedFlag(key, rev, description),
  by: { type: 'adminToken', id: 'admin-token', name: 'admin token' },
});

/** Creates environment `id` (its scope is its id). */
async function createEnv(o: Opened, id = ENV): Promise<void> {
  await o.storage.commit(id, () => [envOp(id)]);
}

/**
 * A plan that increments the environment's revision, deciding against memory as it finds it:
 * flag `counter` at the revision after the current one. Records the revision it saw.
 */
function increment(o: Opened, seen: number[], id = ENV): () => Op[] {
  return () => {
    const env = o.db.get(id)!;
    seen.push(env.revision);
    return [flagOp(id, env.revision + 1, 'counter', `by ${seen.length}`)];
  };
}

const revisionOf = (o: Opened, id = ENV): number => o.db.get(id)?.revision ?? 0;
const historyRevisions = (o: Opened, id = ENV): number[] =>
  o.db.get(id)?.history.map((h) => h.revision) ?? [];
const range = (from: number, to: number): number[] =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** What a reload must give back, in a form where Map order does not matter. */
function view(db: MemoryState) {
  const sortBy = <T>(items: Iterable<T>, key: (x: T) => string) =>
    [...items].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  return {
    envs: sortBy(db.values(), (e) => e.id).map((e) => ({
      id: e.id,
      epoch: e.epoch,
      revision: e.revision,
      source: e.source,
      flags: sortBy(e.flags.values(), (f) => f.key),
      history: e.history,
    })),
    projects: sortBy(db.projects.values(), (p) => p.key),
    adminToken: db.adminToken,
  };
}

/** `it`, or `it.fails` where the store has the gap. */
const itUnless = (kind: StoreKind, gap: Gap) => (kind.gaps.has(gap) ? it.fails : it);

// ---------------------------------------------------------------- the promises

describe.each(STORES)('storage protocol on $name', (kind) => {
  it('applies a committed plan to memory through the applier, visible and published once commit resolves', async () => {
    const o = await open(kind, await kind.place());
    const plans: string[] = [];
    await o.storage.commit(ENV, () => {
      plans.push('env');
      return [envOp(ENV)];
    });
    expect(o.db.get(ENV)?.epoch).toBe('epoch-production');

    const op = flagOp(ENV, 1, 'checkout');
    await o.storage.commit(ENV, () => {
      plans.push('flag');
      return [op];
    });
    // Each plan ran once; each entry reached memory once, whole, in commit order.
    expect(plans).toEqual(['env', 'flag']);
    expect(o.applied).toEqual([[envOp(ENV)], [op]]);
    expect(o.db.get(ENV)!.flags.get('checkout')).toEqual(op.t === 'flag' && op.flag);
    expect(revisionOf(o)).toBe(1);
    // Published, once durable, before the commit was answered.
    expect(o.changes.map((c) => [c.env.id, c.revision, c.after?.key])).toEqual([[ENV, 1, 'checkout']]);
    expect(o.published).toEqual([envOp(ENV), op]);

    // The scope of what spans environments, and an entry of several ops.
    const project: Op = { t: 'project', project: { key: 'beta', createdAt: '2024-02-01T00:00:00.000Z' } };
    const admin: Op = { t: 'admin', token: 'fw_admin_conformance' };
    await o.storage.commit('', () => [project, admin]);
    expect(o.db.projects.get('beta')?.createdAt).toBe('2024-02-01T00:00:00.000Z');
    expect(o.db.adminToken).toBe('fw_admin_conformance');
    expect(o.applied.at(-1)).toEqual([project, admin]);
    expect(o.published.slice(-2)).toEqual([project, admin]);

    // Nothing is applied twice, later either (a shared store hears of its own commits too).
    await o.storage.readSettled(ENV, () => undefined);
    await o.storage.readSettled('', () => undefined);
    expect(o.applied).toHaveLength(3);
    expect(o.warnings).toEqual([]);
  });

  it('commits nothing for a plan that answers []', async () => {
    const o = await open(kind, await kind.place());
    await createEnv(o);
    const before = o.applied.length;
    let ran = 0;
    await expect(
      o.storage.commit(ENV, () => {
        ran += 1;
        return [];
      }),
    ).resolves.toBeUndefined();
    expect(ran).toBe(1);
    expect(o.applied).toHaveLength(before);
    expect(o.published).toEqual([envOp(ENV)]);
    // The next revision is still the first.
    await o.storage.commit(ENV, () => [flagOp(ENV, revisionOf(o) + 1, 'a')]);
    expect(revisionOf(o)).toBe(1);
  });

  it('serializes the commits of one scope: concurrent increments land as consecutive revisions', async () => {
    const o = await open(kind, await kind.place());
    await createEnv(o);
    const N = 24;
    const seen: number[] = [];
    await Promise.all(Array.from({ length: N }, () => o.storage.commit(ENV, increment(o, seen))));
    // Every plan saw the one before it: N distinct revisions 0..N-1 seen, 1..N committed.
    expect([...seen].sort((a, b) => a - b)).toEqual(range(0, N - 1));
    expect(revisionOf(o)).toBe(N);
    expect(historyRevisions(o)).toEqual(range(1, N));
    expect(o.changes.map((c) => c.revision)).toEqual(range(1, N));
    const settled = await o.storage.readSettled(ENV, () => revisionOf(o));
    expect(settled).toBe(N);
  });

  it('serializes each scope on its own: two scopes committed concurrently both count up without gaps', async () => {
    const o = await open(kind, await kind.place());
    await Promise.all([createEnv(o, ENV), createEnv(o, OTHER)]);
    const seenA: number[] = [];
    const seenB: number[] = [];
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        i % 2 === 0
          ? o.storage.commit(ENV, increment(o, seenA))
          : o.storage.commit(OTHER, increment(o, seenB, OTHER)),
      ),
    );
    expect(historyRevisions(o, ENV)).toEqual(range(1, 5));
    expect(historyRevisions(o, OTHER)).toEqual(range(1, 5));
    expect([...seenA].sort()).toEqual(range(0, 4));
    expect([...seenB].sort()).toEqual(range(0, 4));
  });

  it('commits nothing for a plan that throws, and rejects the commit with that very error', async () => {
    const o = await open(kind, await kind.place());
    await createEnv(o);
    await o.storage.commit(ENV, () => [flagOp(ENV, 1, 'kept')]);
    const appliedBefore = o.applied.length;
    const publishedBefore = o.published.length;
    const refusal = new Error('refused by the plan');
    await expect(
      o.storage.commit(ENV, () => {
        // Decided against memory, then refused: the ops it would have made must go nowhere.
        void flagOp(ENV, revisionOf(o) + 1, 'refused');
        throw refusal;
      }),
    ).rejects.toBe(refusal);
    expect(o.applied).toHaveLength(appliedBefore);
    expect(o.published).toHaveLength(publishedBefore);
    expect(o.db.get(ENV)!.flags.has('refused')).toBe(false);
    expect(revisionOf(o)).toBe(1);
    // The store goes on: the next commit takes the next revision.
    await o.storage.commit(ENV, () => [flagOp(ENV, revisionOf(o) + 1, 'after')]);
    expect(historyRevisions(o)).toEqual([1, 2]);
    expect(await o.storage.readSettled(ENV, () => [...o.db.get(ENV)!.flags.keys()].sort())).toEqual([
      'after',
      'kept',
    ]);
  });

  it('refuses only the throwing plan among concurrent commits of its scope', async () => {
    const o = await open(kind, await kind.place());
    await createEnv(o);
    const seen: number[] = [];
    const refusal = new Error('the third refuses');
    const results = await Promise.allSettled([
      o.storage.commit(ENV, increment(o, seen)),
      o.storage.commit(ENV, increment(o, seen)),
      o.storage.commit(ENV, () => {
        throw refusal;
      }),
      o.storage.commit(ENV, increment(o, seen)),
      o.storage.commit(ENV, () => []),
      o.storage.commit(ENV, increment(o, seen)),
    ]);
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    expect((results[2] as PromiseRejectedResult).reason).toBe(refusal);
    expect(historyRevisions(o)).toEqual([1, 2, 3, 4]);
    expect(await o.storage.readSettled(ENV, () => revisionOf(o))).toBe(4);
  });

  it('readSettled sees every commit acknowledged before it was called, in its scope, in "" and with null', async () => {
    const o = await open(kind, await kind.place());
    await createEnv(o);
    for (let rev = 1; rev <= 3; rev += 1) await o.storage.commit(ENV, () => [flagOp(ENV, rev, `f${rev}`)]);
    await o.storage.commit('', () => [
      { t: 'project', project: { key: 'settled', createdAt: '2024-03-01T00:00:00.000Z' } },
    ]);
    expect(await o.storage.readSettled(ENV, () => [revisionOf(o), o.db.get(ENV)!.flags.size])).toEqual([
      3, 3,
    ]);
    expect(await o.storage.readSettled('', () => o.db.projects.has('settled'))).toBe(true);
    expect(
      await o.storage.readSettled(null, () => [revisionOf(o), o.db.projects.has('settled')] as const),
    ).toEqual([3, true]);
  });

  it('readSettled answers nothing that is not durable yet: all it saw was published first', async () => {
    const o = await open(kind, await kind.place());
    await createEnv(o);
    const seen: number[] = [];
    // Commits under way when the read is asked for: it may see some of them, but answers only
    // once those are durable (the applier publishes an entry once it is).
    const commits = Array.from({ length: 6 }, () => o.storage.commit(ENV, increment(o, seen)));
    const reads = [
      o.storage.readSettled(ENV, () => revisionOf(o)).then((rev) => ({ rev, published: o.changes.length })),
      o.storage.readSettled(null, () => revisionOf(o)).then((rev) => ({ rev, published: o.changes.length })),
    ];
    for (const { rev, published } of await Promise.all(reads)) expect(published).toBeGreaterThanOrEqual(rev);
    await Promise.all(commits);
    // And once they are acknowledged, a read sees them all.
    expect(await o.storage.readSettled(ENV, () => revisionOf(o))).toBe(6);
  });

  it.skipIf(!kind.durable)(
    'restores exactly the committed state on load() after close() and reopen',
    async () => {
      // (The memory store keeps nothing by design: nothing to restore.)
      const place = await kind.place();
      const first = await open(kind, place);
      await Promise.all([createEnv(first, ENV), createEnv(first, OTHER)]);
      const seen: number[] = [];
      // Enough entries that both stores compact on the way (compactAfterEntries: 4).
      await Promise.all(Array.from({ length: 9 }, () => first.storage.commit(ENV, increment(first, seen))));
      await first.storage.commit(OTHER, () => [flagOp(OTHER, 1, 'other')]);
      await first.storage.commit(ENV, () => [
        { t: 'flag-del', env: ENV, rev: 10, key: 'counter', at: '2024-05-01T00:00:00.000Z' },
      ]);
      await first.storage.commit('', () => [
        { t: 'project', project: { key: 'kept', createdAt: '2024-04-01T00:00:00.000Z' } },
        { t: 'admin', token: 'fw_admin_kept' },
      ]);
      await expect(
        first.storage.commit(ENV, () => {
          throw new Error('never committed');
        }),
      ).rejects.toThrow('never committed');
      await first.storage.commit(ENV, () => []);
      const committed = view(first.db);
      await first.storage.close();

      const second = await open(kind, place);
      expect(view(second.db)).toEqual(committed);
      expect(revisionOf(second)).toBe(10);
      expect(second.db.get(ENV)!.flags.has('counter')).toBe(false);
      // Loading is not applying: entries already in the loaded state are not applied again.
      expect(second.applied).toEqual([]);
      // It goes on where the first left off.
      await second.storage.commit(ENV, () => [flagOp(ENV, revisionOf(second) + 1, 'next')]);
      expect(historyRevisions(second).slice(-2)).toEqual([10, 11]);
      await second.storage.close();
      const third = await open(kind, place);
      expect(revisionOf(third)).toBe(11);
      expect(third.db.get(ENV)!.flags.get('next')?.version).toBe(11);
      expect([...first.warnings, ...second.warnings, ...third.warnings]).toEqual([]);
    },
  );

  it.skipIf(!kind.durable)(
    'close() lets a commit under way finish: it resolves and survives reopen',
    async () => {
      const place = await kind.place();
      const first = await open(kind, place);
      await createEnv(first);
      const underWay = first.storage.commit(ENV, () => [flagOp(ENV, 1, 'in-flight')]);
      const closed = first.storage.close();
      await expect(underWay).resolves.toBeUndefined();
      await closed;
      const second = await open(kind, place);
      expect(second.db.get(ENV)!.flags.get('in-flight')?.version).toBe(1);
    },
  );

  it.skipIf(kind.name === 'memory')(
    kind.shared
      ? 'a second instance on the same place shares it: commits of both serialize, reads see both'
      : 'a second instance on the same place is refused while the first holds it',
    async () => {
      // (The memory store has no place to share.)
      const place = await kind.place();
      const a = await open(kind, place);
      await createEnv(a);
      if (!kind.shared) {
        await expect(open(kind, place)).rejects.toThrow(/in use/);
        await a.storage.close();
        // Given back by close(): a new instance takes it.
        const b = await open(kind, place);
        expect(b.db.has(ENV)).toBe(true);
        return;
      }
      const b = await open(kind, place);
      // B's memory was loaded with the environment; A's commits after that reach B through the protocol.
      const seenA: number[] = [];
      const seenB: number[] = [];
      await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          i % 2 === 0
            ? a.storage.commit(ENV, increment(a, seenA))
            : b.storage.commit(ENV, increment(b, seenB)),
        ),
      );
      // Every plan, on either instance, saw the commit before it.
      expect([...seenA, ...seenB].sort((x, y) => x - y)).toEqual(range(0, 15));
      expect(await a.storage.readSettled(ENV, () => historyRevisions(a))).toEqual(range(1, 16));
      expect(await b.storage.readSettled(ENV, () => historyRevisions(b))).toEqual(range(1, 16));
      // A commit acknowledged to A is seen by a settled read on B, and the other way round.
      await a.storage.commit(ENV, () => [flagOp(ENV, revisionOf(a) + 1, 'from-a')]);
      expect(await b.storage.readSettled(ENV, () => b.db.get(ENV)!.flags.get('from-a')?.version)).toBe(17);
      await b.storage.commit('', () => [{ t: 'admin', token: 'fw_admin_from_b' }]);
      expect(await a.storage.readSettled('', () => a.db.adminToken)).toBe('fw_admin_from_b');
      // Each instance applied each entry once, in order.
      const flagRevisions = (o: Opened) =>
        o.applied.flat().flatMap((op) => (op.t === 'flag' && op.env === ENV ? [op.rev] : []));
      expect(flagRevisions(a)).toEqual(range(1, 17));
      expect(flagRevisions(b)).toEqual(range(1, 17));
    },
  );

  itUnless(kind, 'renew-lease')('lease: the holder renews its lease', async () => {
    const o = await open(kind, await kind.place());
    expect(await o.storage.lease('job:renew', 60_000)).toBe(0);
    expect(await o.storage.lease('job:renew', 60_000)).toBe(0);
    await o.storage.unlease('job:renew');
  });

  it.skipIf(kind.shared)('lease: one instance alone is always granted every lease', async () => {
    // (A storage of one instance has no other holder to wait for.)
    const o = await open(kind, await kind.place());
    expect(await o.storage.lease('job:a', 60_000)).toBe(0);
    expect(await o.storage.lease('job:b', 1)).toBe(0);
    await o.storage.unlease('job:a');
    await o.storage.unlease('job:never-taken');
    expect(await o.storage.lease('job:a', 60_000)).toBe(0);
  });

  it.skipIf(!kind.shared)(
    'lease: a second holder cannot take a held lease until the holder gives it back',
    async () => {
      // (Single-instance stores have no second holder: see "always granted".)
      const place = await kind.place();
      const a = await open(kind, place);
      const b = await open(kind, place);
      expect(await a.storage.lease('job:x', 60_000)).toBe(0);
      const retryAt = await b.storage.lease('job:x', 60_000);
      // Refused, with when to try again: a time to come.
      expect(retryAt).toBeGreaterThan(Date.now());
      // Another name is another lease.
      expect(await b.storage.lease('job:y', 60_000)).toBe(0);
      // Giving back a lease one does not hold frees nothing.
      await b.storage.unlease('job:x');
      expect(await b.storage.lease('job:x', 60_000)).toBeGreaterThan(0);
      // The holder gives it back: now B takes it, and A is refused.
      await a.storage.unlease('job:x');
      expect(await b.storage.lease('job:x', 60_000)).toBe(0);
      expect(await a.storage.lease('job:x', 60_000)).toBeGreaterThan(0);
    },
  );

  it.skipIf(!kind.shared)('lease: a second holder takes a lease whose time ran out', async () => {
    const place = await kind.place();
    const a = await open(kind, place);
    const b = await open(kind, place);
    expect(await a.storage.lease('job:expiring', 60_000)).toBe(0);
    expect(await b.storage.lease('job:expiring', 60_000)).toBeGreaterThan(0);
    await kind.expire!(place, 'job:expiring');
    expect(await b.storage.lease('job:expiring', 60_000)).toBe(0);
    // A's lease is gone: it is refused, and its unlease does not take B's.
    expect(await a.storage.lease('job:expiring', 60_000)).toBeGreaterThan(0);
    await a.storage.unlease('job:expiring');
    expect(await a.storage.lease('job:expiring', 60_000)).toBeGreaterThan(0);
  });

  it('close() is idempotent', async () => {
    const place = await kind.place();
    const o = await open(kind, place);
    await createEnv(o);
    await o.storage.commit(ENV, () => [flagOp(ENV, 1, 'before-close')]);
    const both = [o.storage.close(), o.storage.close()];
    await expect(Promise.all(both)).resolves.toEqual([undefined, undefined]);
    await expect(o.storage.close()).resolves.toBeUndefined();
    if (kind.durable) {
      // Closed once, properly: the place opens again with what was committed.
      const again = await open(kind, place);
      expect(again.db.get(ENV)!.flags.get('before-close')?.version).toBe(1);
    }
  });

  itUnless(kind, 'commit-after-close')(
    'a commit after close() fails saying the store is closed, and its plan does not run',
    async () => {
      const o = await open(kind, await kind.place());
      await createEnv(o);
      await o.storage.close();
      let ran = false;
      await expect(
        o.storage.commit(ENV, () => {
          ran = true;
          return [flagOp(ENV, 1, 'too-late')];
        }),
      ).rejects.toThrow(/closed/i);
      expect(ran).toBe(false);
      expect(o.db.get(ENV)!.flags.has('too-late')).toBe(false);
    },
  );
});
