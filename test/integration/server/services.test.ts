/**
 * The state layer's services on the memory store, without HTTP (`docs/architecture.md`): the
 * flag service (revisions, versions, history, refusals with stable codes), the admin service
 * (projects, environments, keys, the admin token) and the webhook dispatcher (what an attempt
 * records, and retries by its schedule), wired as `startServer` wires them.
 */
import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, type ApiErrorCode } from '../../../server/errors.js';
import type { Logger } from '../../../server/logger.js';
import { AdminService, grantsOf } from '../../../server/state/admin/admin-service.js';
import { KeyRing } from '../../../server/state/admin/key-ring.js';
import { Applier, type Op, restoreState } from '../../../server/state/domains.js';
import { FlagService } from '../../../server/state/flags/flag-service.js';
import type { FlagCommit } from '../../../server/state/flags/ops.js';
import { ensureEnvironment } from '../../../server/state/kernel/environments.js';
import { type Ledger, StorageLedger } from '../../../server/state/kernel/ledger.js';
import type { Actor, Environment, MemoryState, StoredDelivery } from '../../../server/state/kernel/model.js';
import { WebhookService } from '../../../server/state/webhooks/webhook-service.js';
import { createMemoryStorage } from '../../../server/store/memory-storage.js';
import type { Storage } from '../../../server/store/storage.js';
import { Dispatcher } from '../../../server/webhooks/dispatcher.js';
import { checkPattern } from '../../../src/core/targeting/patterns.js';
import { type Answer, type Received, startReceiver, type TestReceiver } from '../../helpers/receiver.js';

// ---------------------------------------------------------------- the wiring

interface Stack {
  storage: Storage<Op>;
  db: MemoryState;
  applier: Applier;
  ledger: Ledger<Op>;
  flags: FlagService;
  /** Every entry committed, as the storage handed it to the applier. */
  entries: Op[][];
  /** Flag changes published, in order. */
  changes: FlagCommit[];
  /** Ops published, in order. */
  published: Op[];
}

/** Memory storage, memory rebuilt from it, the applier, the ledger and the flag service, as `startServer` makes them. */
async function stack(): Promise<Stack> {
  const storage = createMemoryStorage<Op>();
  const db = restoreState(await storage.load(), 10_000);
  const applier = new Applier(db, (error) => {
    throw error;
  });
  const ledger = new StorageLedger(db, storage);
  const s: Stack = {
    storage,
    db,
    applier,
    ledger,
    flags: new FlagService(ledger, checkPattern),
    entries: [],
    changes: [],
    published: [],
  };
  storage.attach({
    apply(ops) {
      s.entries.push([...ops]);
      return applier.apply(ops);
    },
    capture: (scope) => applier.capture(scope),
    snapshot: (scope) => applier.snapshot(scope),
  });
  applier.onChange((change) => s.changes.push(change));
  applier.onCommitted((op) => s.published.push(op));
  return s;
}

const ACTOR: Actor = {
  type: 'apiKey',
  id: 'fw_live_…test',
  name: 'API key fw_live_…test',
  hint: 'fw_live_…test',
};
const DASHBOARD: Actor = { type: 'adminToken', id: 'admin-token', name: 'admin token' };

/** The ApiError `promise` rejects with: its status and stable code. */
async function refusal(
  promise: Promise<unknown>,
): Promise<{ status: number; code: ApiErrorCode; message: string }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  const { status, code, message } = error as ApiError;
  return { status, code, message };
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

// ---------------------------------------------------------------- FlagService

/** The environment `project/environment` of `s`, created if it has none (the kernel's `ensureEnvironment`). */
function environmentOf(s: Stack, project: string, environment: string, generateKeys: boolean) {
  return ensureEnvironment(s.db, s.ledger, project, environment, generateKeys);
}

describe('FlagService', () => {
  async function withEnv() {
    const s = await stack();
    const env = await environmentOf(s, 'acme', 'production', false);
    return { ...s, env };
  }

  it('ensureEnvironment creates an environment once, at revision 0, with a fresh epoch', async () => {
    const s = await stack();
    const env = await environmentOf(s, 'acme', 'production', true);
    expect(env).toMatchObject({
      id: 'acme/production',
      project: 'acme',
      environment: 'production',
      revision: 0,
    });
    expect(env.source).toBe('default');
    expect(env.generatedKeys.map((k) => k.access)).toEqual(['full', 'read-only']);
    expect(env.epoch).toMatch(/^[A-Za-z0-9]{12}$/);
    expect(await environmentOf(s, 'acme', 'production', true)).toBe(env);
    expect(s.entries).toHaveLength(1);
    const other = await environmentOf(s, 'acme', 'staging', false);
    expect(other.epoch).not.toBe(env.epoch);
    expect(other.generatedKeys).toEqual([]);
    expect(other.source).toBe('config');
  });

  it('createFlag commits revision 1: version 1, a "created" history entry, one published change', async () => {
    const { flags, env, changes, entries } = await withEnv();
    const flag = await flags.createFlag(
      env,
      { key: 'checkout', type: 'rollout', percentage: 25, description: 'new checkout', enabled: true },
      ACTOR,
    );
    // A new flag is always disabled, whatever `enabled` says.
    expect(flag).toEqual({
      key: 'checkout',
      type: 'rollout',
      enabled: false,
      percentage: 25,
      description: 'new checkout',
    });
    expect(env.revision).toBe(1);
    const stored = env.flags.get('checkout')!;
    expect(stored.version).toBe(1);
    expect(stored.createdAt).toBe(stored.updatedAt);
    expect(await flags.history(env, undefined, 10)).toEqual([
      {
        revision: 1,
        at: stored.updatedAt,
        flag: 'checkout',
        action: 'created',
        changes: [
          { field: 'type', from: null, to: 'rollout' },
          { field: 'enabled', from: null, to: false },
          { field: 'percentage', from: null, to: 25 },
          { field: 'description', from: null, to: 'new checkout' },
        ],
        actor: ACTOR,
      },
    ]);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ revision: 1, before: null, after: { key: 'checkout' }, actor: ACTOR });
    // One entry, one op: the flag at the environment's next revision.
    expect(entries.at(-1)).toEqual([{ t: 'flag', env: env.id, rev: 1, flag: stored, by: ACTOR }]);
    expect(await flags.getFlag(env, 'checkout')).toEqual(flag);
  });

  it('a rollout flag defaults to 0 %; a boolean flag has no percentage', async () => {
    const { flags, env } = await withEnv();
    expect(await flags.createFlag(env, { key: 'r', type: 'rollout' }, ACTOR)).toMatchObject({
      percentage: 0,
    });
    const plain = await flags.createFlag(env, { key: 'b', type: 'boolean', percentage: 50 }, ACTOR);
    expect(plain).toEqual({ key: 'b', type: 'boolean', enabled: false, description: null });
  });

  it('updateFlag bumps the revision and sets the flag version to it, recording what changed', async () => {
    const { flags, env, changes } = await withEnv();
    await flags.createFlag(env, { key: 'a', type: 'boolean' }, ACTOR);
    await flags.createFlag(env, { key: 'b', type: 'rollout', percentage: 10 }, ACTOR);
    const createdAt = env.flags.get('a')!.createdAt;
    const updated = await flags.updateFlag(env, 'a', { enabled: true, description: 'on now' }, DASHBOARD);
    expect(updated).toEqual({ key: 'a', type: 'boolean', enabled: true, description: 'on now' });
    expect(env.revision).toBe(3);
    expect(env.flags.get('a')!.version).toBe(3);
    expect(env.flags.get('a')!.createdAt).toBe(createdAt);
    // The other flag keeps its version: versions are the revision of each flag's last change.
    expect(env.flags.get('b')!.version).toBe(2);
    const [latest] = await flags.history(env, 'a', 1);
    expect(latest).toMatchObject({
      revision: 3,
      action: 'updated',
      actor: DASHBOARD,
      changes: [
        { field: 'enabled', from: false, to: true },
        { field: 'description', from: null, to: 'on now' },
      ],
    });
    expect(changes.at(-1)).toMatchObject({
      revision: 3,
      before: { enabled: false },
      after: { enabled: true },
    });

    // A patch given as a function of the flag's type is decided against the stored flag.
    const seenTypes: string[] = [];
    await flags.updateFlag(
      env,
      'b',
      (type) => {
        seenTypes.push(type);
        return { percentage: 75 };
      },
      ACTOR,
    );
    expect(seenTypes).toEqual(['rollout']);
    expect(env.flags.get('b')).toMatchObject({ percentage: 75, version: 4 });
  });

  it('a patch that changes nothing commits nothing: same revision, version, history, no change published', async () => {
    const { flags, env, changes, entries } = await withEnv();
    await flags.createFlag(env, { key: 'same', type: 'rollout', percentage: 5 }, ACTOR);
    const before = { entries: entries.length, changes: changes.length, history: env.history.length };
    const answer = await flags.updateFlag(
      env,
      'same',
      { enabled: false, percentage: 5, description: null },
      ACTOR,
    );
    expect(answer).toMatchObject({ enabled: false, percentage: 5 });
    expect(env.revision).toBe(1);
    expect(env.flags.get('same')!.version).toBe(1);
    expect({ entries: entries.length, changes: changes.length, history: env.history.length }).toEqual(before);
  });

  it('deleteFlag commits a revision: the flag is gone, a "deleted" history entry, a change with after null', async () => {
    const { flags, env, changes } = await withEnv();
    await flags.createFlag(env, { key: 'gone', type: 'boolean' }, ACTOR);
    await flags.deleteFlag(env, 'gone', DASHBOARD);
    expect(env.revision).toBe(2);
    expect(env.flags.has('gone')).toBe(false);
    expect(await flags.listFlags(env)).toEqual([]);
    expect((await flags.history(env, 'gone', 10)).map((h) => [h.revision, h.action, h.actor])).toEqual([
      [2, 'deleted', DASHBOARD],
      [1, 'created', ACTOR],
    ]);
    expect(changes.at(-1)).toMatchObject({ revision: 2, before: { key: 'gone' }, after: null });
    expect(await refusal(flags.getFlag(env, 'gone'))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    // A key can be used again after deletion; it starts over at the current revision.
    await flags.createFlag(env, { key: 'gone', type: 'boolean' }, ACTOR);
    expect(env.flags.get('gone')!.version).toBe(3);
  });

  it('revisions count per environment', async () => {
    const { flags, env, ...s } = await withEnv();
    const staging = await environmentOf({ flags, ...s }, 'acme', 'staging', false);
    await flags.createFlag(env, { key: 'x', type: 'boolean' }, ACTOR);
    await flags.createFlag(env, { key: 'y', type: 'boolean' }, ACTOR);
    await flags.createFlag(staging, { key: 'x', type: 'boolean' }, ACTOR);
    expect([env.revision, staging.revision]).toEqual([2, 1]);
    expect(staging.flags.get('x')!.version).toBe(1);
  });

  it('lists flags by key and reads history newest first, per flag, up to the limit', async () => {
    const { flags, env } = await withEnv();
    for (const key of ['m', 'a', 'z']) await flags.createFlag(env, { key, type: 'boolean' }, ACTOR);
    await flags.updateFlag(env, 'a', { enabled: true }, ACTOR);
    await flags.updateFlag(env, 'a', { enabled: false }, ACTOR);
    expect((await flags.listFlags(env)).map((f) => f.key)).toEqual(['a', 'm', 'z']);
    expect((await flags.history(env, undefined, 3)).map((h) => h.revision)).toEqual([5, 4, 3]);
    expect((await flags.history(env, 'a', 10)).map((h) => h.revision)).toEqual([5, 4, 2]);
    expect(await flags.history(env, 'nope', 10)).toEqual([]);
  });

  it('refuses with stable codes and commits nothing: 409 CONFLICT, 404 NOT_FOUND, 400 VALIDATION_ERROR', async () => {
    const { flags, env, entries, changes } = await withEnv();
    await flags.createFlag(env, { key: 'parent', type: 'boolean' }, ACTOR);
    await flags.createFlag(
      env,
      { key: 'child', type: 'boolean', prerequisites: [{ flag: 'parent', variants: ['on'] }] },
      ACTOR,
    );
    const committed = { entries: entries.length, changes: changes.length, revision: env.revision };

    expect(await refusal(flags.createFlag(env, { key: 'parent', type: 'rollout' }, ACTOR))).toEqual({
      status: 409,
      code: 'CONFLICT',
      message: 'flag "parent" already exists',
    });
    expect(await refusal(flags.updateFlag(env, 'missing', { enabled: true }, ACTOR))).toEqual({
      status: 404,
      code: 'NOT_FOUND',
      message: 'flag "missing" not found',
    });
    expect(await refusal(flags.deleteFlag(env, 'missing', ACTOR))).toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
    });
    // A prerequisite of another flag cannot go.
    const inUse = await refusal(flags.deleteFlag(env, 'parent', ACTOR));
    expect(inUse).toMatchObject({ status: 409, code: 'CONFLICT' });
    expect(inUse.message).toContain('"child"');
    // Targeting is validated against the environment as the write finds it, naming the path.
    const unknown = await refusal(
      flags.createFlag(
        env,
        { key: 'orphan', type: 'boolean', prerequisites: [{ flag: 'nowhere', variants: ['on'] }] },
        ACTOR,
      ),
    );
    expect(unknown).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    expect(unknown.message).toBe('prerequisites[0].flag: no flag "nowhere"');
    const cycle = await refusal(
      flags.updateFlag(env, 'parent', { prerequisites: [{ flag: 'child', variants: ['on'] }] }, ACTOR),
    );
    expect(cycle).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    expect(cycle.message).toMatch(/^prerequisites: a cycle/);
    const offVariant = await refusal(
      flags.createFlag(
        env,
        { key: 'colour', type: 'string', variants: { red: 'red', blue: 'blue' }, offVariant: 'green' },
        ACTOR,
      ),
    );
    expect(offVariant).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    expect(offVariant.message).toMatch(/^offVariant: /);
    const badSalt = await refusal(flags.updateFlag(env, 'child', { salt: '' }, ACTOR));
    expect(badSalt).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    expect(badSalt.message).toMatch(/^salt: /);

    expect({ entries: entries.length, changes: changes.length, revision: env.revision }).toEqual(committed);
    expect([...env.flags.keys()].sort()).toEqual(['child', 'parent']);
    expect(env.flags.get('parent')!.prerequisites).toBeUndefined();
  });

  it('of concurrent creations of one key, one wins and the others answer 409', async () => {
    const { flags, env } = await withEnv();
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, () => flags.createFlag(env, { key: 'race', type: 'boolean' }, ACTOR)),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((r) => r.status === 'rejected'))
      expect((r as PromiseRejectedResult).reason).toMatchObject({ status: 409, code: 'CONFLICT' });
    expect(env.revision).toBe(1);
  });

  it('seedFlag creates a missing flag as the config says (enabled kept, actor config) and never overwrites', async () => {
    const { flags, env } = await withEnv();
    await flags.seedFlag(env, { key: 'seeded', type: 'boolean', enabled: true });
    expect(env.flags.get('seeded')).toMatchObject({ enabled: true, version: 1 });
    expect(env.history.at(-1)).toMatchObject({ action: 'created', actor: { type: 'system', id: 'config' } });
    await flags.updateFlag(env, 'seeded', { enabled: false }, ACTOR);
    await flags.seedFlag(env, { key: 'seeded', type: 'boolean', enabled: true });
    expect(env.flags.get('seeded')).toMatchObject({ enabled: false, version: 2 });
    expect(env.revision).toBe(2);
  });
});

// ---------------------------------------------------------------- AdminService

describe('AdminService', () => {
  const CONFIG_KEY = `fw_live_${'C'.repeat(32)}`;

  async function withAdmin() {
    const s = await stack();
    const acme = await environmentOf(s, 'acme', 'production', false);
    const defaults = await environmentOf(s, 'default', 'development', true);
    const keyRing = new KeyRing([
      ...grantsOf(acme, [{ key: CONFIG_KEY, access: 'full' }]),
      ...grantsOf(defaults, []),
    ]);
    const events = { environments: [] as string[], structure: 0, revoked: [] as string[] };
    const admin = new AdminService(s.db, s.ledger, keyRing, [acme, defaults], {
      environment: (env) => events.environments.push(env.id),
      structure: () => {
        events.structure += 1;
      },
      revoked: (grant) => events.revoked.push(grant.id),
    });
    s.applier.onCommitted(admin.committed);
    const bearer = (key: string) => keyRing.authenticate(`Bearer ${key}`);
    return { ...s, acme, defaults, keyRing, events, admin, bearer };
  }

  it('adminToken: the one given, else one made once and stored', async () => {
    const { admin, db } = await withAdmin();
    expect(await admin.adminToken('fw_admin_given')).toBe('fw_admin_given');
    expect(db.adminToken).toBeUndefined();
    const made = await admin.adminToken(undefined);
    expect(made).toMatch(/^fw_admin_[A-Za-z0-9]{32}$/);
    expect(db.adminToken).toBe(made);
    expect(await admin.adminToken(undefined)).toBe(made);
  });

  it('lists projects (served and created), creates a project once, tells the structure changed', async () => {
    const { admin, events, db } = await withAdmin();
    expect(admin.projects().map((p) => [p.key, p.source])).toEqual([
      ['acme', 'config'],
      ['default', 'default'],
    ]);
    const beta = await admin.createProject('beta');
    expect(beta).toMatchObject({ key: 'beta', source: 'dashboard' });
    expect(db.projects.get('beta')?.createdAt).toBe(beta.createdAt);
    expect(events.structure).toBeGreaterThan(0);
    expect(admin.projects().map((p) => p.key)).toEqual(['acme', 'beta', 'default']);
    for (const taken of ['beta', 'acme'])
      expect(await refusal(admin.createProject(taken))).toEqual({
        status: 409,
        code: 'CONFLICT',
        message: `project "${taken}" already exists`,
      });
  });

  it('creates an environment in a project: served at once, announced, from the dashboard; refuses 404/409', async () => {
    const { admin, events, flags } = await withAdmin();
    await admin.createProject('beta');
    const env = await admin.createEnvironment('beta', 'dev');
    expect(env).toMatchObject({ id: 'beta/dev', source: 'dashboard', revision: 0, generatedKeys: [] });
    expect(admin.environments).toContain(env);
    expect(admin.environment('beta', 'dev')).toBe(env);
    expect(events.environments).toEqual(['beta/dev']);
    // Flags work in it like anywhere.
    await flags.createFlag(env, { key: 'f', type: 'boolean' }, DASHBOARD);
    expect(env.revision).toBe(1);

    expect(await refusal(admin.createEnvironment('beta', 'dev'))).toEqual({
      status: 409,
      code: 'CONFLICT',
      message: 'environment "beta/dev" already exists',
    });
    expect(await refusal(admin.createEnvironment('acme', 'production'))).toMatchObject({
      status: 409,
      code: 'CONFLICT',
    });
    expect(await refusal(admin.createEnvironment('nowhere', 'dev'))).toEqual({
      status: 404,
      code: 'NOT_FOUND',
      message: 'project "nowhere" not found',
    });
    expect(() => admin.environment('beta', 'prod')).toThrow(
      expect.objectContaining({ status: 404, code: 'NOT_FOUND' }),
    );
    expect(admin.environments.map((e) => e.id)).toEqual([
      'acme/production',
      'default/development',
      'beta/dev',
    ]);
  });

  it('creates a key: its value answered once, only its digest stored, and it opens the environment', async () => {
    const { admin, acme, bearer } = await withAdmin();
    const created = await admin.createKey(acme, 'read-only', 'ci');
    expect(created.key).toMatch(/^fw_live_[A-Za-z0-9]{32}$/);
    expect(created).toMatchObject({
      id: expect.stringMatching(/^key_[0-9a-f]{16}$/),
      name: 'ci',
      access: 'read-only',
      hint: `fw_live_…${created.key.slice(-4)}`,
      source: 'dashboard',
      revocable: true,
    });
    expect(JSON.stringify(acme.apiKeys)).not.toContain(created.key);
    expect(acme.apiKeys).toEqual([
      expect.objectContaining({ id: created.id, access: 'read-only', name: 'ci' }),
    ]);
    expect(bearer(created.key)).toMatchObject({ env: acme, access: 'read-only', source: 'dashboard' });
    expect(admin.listKeys(acme).map((k) => [k.source, k.access, k.revocable])).toEqual([
      ['config', 'full', false],
      ['dashboard', 'read-only', true],
    ]);
  });

  it('revokes dashboard and generated keys at once; refuses config keys (409) and unknown ids (404)', async () => {
    const { admin, acme, defaults, bearer, events } = await withAdmin();
    const created = await admin.createKey(acme, 'full', null);
    await admin.revokeKey(acme, created.id);
    expect(bearer(created.key)).toBeUndefined();
    expect(acme.apiKeys).toEqual([]);
    expect(events.revoked).toEqual([created.id]);
    expect(admin.listKeys(acme).map((k) => k.source)).toEqual(['config']);

    const generated = defaults.generatedKeys.find((k) => k.access === 'read-only')!;
    const generatedId = admin.listKeys(defaults).find((k) => k.access === 'read-only')!.id;
    expect(bearer(generated.key)).toBeDefined();
    await admin.revokeKey(defaults, generatedId);
    expect(bearer(generated.key)).toBeUndefined();
    expect(defaults.generatedKeys.map((k) => k.access)).toEqual(['full']);

    const configId = admin.listKeys(acme)[0]!.id;
    expect(await refusal(admin.revokeKey(acme, configId))).toEqual({
      status: 409,
      code: 'CONFLICT',
      message: 'this key is managed by the config file: remove it there',
    });
    expect(bearer(CONFIG_KEY)).toBeDefined();
    expect(await refusal(admin.revokeKey(acme, 'key_0000000000000000'))).toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
    });
    // A key of another environment is not this one's to revoke.
    const elsewhere = await admin.createKey(defaults, 'full', 'other');
    expect(await refusal(admin.revokeKey(acme, elsewhere.id))).toMatchObject({ status: 404 });
    expect(bearer(elsewhere.key)).toBeDefined();
  });
});

// ---------------------------------------------------------------- Dispatcher

describe('Dispatcher', () => {
  interface Wired extends Stack {
    env: Environment;
    dispatcher: Dispatcher;
    receiver: TestReceiver;
    hook: { id: string; secret: string };
    /** Lease names asked for and given back, in order. */
    leases: string[];
    unleases: string[];
    errors: string[];
    /** The first committed state of a delivery that `match` accepts (already committed, or to come). */
    outcome(match: (d: StoredDelivery) => boolean): Promise<StoredDelivery>;
  }

  async function wired(answer: (r: Received, i: number) => Answer, retryDelaysMs: number[]): Promise<Wired> {
    const s = await stack();
    const env = await environmentOf(s, 'acme', 'production', false);
    const receiver = await startReceiver(answer);
    cleanups.push(() => receiver.close());
    const leases: string[] = [];
    const unleases: string[] = [];
    const errors: string[] = [];
    const logger: Logger = { info: () => {}, warn: (m) => errors.push(m), error: (m) => errors.push(m) };
    const dispatcher = new Dispatcher(s.db, s.ledger, {
      leases: {
        lease: (name, ms) => {
          leases.push(name);
          return s.storage.lease(name, ms);
        },
        unlease: (name) => {
          unleases.push(name);
          return s.storage.unlease(name);
        },
      },
      retryDelaysMs,
      timeoutMs: 30_000,
      concurrency: 4,
      concurrencyPerWebhook: 2,
      logger,
    });
    cleanups.push(() => dispatcher.close());
    s.applier.onCommitted(dispatcher.committed);
    dispatcher.start();

    const seen: StoredDelivery[] = [];
    const waiters: Array<{ match: (d: StoredDelivery) => boolean; resolve: (d: StoredDelivery) => void }> =
      [];
    s.applier.onCommitted((op) => {
      if (op.t !== 'delivery') return;
      seen.push(op.delivery);
      for (const w of [...waiters])
        if (w.match(op.delivery)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(op.delivery);
        }
    });
    const outcome = (match: (d: StoredDelivery) => boolean) => {
      const found = seen.find(match);
      return found
        ? Promise.resolve(found)
        : new Promise<StoredDelivery>((resolve) => waiters.push({ match, resolve }));
    };
    const hook = await new WebhookService(s.ledger).createWebhook(env, {
      url: receiver.url,
      events: ['flag.enabled', 'flag.disabled', 'flag.updated'],
    });
    return { ...s, env, dispatcher, receiver, hook, leases, unleases, errors, outcome };
  }

  const signature = (secret: string, raw: Buffer) =>
    `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
  const attempted = (n: number) => (d: StoredDelivery) => d.attempts === n;

  it('commits a delivery with the change that makes it, attempts it under its lease, and records a 2xx as succeeded', async () => {
    const w = await wired(() => 200, [0]);
    await w.flags.createFlag(w.env, { key: 'hooked', type: 'boolean' }, ACTOR);
    // The change and its delivery are one entry: neither is committed without the other.
    const entry = w.entries.at(-1)!;
    expect(entry.map((op) => op.t)).toEqual(['flag', 'delivery']);
    const planned = (entry[1] as Extract<Op, { t: 'delivery' }>).delivery;
    expect(planned).toMatchObject({
      webhookId: w.hook.id,
      type: 'flag.updated',
      status: 'pending',
      attempts: 0,
    });

    const done = await w.outcome(attempted(1));
    const received = w.receiver.received;
    expect(received).toHaveLength(1);
    const request = received[0]!;
    expect(request.headers['x-flagwire-delivery']).toBe(planned.id);
    expect(request.headers['x-flagwire-event']).toBe('flag.updated');
    expect(request.headers['x-flagwire-signature']).toBe(signature(w.hook.secret, request.raw));
    expect(request.json).toMatchObject({
      id: planned.eventId,
      type: 'flag.updated',
      webhookId: w.hook.id,
      delivery: { id: planned.id, attempt: 1 },
      data: { action: 'created', flag: { key: 'hooked' } },
    });

    expect(done).toMatchObject({ id: planned.id, status: 'succeeded', attempts: 1, lastStatusCode: 200 });
    expect(done.nextAttemptAt).toBeUndefined();
    expect(done.lastError).toBeUndefined();
    expect(done.log).toEqual([
      {
        attempt: 1,
        sentAt: request.json.delivery.sentAt,
        durationMs: expect.any(Number),
        statusCode: 200,
        response: '',
        names: { project: w.env.project, environment: w.env.environment },
      },
    ]);
    expect(w.env.deliveries.get(planned.id)).toEqual(done);
    const listed = await new WebhookService(w.ledger).listDeliveries(w.env, w.hook.id);
    expect(listed).toEqual([expect.objectContaining({ id: planned.id, status: 'succeeded', attempts: 1 })]);
    // The lease was the delivery's, and it is given back after the outcome is committed (close()
    // waits for the attempt to finish).
    await w.dispatcher.close();
    expect(w.leases).toEqual([`webhook-delivery:${planned.id}`]);
    expect(w.unleases).toEqual([`webhook-delivery:${planned.id}`]);
    expect(w.errors).toEqual([]);
  });

  it('retries a failed attempt on the schedule with the same event id until a 2xx, recording each attempt', async () => {
    // No delay to wait for: each retry is due at once (the schedule's length is what counts here).
    const statuses = [500, 503, 200];
    const w = await wired((_r, i) => statuses[i] ?? 200, [0, 0, 0]);
    await w.flags.createFlag(w.env, { key: 'flaky', type: 'boolean' }, ACTOR);

    const first = await w.outcome(attempted(1));
    expect(first).toMatchObject({
      status: 'pending',
      lastStatusCode: 500,
      lastError: 'the receiver answered 500',
    });
    expect(first.nextAttemptAt).toEqual(expect.any(Number));
    const second = await w.outcome(attempted(2));
    expect(second).toMatchObject({
      status: 'pending',
      lastStatusCode: 503,
      lastError: 'the receiver answered 503',
    });
    const third = await w.outcome(attempted(3));
    expect(third).toMatchObject({ status: 'succeeded', lastStatusCode: 200 });
    expect(third.lastError).toBeUndefined();
    expect(third.log?.map((r) => [r.attempt, r.statusCode])).toEqual([
      [1, 500],
      [2, 503],
      [3, 200],
    ]);

    const requests = w.receiver.received;
    expect(requests).toHaveLength(3);
    expect(new Set(requests.map((r) => r.json.id)).size).toBe(1);
    expect(requests.map((r) => r.json.delivery.attempt)).toEqual([1, 2, 3]);
    expect(requests.every((r) => r.headers['x-flagwire-signature'] === signature(w.hook.secret, r.raw))).toBe(
      true,
    );
    expect(w.errors).toEqual([]);
  });

  it('fails a delivery once the schedule runs out, and makes no further attempt', async () => {
    const w = await wired(() => 500, [0]);
    await w.flags.createFlag(w.env, { key: 'down', type: 'boolean' }, ACTOR);
    const last = await w.outcome((d) => d.status === 'failed');
    expect(last).toMatchObject({ attempts: 2, lastStatusCode: 500, lastError: 'the receiver answered 500' });
    expect(last.nextAttemptAt).toBeUndefined();
    // Closing waits for every attempt under way: none was started after the last outcome.
    await w.dispatcher.close();
    expect(w.receiver.received).toHaveLength(2);
    expect(w.env.webhooks.get(w.hook.id)?.active).toBe(true);
  });

  it('records a receiver that cannot be reached as an error without a status', async () => {
    const w = await wired(() => 200, []);
    // Nothing listens on the receiver's port any more.
    await w.receiver.close();
    await w.flags.createFlag(w.env, { key: 'unreachable', type: 'boolean' }, ACTOR);
    const failed = await w.outcome(attempted(1));
    expect(failed.status).toBe('failed');
    expect(failed.lastStatusCode).toBeUndefined();
    expect(failed.lastError).toEqual(expect.any(String));
    expect(failed.lastError).not.toBe('');
    expect(failed.log).toEqual([expect.objectContaining({ attempt: 1, error: failed.lastError })]);
    expect(failed.log?.[0]?.statusCode).toBeUndefined();
  });

  it('410 Gone fails the delivery and deactivates the webhook in the same entry: no retry', async () => {
    const w = await wired(() => 410, [0, 0]);
    await w.flags.createFlag(w.env, { key: 'gone', type: 'boolean' }, ACTOR);
    const failed = await w.outcome(attempted(1));
    expect(failed).toMatchObject({ status: 'failed', lastStatusCode: 410 });
    expect(failed.lastError).toMatch(/410 Gone/);
    const entry = w.entries.find((ops) => ops.some((op) => op.t === 'delivery' && op.delivery === failed))!;
    expect(entry.map((op) => op.t)).toEqual(['delivery', 'webhook']);
    expect(w.env.webhooks.get(w.hook.id)?.active).toBe(false);
    // An inactive webhook gets no deliveries for later changes.
    await w.flags.createFlag(w.env, { key: 'after', type: 'boolean' }, ACTOR);
    expect(w.entries.at(-1)!.map((op) => op.t)).toEqual(['flag']);
    await w.dispatcher.close();
    expect(w.receiver.received).toHaveLength(1);
  });

  it('a test event is attempted once and never retried', async () => {
    const w = await wired(() => 500, [0, 0]);
    const test = await w.dispatcher.test(w.env, w.hook.id);
    expect(test).toMatchObject({ type: 'webhook.test', status: 'pending' });
    const failed = await w.outcome((d) => d.id === test.id && d.attempts === 1);
    expect(failed).toMatchObject({ status: 'failed', lastStatusCode: 500 });
    expect(w.receiver.received[0]?.json).toMatchObject({ type: 'webhook.test', data: { action: 'test' } });
    expect(await refusal(w.dispatcher.test(w.env, 'wh_missing'))).toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
    });
  });

  it('waits the retry delay (within its ±20 % jitter) before the next attempt', async () => {
    // Fake clock and timers for the dispatcher's schedule; sockets stay real.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const DELAY = 60_000;
    const w = await wired((_r, i) => (i === 0 ? 500 : 200), [DELAY]);
    await w.flags.createFlag(w.env, { key: 'later', type: 'boolean' }, ACTOR);
    // The first attempt is due now.
    await vi.advanceTimersByTimeAsync(0);
    const first = await w.outcome(attempted(1));
    const recordedAt = Date.now();
    expect(first.status).toBe('pending');
    const wait = first.nextAttemptAt! - recordedAt;
    expect(wait).toBeGreaterThanOrEqual(DELAY * 0.8);
    expect(wait).toBeLessThanOrEqual(DELAY * 1.2);
    expect(w.leases).toHaveLength(1);

    // Up to a millisecond before it is due, no attempt starts (an attempt starts by taking its lease).
    await vi.advanceTimersByTimeAsync(wait - 1);
    expect(w.leases).toHaveLength(1);
    expect(w.receiver.received).toHaveLength(1);
    // When it is due, it is made.
    await vi.advanceTimersByTimeAsync(1);
    expect(w.leases).toHaveLength(2);
    const second = await w.outcome(attempted(2));
    expect(second).toMatchObject({ status: 'succeeded', lastStatusCode: 200 });
    expect(w.receiver.received.map((r) => r.json.delivery.attempt)).toEqual([1, 2]);
    expect(w.errors).toEqual([]);
  });
});
