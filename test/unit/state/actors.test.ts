/** Actors as old journals stored them read as today's form (`docs/protocol.md` §10.6). */
import { describe, expect, it } from 'vitest';
import { applyOp, fromSnapshot, toSnapshot } from '../../../server/state/domains.js';
import { ADMIN_TOKEN_ACTOR, actorOf, CONFIG_ACTOR } from '../../../server/state/kernel/actors.js';
import { MemoryState, type StoredFlag } from '../../../server/state/kernel/model.js';

const flag = (key: string, updatedAt: string): StoredFlag =>
  ({
    key,
    type: 'boolean',
    enabled: true,
    description: null,
    createdAt: updatedAt,
    updatedAt,
    version: 1,
  }) as unknown as StoredFlag;

describe('an actor stored before accounts', () => {
  it('reads an API key by its hint as an apiKey actor, its name kept', () => {
    expect(actorOf({ type: 'api-key', hint: 'fw_live_…abcd' })).toEqual({
      type: 'apiKey',
      id: 'fw_live_…abcd',
      name: 'API key fw_live_…abcd',
      hint: 'fw_live_…abcd',
    });
    expect(actorOf({ type: 'api-key', hint: 'fw_live_…abcd', name: 'ci' })).toMatchObject({ name: 'ci' });
  });

  it('reads the dashboard as the admin token and the config file as the system', () => {
    expect(actorOf({ type: 'dashboard' })).toEqual(ADMIN_TOKEN_ACTOR);
    expect(actorOf({ type: 'config' })).toEqual(CONFIG_ACTOR);
  });

  it('keeps a present-day actor as it is, and reads anything unreadable as an unknown API key', () => {
    const user = { type: 'user', id: 'usr_1', name: 'Ada' };
    expect(actorOf(user)).toEqual(user);
    for (const odd of [undefined, null, 'x', { type: 'user' }, { type: 7, id: 'a', name: 'b' }])
      expect(actorOf(odd)).toMatchObject({ type: 'apiKey', id: 'unknown' });
  });

  it('replays an old op into a history entry of today, and reads an old snapshot the same way', () => {
    const db = new MemoryState();
    applyOp(db, { t: 'env', id: 'p/e', project: 'p', environment: 'e', epoch: 'x', keys: [] });
    const old = { type: 'dashboard' } as unknown as typeof ADMIN_TOKEN_ACTOR;
    applyOp(db, { t: 'flag', env: 'p/e', rev: 1, flag: flag('a', '2026-01-01T00:00:00.000Z'), by: old });
    expect(db.get('p/e')!.history[0]!.actor).toEqual(ADMIN_TOKEN_ACTOR);

    const snapshot = toSnapshot(db);
    snapshot.envs[0]!.history![0]!.actor = { type: 'config' } as unknown as typeof ADMIN_TOKEN_ACTOR;
    const restored = fromSnapshot(JSON.parse(JSON.stringify(snapshot)));
    expect(restored.get('p/e')!.history[0]!.actor).toEqual(CONFIG_ACTOR);
  });
});
