/**
 * The lifecycle ops on memory (`server/state/kernel/ops.ts`, `env-names.ts`): a rename and a
 * deletion give the same state whichever order the stores replay scopes in (the journal in
 * commit order, Postgres the shared scope first), survive a snapshot, are undone whole when a
 * group commit fails (`captureScope`), and a renamed environment's old id is not reused.
 */
import { describe, expect, it } from 'vitest';
import { applyOp, captureScope, fromSnapshot, type Op, toSnapshot } from '../../../server/state/domains.js';
import { idFor } from '../../../server/state/kernel/env-names.js';
import { MemoryState } from '../../../server/state/kernel/model.js';

const envOp = (id: string, epoch = `ep-${id}`): Op => {
  const [project, environment] = id.replace(/#\d+$/, '').split('/') as [string, string];
  return { t: 'env', id, project, environment, epoch, keys: [], source: 'dashboard' };
};
const flagOp = (env: string, rev: number, key: string): Op => ({
  t: 'flag',
  env,
  rev,
  flag: {
    key,
    type: 'boolean',
    enabled: false,
    description: null,
    version: rev,
    createdAt: 'x',
    updatedAt: 'x',
  },
});
const rename = (id: string, project: string, environment: string, epoch = `ep-${id}`): Op => ({
  t: 'env-name',
  id,
  epoch,
  project,
  environment,
});

/** Entries in commit order, each with its scope. */
const HISTORY: Array<[string, Op[]]> = [
  ['shop/stagin', [envOp('shop/stagin')]],
  ['shop/stagin', [flagOp('shop/stagin', 1, 'a')]],
  ['', [rename('shop/stagin', 'shop', 'staging')]],
  // The old key again: a new environment, with the next id.
  ['shop/stagin#2', [envOp('shop/stagin#2')]],
  ['shop/tmp', [envOp('shop/tmp')]],
  ['shop/tmp', [flagOp('shop/tmp', 1, 't')]],
  ['', [rename('shop/tmp', 'shop', 'gone')]],
  ['shop/tmp', [{ t: 'env-del', env: 'shop/tmp' }]],
  // Its id used again after the deletion: the old rename does not name it.
  ['shop/tmp', [envOp('shop/tmp', 'ep-new')]],
];

const replay = (entries: Array<[string, Op[]]>): MemoryState => {
  const db = new MemoryState();
  for (const [, ops] of entries) for (const op of ops) applyOp(db, op);
  return db;
};

const names = (db: MemoryState) =>
  Object.fromEntries(
    [...db.values()].map((e) => [e.id, `${e.project}/${e.environment} ${[...e.flags.keys()]}`]),
  );

describe('lifecycle ops', () => {
  it('give one state in commit order, with the shared scope first, and through a snapshot', () => {
    const inOrder = replay(HISTORY);
    expect(names(inOrder)).toEqual({
      'shop/stagin': 'shop/staging a',
      'shop/stagin#2': 'shop/stagin ',
      'shop/tmp': 'shop/tmp ',
    });
    const byScope = [...HISTORY].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    expect(names(replay(byScope))).toEqual(names(inOrder));
    expect(names(fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(inOrder)))))).toEqual(names(inOrder));
  });

  it('pick the next free id for a name an environment renamed away still holds', () => {
    const db = replay(HISTORY);
    expect(idFor(db, 'shop', 'stagin')).toBe('shop/stagin#2');
    expect(idFor(db, 'shop', 'staging')).toBe('shop/staging');
    expect(idFor(db, 'shop', 'new')).toBe('shop/new');
  });

  it('are undone whole when a group commit fails', () => {
    const db = replay(HISTORY.slice(0, 3));
    const env = db.get('shop/stagin')!;
    const undoEnv = captureScope(db, env.id);
    applyOp(db, { t: 'env-del', env: env.id });
    expect(db.has(env.id)).toBe(false);
    undoEnv();
    expect(db.get(env.id)).toBe(env);
    expect([...env.flags.keys()]).toEqual(['a']);

    const undoShared = captureScope(db, '');
    applyOp(db, rename(env.id, 'shop', 'prod'));
    expect(env.environment).toBe('prod');
    undoShared();
    expect(env.environment).toBe('staging');
    expect(db.names.get(env.id)?.environment).toBe('staging');
  });

  it('record a copy in the source once, however often it is replayed', () => {
    const db = replay(HISTORY.slice(0, 2));
    const op: Op = {
      t: 'copied',
      env: 'shop/stagin',
      rev: 1,
      to: 'shop/prod',
      flags: ['a'],
      at: '2026-01-01T00:00:00.000Z',
      by: { type: 'adminToken', id: 'admin-token', name: 'admin token' },
    };
    applyOp(db, op);
    applyOp(db, op);
    const copied = db.get('shop/stagin')!.history.filter((e) => e.action === 'copied');
    expect(copied).toEqual([
      {
        revision: 1,
        at: op.at,
        flag: 'a',
        action: 'copied',
        changes: [],
        actor: op.by,
        copiedTo: 'shop/prod',
      },
    ]);
  });
});
