/**
 * The audit log in memory (`server/state/kernel/audit.ts`, `docs/protocol.md` §10.6): a record
 * per committed change, derived from the op as it is applied, into the op's scope; applied twice
 * (a replayed suffix) it is recorded once; a failed group commit takes it back; snapshots carry
 * it; each list is bounded; and no record ever holds a secret.
 */
import { describe, expect, it } from 'vitest';
import { applyOp, captureScope, fromSnapshot, type Op, toSnapshot } from '../../../server/state/domains.js';
import { ADMIN_TOKEN_ACTOR, apiKeyActor } from '../../../server/state/kernel/actors.js';
import { AUDIT_VALUE_BYTES } from '../../../server/state/kernel/audit.js';
import { readAudit } from '../../../server/state/kernel/audit-read.js';
import {
  type Actor,
  MemoryState,
  type StoredFlag,
  type StoredUser,
} from '../../../server/state/kernel/model.js';

const AT = '2026-03-01T10:00:00.000Z';
const at = (minute: number) => `2026-03-01T10:${String(minute).padStart(2, '0')}:00.000Z`;
const USER: Actor = { type: 'user', id: 'usr_alice', name: 'Alice' };
const TOKEN: Actor = {
  type: 'token',
  id: 'pat_1',
  name: 'ci',
  user: { id: 'usr_alice', name: 'Alice' },
};
const KEY = apiKeyActor('key_0123456789abcdef', 'fw_live_…abcd');

const ENV = 'shop/prod';
const envOp: Op = {
  t: 'env',
  id: ENV,
  project: 'shop',
  environment: 'prod',
  epoch: 'ep1',
  keys: [],
  source: 'dashboard',
  by: ADMIN_TOKEN_ACTOR,
  at: at(0),
};
const flag = (rev: number, over: Partial<StoredFlag> = {}): StoredFlag => ({
  key: 'checkout',
  type: 'boolean',
  enabled: false,
  description: null,
  version: rev,
  createdAt: at(1),
  updatedAt: at(rev),
  ...over,
});
const flagOp = (rev: number, over: Partial<StoredFlag> = {}, by: Actor = KEY): Op => ({
  t: 'flag',
  env: ENV,
  rev,
  flag: flag(rev, over),
  by,
});
const user = (over: Partial<StoredUser> = {}): StoredUser => ({
  id: 'usr_bob',
  email: 'bob@example.com',
  name: 'Bob',
  role: 'viewer',
  projects: {},
  disabled: false,
  password: null,
  oidc: null,
  createdAt: AT,
  ...over,
});

const SECRETS = {
  keyDigest: 'f'.repeat(64),
  tokenDigest: 'e'.repeat(64),
  webhookSecret: 'whsec_SECRETSECRETSECRET',
  previousSecret: 'whsec_PREVIOUSPREVIOUS',
  passwordHash: 'scrypt$N=16384$SALTSALT$HASHHASHHASH',
  invitationDigest: 'd'.repeat(64),
  sessionId: 'uSESSIONIDSESSIONIDSESSI',
  generatedKey: 'fw_live_GENERATEDKEYGENERATEDKEY0000',
};

/** Every kind of audited op, in commit order. */
const LOG: Op[] = [
  envOp,
  flagOp(1, {}, KEY),
  flagOp(2, { enabled: true }, ADMIN_TOKEN_ACTOR),
  flagOp(3, { description: 'new checkout' }, TOKEN),
  { t: 'segment', env: ENV, rev: 4, segment: segment(4), by: USER },
  { t: 'copied', env: ENV, rev: 4, to: 'shop/staging', flags: ['checkout'], at: at(5), by: USER },
  {
    t: 'project',
    project: { key: 'shop', createdAt: at(0) },
    by: ADMIN_TOKEN_ACTOR,
    at: '2026-03-01T10:05:30.000Z',
  },
  {
    t: 'key',
    env: ENV,
    key: {
      id: 'key_aaaaaaaaaaaaaaaa',
      name: 'backend',
      access: 'full',
      digest: SECRETS.keyDigest,
      hint: 'fw_live_…wxyz',
      createdAt: at(6),
    },
    by: USER,
    at: at(6),
  },
  {
    t: 'webhook',
    env: ENV,
    webhook: {
      id: 'wh_1',
      url: 'https://example.com/hook',
      events: ['flag.updated'],
      secret: SECRETS.webhookSecret,
      active: true,
      createdAt: at(7),
    },
    by: USER,
    at: at(7),
  },
  {
    t: 'webhook',
    env: ENV,
    webhook: {
      id: 'wh_1',
      url: 'https://example.com/hook',
      events: ['flag.updated'],
      secret: 'whsec_ROTATEDROTATED',
      previousSecret: SECRETS.previousSecret,
      previousSecretExpiresAt: Date.parse(at(30)),
      active: true,
      createdAt: at(7),
    },
    by: USER,
    at: at(8),
  },
  {
    t: 'delivery',
    env: ENV,
    delivery: {
      id: 'dlv_1',
      webhookId: 'wh_1',
      eventId: 'evt_1',
      type: 'flag.updated',
      createdAt: at(8),
      data: { action: 'test', flag: { key: 'x', type: 'boolean', enabled: true, description: null } },
      status: 'pending',
      attempts: 0,
      updatedAt: at(8),
    },
  },
  { t: 'usage-mark', env: ENV, key: 'checkout', permanent: true, snoozedUntil: null, by: USER, at: at(9) },
  { t: 'user', user: user(), by: ADMIN_TOKEN_ACTOR, at: at(10) },
  {
    t: 'invite',
    invitation: { digest: SECRETS.invitationDigest, user: 'usr_bob', expires: Date.parse(at(59)) },
  },
  { t: 'invite-del', digest: SECRETS.invitationDigest },
  {
    t: 'user',
    user: user({ password: SECRETS.passwordHash }),
    by: { type: 'user', id: 'usr_bob', name: 'Bob' },
    at: at(11),
  },
  {
    t: 'login',
    session: { id: SECRETS.sessionId, user: 'usr_bob', via: 'password', createdAt: 1, seen: 1, expires: 9e9 },
  },
  { t: 'seen', id: SECRETS.sessionId, at: 2 },
  {
    t: 'pat',
    token: {
      id: 'pat_bob',
      user: 'usr_bob',
      name: 'laptop',
      digest: SECRETS.tokenDigest,
      createdAt: at(12),
      expiresAt: null,
    },
    by: { type: 'user', id: 'usr_bob', name: 'Bob' },
    at: at(12),
  },
  { t: 'pat-del', id: 'pat_bob', by: ADMIN_TOKEN_ACTOR, at: at(13) },
  { t: 'user', user: user({ password: SECRETS.passwordHash, disabled: true }), by: USER, at: at(14) },
  { t: 'logout', id: SECRETS.sessionId },
  { t: 'webhook-del', env: ENV, id: 'wh_1', by: USER, at: at(15) },
  { t: 'key-del', env: ENV, id: 'key_aaaaaaaaaaaaaaaa', by: USER, at: at(16) },
];

function segment(rev: number) {
  return {
    key: 'beta',
    description: null,
    included: ['a', 'b'],
    excluded: [],
    rules: [],
    version: rev,
    createdAt: at(4),
    updatedAt: at(4),
  };
}

const replay = (ops: readonly Op[], db = new MemoryState()): MemoryState => {
  for (const op of ops) applyOp(db, op);
  return db;
};
const all = (db: MemoryState) => readAudit(db, { limit: 100_000 });
const actions = (db: MemoryState) => all(db).map((r) => r.action);

describe('the audit log', () => {
  it('records each change from its op: action, target, actor, before and after', () => {
    const db = replay(LOG);
    expect(actions(db).reverse()).toEqual([
      'environment.created',
      'flag.created',
      'flag.updated',
      'flag.updated',
      'segment.created',
      'flag.copied',
      'project.created',
      'apiKey.created',
      'webhook.created',
      'webhook.secretRotated',
      'flag.marked',
      'user.invited',
      'invitation.accepted',
      'token.created',
      'token.revoked',
      'user.updated',
      'webhook.deleted',
      'apiKey.revoked',
    ]);
    const records = all(db);
    const find = (action: string) => records.filter((r) => r.action === action);
    const [byToken, byAdmin] = find('flag.updated');
    expect(byToken).toMatchObject({
      at: at(3),
      actor: TOKEN,
      project: 'shop',
      environment: 'prod',
      target: { kind: 'flag', key: 'checkout' },
      before: { description: null },
      after: { description: 'new checkout' },
    });
    expect(byAdmin).toMatchObject({
      actor: ADMIN_TOKEN_ACTOR,
      before: { enabled: false },
      after: { enabled: true },
    });
    expect(find('flag.created')[0]).toMatchObject({ actor: KEY, after: { type: 'boolean', enabled: false } });
    expect(find('flag.created')[0]!.before).toBeUndefined();
    expect(find('apiKey.created')[0]).toMatchObject({
      target: { kind: 'apiKey', key: 'key_aaaaaaaaaaaaaaaa' },
      after: { name: 'backend', access: 'full', hint: 'fw_live_…wxyz' },
    });
    expect(find('webhook.created')[0]).toMatchObject({
      after: { url: 'https://example.com/hook', events: ['flag.updated'], active: true },
    });
    expect(find('user.updated')[0]).toMatchObject({
      actor: USER,
      target: { kind: 'user', key: 'usr_bob' },
      before: { disabled: false },
      after: { disabled: true },
    });
    expect(find('project.created')[0]).toMatchObject({
      project: 'shop',
      target: { kind: 'project', key: 'shop' },
    });
    expect(find('project.created')[0]!.environment).toBeUndefined();
    // Environment records sit in the environment's list, shared ones in the shared list.
    expect(db.get(ENV)!.audit!.map((r) => r.action)).toContain('flag.copied');
    expect(db.audit.map((r) => r.action)).toEqual([
      'project.created',
      'user.invited',
      'invitation.accepted',
      'token.created',
      'token.revoked',
      'user.updated',
    ]);
  });

  it('never holds a secret', () => {
    const db = replay(LOG);
    // A generated key revoked, and the environment deleted: their records too.
    replay(
      [
        {
          ...envOp,
          id: 'shop/dev',
          environment: 'dev',
          epoch: 'ep2',
          keys: [{ key: SECRETS.generatedKey, access: 'full' }],
        },
        {
          t: 'env',
          id: 'shop/dev',
          project: 'shop',
          environment: 'dev',
          epoch: 'ep2',
          keys: [],
          by: USER,
          at: at(20),
        },
        { t: 'env-del', env: 'shop/dev', by: USER, at: at(21) },
      ] as Op[],
      db,
    );
    const text = JSON.stringify([toSnapshot(db).audit, ...toSnapshot(db).envs.map((e) => e.audit), all(db)]);
    expect(actions(db)).toContain('apiKey.revoked');
    for (const [what, secret] of Object.entries(SECRETS)) expect(text, what).not.toContain(secret);
    // Not even the last characters of a generated key beyond its hint.
    expect(text).not.toContain('GENERATEDKEY');
  });

  it('adds nothing when ops are applied again (a replayed suffix of the log)', () => {
    const once = replay(LOG);
    const twice = replay(LOG);
    replay(LOG.slice(3), twice);
    replay(LOG, twice);
    expect(all(twice)).toEqual(all(once));
    expect(toSnapshot(twice)).toEqual(toSnapshot(once));
  });

  it('gives every record the same id wherever and however the op is applied', () => {
    const a = replay(LOG);
    // Ops as a store reads them back: JSON, keys in another order (Postgres' jsonb).
    const reversed = (value: unknown): unknown =>
      Array.isArray(value)
        ? value.map(reversed)
        : value !== null && typeof value === 'object'
          ? Object.fromEntries(
              Object.entries(value)
                .reverse()
                .map(([k, v]) => [k, reversed(v)]),
            )
          : value;
    const b = replay(LOG.map((op) => reversed(JSON.parse(JSON.stringify(op))) as Op));
    expect(all(b).map((r) => r.id)).toEqual(all(a).map((r) => r.id));
    expect(new Set(all(a).map((r) => r.id)).size).toBe(all(a).length);
  });

  it('takes a record back with its change when a group commit fails', () => {
    const db = replay(LOG.slice(0, 4));
    const envBefore = JSON.stringify(all(db));
    const putBackEnv = captureScope(db, ENV);
    applyOp(db, flagOp(9, { enabled: false }, USER));
    applyOp(db, { t: 'env-del', env: ENV, by: USER, at: at(40) });
    expect(db.audit.some((r) => r.action === 'environment.deleted')).toBe(true);
    putBackEnv();
    expect(JSON.stringify(all(db))).toBe(envBefore);
    expect(db.audit).toEqual([]);

    const putBackShared = captureScope(db, '');
    applyOp(db, { t: 'project', project: { key: 'other', createdAt: AT }, by: USER, at: at(41) });
    putBackShared();
    expect(JSON.stringify(all(db))).toBe(envBefore);
    // The same op committed again afterwards is recorded.
    applyOp(db, { t: 'project', project: { key: 'other', createdAt: AT }, by: USER, at: at(41) });
    expect(actions(db)[0]).toBe('project.created');
  });

  it('round-trips through a snapshot, and replaying after it adds nothing', () => {
    const db = replay(LOG);
    const restored = fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(db))));
    expect(all(restored)).toEqual(all(db));
    replay(LOG.slice(5), restored);
    expect(all(restored)).toEqual(all(db));
    // And new changes after it are recorded.
    applyOp(restored, flagOp(30, { enabled: true }, USER));
    expect(all(restored)[0]).toMatchObject({ action: 'flag.updated', actor: USER });
  });

  it("keeps a deleted environment's records in the shared list, named as it was", () => {
    const db = replay(LOG);
    const before = all(db).length;
    applyOp(db, {
      t: 'env-name',
      id: ENV,
      epoch: 'ep1',
      project: 'shop',
      environment: 'live',
      by: USER,
      at: at(45),
    });
    applyOp(db, { t: 'env-del', env: ENV, by: USER, at: at(46) });
    // Deleted again (replayed): nothing more.
    applyOp(db, { t: 'env-del', env: ENV, by: USER, at: at(46) });
    const records = all(db);
    expect(records).toHaveLength(before + 2);
    expect(records[0]).toMatchObject({
      action: 'environment.deleted',
      project: 'shop',
      environment: 'live',
      before: { project: 'shop', environment: 'live', flags: 1 },
    });
    expect(records[1]).toMatchObject({
      action: 'environment.renamed',
      before: { environment: 'prod' },
      after: { environment: 'live' },
    });
    expect(records.find((r) => r.action === 'flag.created')).toMatchObject({
      project: 'shop',
      environment: 'live',
    });
    expect(JSON.stringify(records)).not.toContain('"env"');
    const restored = fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(db))));
    expect(all(restored)).toEqual(records);
  });

  it('filters by project, actor (a user finds their tokens too) and time, newest first', () => {
    const db = replay(LOG);
    const alice = readAudit(db, { actor: 'usr_alice', limit: 100 });
    expect(alice.map((r) => r.actor.id)).toContain('pat_1');
    expect(alice.every((r) => r.actor.id === 'usr_alice' || r.actor.user?.id === 'usr_alice')).toBe(true);
    expect(readAudit(db, { actor: 'pat_1', limit: 100 }).map((r) => r.action)).toEqual(['flag.updated']);
    const shop = readAudit(db, { project: 'shop', limit: 100 });
    expect(shop.every((r) => r.project === 'shop')).toBe(true);
    expect(shop.map((r) => r.action)).not.toContain('user.invited');
    const since = readAudit(db, { since: Date.parse(at(12)), limit: 100 });
    expect(since.every((r) => r.at >= at(12))).toBe(true);
    expect(readAudit(db, { limit: 2 })).toHaveLength(2);
    const times = all(db).map((r) => r.at);
    expect(times).toEqual([...times].sort().reverse());
  });

  it('keeps each list to its bounds, oldest dropped, and truncates a large field', () => {
    const db = new MemoryState();
    db.auditLimit = 5;
    applyOp(db, envOp);
    for (let rev = 1; rev <= 12; rev++) applyOp(db, flagOp(rev, { enabled: rev % 2 === 0 }));
    expect(db.get(ENV)!.audit).toHaveLength(5);
    expect(all(db)[4]!.at).toBe(at(8));
    db.auditLimit = 10_000;
    db.auditBytes = 3000;
    const long = 'x'.repeat(AUDIT_VALUE_BYTES + 10);
    applyOp(db, flagOp(13, { enabled: true, description: long }));
    const record = all(db)[0]!;
    expect(record.after).toEqual({ description: { truncated: true, bytes: AUDIT_VALUE_BYTES + 12 } });
    // Past the byte budget the oldest go; the newest always stays.
    expect(JSON.stringify(db.get(ENV)!.audit).length).toBeLessThanOrEqual(3000);
    expect(db.get(ENV)!.audit!.at(-1)!.at).toBe(at(13));
  });

  it('records nothing for ops written before the audit log (no time) nor for sign-ins', () => {
    const db = replay([
      { t: 'env', id: ENV, project: 'shop', environment: 'prod', epoch: 'ep1', keys: [] },
      { t: 'project', project: { key: 'shop', createdAt: AT } },
      { t: 'user', user: user() },
      {
        t: 'login',
        session: { id: 'u1', user: 'usr_bob', via: 'password', createdAt: 1, seen: 1, expires: 9e9 },
      },
    ] as Op[]);
    expect(all(db)).toEqual([]);
  });
});
