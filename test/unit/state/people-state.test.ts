/** The people domain's ops and snapshots (`docs/protocol.md` §10.6). */
import { describe, expect, it } from 'vitest';
import { applyOp, captureScope, fromSnapshot, toSnapshot } from '../../../server/state/domains.js';
import {
  MemoryState,
  type StoredSession,
  type StoredToken,
  type StoredUser,
} from '../../../server/state/kernel/model.js';

const NOW = Math.floor(Date.now() / 1000);
/** An invitation's end: one time for every state built, so two of them compare equal. */
const LATER = Date.now() + 3_600_000;
const user = (id: string, over: Partial<StoredUser> = {}): StoredUser => ({
  id,
  email: `${id}@example.com`,
  name: id,
  role: 'viewer',
  projects: {},
  disabled: false,
  password: null,
  oidc: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  ...over,
});
const session = (id: string, userId: string | null, expires = NOW + 3600): StoredSession => ({
  id,
  user: userId,
  via: 'password',
  createdAt: NOW,
  seen: NOW,
  expires,
});
const token = (id: string, userId: string): StoredToken => ({
  id,
  user: userId,
  name: id,
  digest: `digest-${id}`,
  createdAt: '2026-01-01T00:00:00.000Z',
  expiresAt: null,
});

function populated(): MemoryState {
  const db = new MemoryState();
  applyOp(db, { t: 'user', user: user('usr_a') });
  applyOp(db, { t: 'user', user: user('usr_b', { role: 'admin' }) });
  applyOp(db, { t: 'invite', invitation: { digest: 'inv-a', user: 'usr_a', expires: LATER } });
  applyOp(db, { t: 'login', session: session('u-a', 'usr_a') });
  applyOp(db, { t: 'login', session: session('u-b', 'usr_b') });
  applyOp(db, { t: 'pat', token: token('pat_a', 'usr_a') });
  return db;
}

describe('the people domain', () => {
  it('applies each op idempotently: replaying the log twice changes nothing more', () => {
    const db = populated();
    const again = populated();
    for (const op of [
      { t: 'seen', id: 'u-a', at: NOW + 10 },
      { t: 'pat-del', id: 'pat_a' },
      { t: 'logout', id: 'u-b' },
    ] as const) {
      applyOp(db, op);
      applyOp(again, op);
      applyOp(again, op);
    }
    expect(toSnapshot(again)).toEqual(toSnapshot(db));
    expect(db.people.sessions.get('u-a')!.seen).toBe(NOW + 10);
    expect(db.people.tokens.size).toBe(0);
    expect(db.people.tokenIds.size).toBe(0);
  });

  it('removes a user with their sessions, tokens and invitation, and no one else', () => {
    const db = populated();
    applyOp(db, { t: 'user-del', id: 'usr_a' });
    expect([...db.people.users.keys()]).toEqual(['usr_b']);
    expect([...db.people.sessions.keys()]).toEqual(['u-b']);
    expect(db.people.tokens.size).toBe(0);
    expect(db.people.tokenIds.size).toBe(0);
    expect(db.people.invitations.size).toBe(0);
  });

  it('keeps one invitation per user: a new link replaces the old', () => {
    const db = populated();
    applyOp(db, { t: 'invite', invitation: { digest: 'inv-a2', user: 'usr_a', expires: LATER } });
    expect([...db.people.invitations.keys()]).toEqual(['inv-a2']);
  });

  it('round-trips through a snapshot, without sessions or invitations past their end', () => {
    const db = populated();
    applyOp(db, { t: 'login', session: session('u-old', 'usr_a', NOW - 1) });
    applyOp(db, { t: 'invite', invitation: { digest: 'inv-b', user: 'usr_b', expires: Date.now() - 1 } });
    const restored = fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(db))));
    expect([...restored.people.users.keys()]).toEqual(['usr_a', 'usr_b']);
    expect([...restored.people.sessions.keys()].sort()).toEqual(['u-a', 'u-b']);
    expect([...restored.people.invitations.keys()]).toEqual(['inv-a']);
    expect(restored.people.tokenIds.get('digest-pat_a')).toBe('pat_a');
  });

  it('puts everything back when a commit of the shared scope fails', () => {
    const db = populated();
    const before = JSON.stringify(toSnapshot(db));
    const putBack = captureScope(db, '');
    applyOp(db, { t: 'user-del', id: 'usr_b' });
    applyOp(db, { t: 'pat', token: token('pat_z', 'usr_a') });
    putBack();
    expect(JSON.stringify(toSnapshot(db))).toBe(before);
    expect(db.people.tokenIds.has('digest-pat_z')).toBe(false);
  });
});
