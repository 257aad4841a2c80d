/**
 * Renaming and deleting projects and environments through the admin API, on a real server
 * (`docs/protocol.md` §10.3): a rename keeps the environment (its keys, open streams, flags,
 * history) and frees the old key; a deletion revokes the keys, closes SDK and OFREP streams and
 * takes the webhooks with it; what the config file or the default set-up names is refused with
 * 409 `CONFIG_MANAGED`; all of it survives a restart of the store in use.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartServerOptions, startServer } from '../../../server/index.js';
import { type AdminCaller, adminCaller } from '../../helpers/admin.js';
import { expectError, makeEnv, makeKey, sendOk } from '../../helpers/lifecycle.js';
import { startReceiver } from '../../helpers/receiver.js';
import {
  freshDatabase,
  KEYS,
  startInstances,
  startTestServer,
  TEST_STORE,
  type TestServer,
} from '../../helpers/server.js';
import { openStream } from '../../helpers/sse.js';

let t: TestServer;
let admin: AdminCaller;

beforeAll(async () => {
  t = await startTestServer();
  admin = await adminCaller(t.server);
});
afterAll(() => t?.close());

const overview = async () =>
  (await (await admin.call('GET', '/overview')).json()).projects as Array<{
    key: string;
    source: string;
    environments: Array<{ key: string; flags: number; streams: number }>;
  }>;

describe('renaming an environment', () => {
  it('changes its key only: the old path is gone, keys, open streams, flags and history carry on', async () => {
    const old = await makeEnv(admin, 'shop', 'stagin');
    const key = await makeKey(admin, old, 'read-only');
    await sendOk(admin, 'POST', `${old}/flags`, { key: 'checkout', type: 'boolean' }, 201);
    const stream = await openStream(`${t.server.url}/sdk/events`, { authorization: `Bearer ${key.key}` });
    expect(stream.response.statusCode).toBe(200);
    await stream.next({ skipPings: true }); // the initial sync

    const renamed = await sendOk(admin, 'PATCH', old, { key: 'staging' });
    expect(renamed).toMatchObject({ project: 'shop', key: 'staging', source: 'dashboard', flags: 1 });
    await expectError(await admin.call('GET', `${old}/flags`), 404, 'NOT_FOUND');
    const now = '/environments/shop/staging';
    // A change after the rename reaches the stream opened before it.
    await sendOk(admin, 'PATCH', `${now}/flags/checkout`, { enabled: true });
    expect((await stream.next({ skipPings: true })).data).toContain('"checkout"');
    expect((await t.api('GET', '/flags', undefined, key.key)).status).toBe(200);
    const history = await sendOk(admin, 'GET', `${now}/history`, undefined);
    expect(history.map((e: { action: string }) => e.action)).toEqual(['updated', 'created']);
    const keys = await sendOk(admin, 'GET', `${now}/keys`, undefined);
    expect(keys.map((k: { id: string }) => k.id)).toEqual([key.id]);
    const shop = (await overview()).find((p) => p.key === 'shop')!;
    expect(shop.environments.map((e) => e.key)).toEqual(['staging']);
    expect(shop.environments[0]!.streams).toBe(1);
    stream.close();
  });

  it("keeps each delivery's request as it was sent: the old name before the rename, the new one after", async () => {
    const receiver = await startReceiver();
    try {
      const old = await makeEnv(admin, 'shop', 'qa-old');
      const hook = await sendOk(
        admin,
        'POST',
        `${old}/webhooks`,
        { url: receiver.url, events: ['flag.updated'] },
        201,
      );
      await sendOk(admin, 'POST', `${old}/flags`, { key: 'before', type: 'boolean' }, 201);
      const first = await receiver.next();
      expect(first.json).toMatchObject({ project: 'shop', environment: 'qa-old' });
      await sendOk(admin, 'PATCH', old, { key: 'qa' });
      const now = '/environments/shop/qa';
      await sendOk(admin, 'POST', `${now}/flags`, { key: 'after', type: 'boolean' }, 201);
      const second = await receiver.next();
      expect(second.json).toMatchObject({ project: 'shop', environment: 'qa' });
      const log = async () =>
        (await sendOk(admin, 'GET', `${now}/webhooks/${hook.id}/deliveries`, undefined)) as Array<{
          flag: string;
          status: string;
          attemptLog: Array<{ request: string }>;
        }>;
      await expect.poll(async () => (await log()).map((d) => d.status)).toEqual(['succeeded', 'succeeded']);
      const sent = Object.fromEntries((await log()).map((d) => [d.flag, d.attemptLog[0]!.request]));
      expect(sent).toEqual({ before: first.body, after: second.body });
    } finally {
      await receiver.close();
    }
  });

  it('frees the old key: an environment created under it is a new, empty one', async () => {
    const a = await makeEnv(admin, 'reuse', 'a');
    await sendOk(admin, 'POST', `${a}/flags`, { key: 'kept', type: 'boolean' }, 201);
    const aKey = await makeKey(admin, a);
    await sendOk(admin, 'PATCH', a, { key: 'b' });
    const again = await sendOk(admin, 'POST', '/projects/reuse/environments', { key: 'a' }, 201);
    expect(again).toMatchObject({ key: 'a', flags: 0, revision: 0 });
    expect(await sendOk(admin, 'GET', `${a}/flags`, undefined)).toEqual([]);
    expect(await sendOk(admin, 'GET', `${a}/keys`, undefined)).toEqual([]);
    expect((await sendOk(admin, 'GET', '/environments/reuse/b/flags', undefined))[0]).toMatchObject({
      key: 'kept',
    });
    // The key still opens the renamed environment, not the new one.
    const flags = await (await t.api('GET', '/flags', undefined, aKey.key)).json();
    expect(flags.map((f: { key: string }) => f.key)).toEqual(['kept']);
    // And back: the renamed one cannot take the name while it is taken.
    await expectError(await admin.call('PATCH', '/environments/reuse/b', { key: 'a' }), 409, 'CONFLICT');
  });

  it('refuses a taken key, a malformed key, an unknown field and an unknown environment', async () => {
    await makeEnv(admin, 'taken', 'one');
    await makeEnv(admin, 'taken', 'two');
    await expectError(await admin.call('PATCH', '/environments/taken/one', { key: 'two' }), 409, 'CONFLICT');
    await expectError(
      await admin.call('PATCH', '/environments/taken/one', { key: 'bad key' }),
      400,
      'VALIDATION_ERROR',
    );
    await expectError(
      await admin.call('PATCH', '/environments/taken/one', { key: 'x', project: 'y' }),
      400,
      'VALIDATION_ERROR',
    );
    await expectError(await admin.call('PATCH', '/environments/taken/one', []), 400, 'VALIDATION_ERROR');
    await expectError(await admin.call('PATCH', '/environments/taken/nope', { key: 'x' }), 404, 'NOT_FOUND');
    // Renaming to its own key changes nothing.
    expect(await sendOk(admin, 'PATCH', '/environments/taken/one', { key: 'one' })).toMatchObject({
      key: 'one',
    });
  });
});

describe('renaming a project', () => {
  it('renames it with every environment in one step; keys keep working; 409 when taken', async () => {
    const env = await makeEnv(admin, 'acmee', 'prod');
    await makeEnv(admin, 'acmee', 'dev');
    const key = await makeKey(admin, env);
    await expectError(await admin.call('PATCH', '/projects/acmee', { key: 'shop' }), 409, 'CONFLICT');
    const project = await sendOk(admin, 'PATCH', '/projects/acmee', { key: 'acme2' });
    expect(project).toMatchObject({ key: 'acme2', source: 'dashboard' });
    expect(project.environments.map((e: { key: string }) => e.key).sort()).toEqual(['dev', 'prod']);
    const keys = (await overview()).map((p) => p.key);
    expect(keys).toContain('acme2');
    expect(keys).not.toContain('acmee');
    await expectError(await admin.call('GET', `${env}/flags`), 404, 'NOT_FOUND');
    expect((await admin.call('GET', '/environments/acme2/prod/flags')).status).toBe(200);
    expect((await t.api('GET', '/flags', undefined, key.key)).status).toBe(200);
    await expectError(await admin.call('PATCH', '/projects/nope', { key: 'x' }), 404, 'NOT_FOUND');
  });
});

describe('deleting', () => {
  it('an environment: its keys are refused, its SDK and OFREP streams end, its webhooks and flags are gone', async () => {
    const env = await makeEnv(admin, 'doomed', 'live');
    const key = await makeKey(admin, env, 'read-only');
    await sendOk(admin, 'POST', `${env}/flags`, { key: 'f', type: 'boolean' }, 201);
    await sendOk(
      admin,
      'POST',
      `${env}/webhooks`,
      { url: 'http://127.0.0.1:9/hook', events: ['flag.updated'] },
      201,
    );
    const sdk = await openStream(`${t.server.url}/sdk/events`, { authorization: `Bearer ${key.key}` });
    const bulk = await fetch(`${t.server.url}/ofrep/v1/evaluate/flags`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
      body: '{}',
    });
    const ofrep = await openStream(
      `${t.server.url}${(await bulk.json()).eventStreams[0].endpoint.requestUri}`,
    );
    expect([sdk.response.statusCode, ofrep.response.statusCode]).toEqual([200, 200]);

    expect((await admin.call('DELETE', env)).status).toBe(204);
    await Promise.all([sdk.ended, ofrep.ended]);
    expect((await t.api('GET', '/flags', undefined, key.key)).status).toBe(401);
    await expectError(await admin.call('GET', `${env}/webhooks`), 404, 'NOT_FOUND');
    await expectError(await admin.call('DELETE', env), 404, 'NOT_FOUND');
    expect((await overview()).find((p) => p.key === 'doomed')!.environments).toEqual([]);
    // Created again: a new environment, with nothing of the old one.
    await sendOk(admin, 'POST', '/projects/doomed/environments', { key: 'live' }, 201);
    expect(await sendOk(admin, 'GET', `${env}/flags`, undefined)).toEqual([]);
    expect(await sendOk(admin, 'GET', `${env}/webhooks`, undefined)).toEqual([]);
    expect(await sendOk(admin, 'GET', `${env}/history`, undefined)).toEqual([]);
  });

  it('a project: every environment and its keys, then the project', async () => {
    const a = await makeEnv(admin, 'gone', 'a');
    const b = await makeEnv(admin, 'gone', 'b');
    const keys = [await makeKey(admin, a), await makeKey(admin, b)];
    expect((await admin.call('DELETE', '/projects/gone')).status).toBe(204);
    for (const key of keys) expect((await t.api('GET', '/flags', undefined, key.key)).status).toBe(401);
    expect((await overview()).map((p) => p.key)).not.toContain('gone');
    await expectError(await admin.call('DELETE', '/projects/gone'), 404, 'NOT_FOUND');
    expect(await sendOk(admin, 'POST', '/projects', { key: 'gone' }, 201)).toMatchObject({
      environments: [],
    });
  });
});

describe('what the config file names', () => {
  it('refuses to rename or delete its environments and projects with 409 CONFIG_MANAGED', async () => {
    for (const [method, path, body] of [
      ['PATCH', '/environments/acme/production', { key: 'prod' }],
      ['DELETE', '/environments/acme/production', undefined],
      ['PATCH', '/projects/acme', { key: 'acme2' }],
      ['DELETE', '/projects/acme', undefined],
    ] as const) {
      const message = await expectError(await admin.call(method, path, body), 409, 'CONFIG_MANAGED');
      expect(message).toContain('config file');
    }
    expect((await t.api('GET', '/flags', undefined, KEYS.acmeProdFull)).status).toBe(200);
    // An environment added here to a config project is the dashboard's.
    await sendOk(admin, 'POST', '/projects/acme/environments', { key: 'qa' }, 201);
    await sendOk(admin, 'PATCH', '/environments/acme/qa', { key: 'test' });
    expect((await admin.call('DELETE', '/environments/acme/test')).status).toBe(204);
    // Nor can an environment be renamed onto a config one.
    await makeEnv(admin, 'acme', 'preview');
    await expectError(
      await admin.call('PATCH', '/environments/acme/preview', { key: 'staging' }),
      409,
      'CONFLICT',
    );
  });

  it('refuses the default environment of a server started without one', async () => {
    const bare = await startTestServer({ config: undefined });
    try {
      const caller = await adminCaller(bare.server);
      const message = await expectError(
        await caller.call('DELETE', '/environments/default/development'),
        409,
        'CONFIG_MANAGED',
      );
      expect(message).toContain('default');
      await expectError(await caller.call('PATCH', '/projects/default', { key: 'x' }), 409, 'CONFIG_MANAGED');
    } finally {
      await bare.close();
    }
  });
});

describe('across a restart', () => {
  it('keeps renames and deletions, and serves the renamed environment under its new key', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'flagwire-lifecycle-'));
    const store: StartServerOptions =
      TEST_STORE === 'postgres' ? { databaseUrl: await freshDatabase() } : { dataDir: dir };
    try {
      const first = await startServer({ port: 0, logger: false, ...store });
      const one = await adminCaller(first);
      const env = await makeEnv(one, 'p', 'typo');
      await makeEnv(one, 'p', 'drop');
      await makeEnv(one, 'q', 'x');
      const key = await makeKey(one, env);
      await sendOk(one, 'POST', `${env}/flags`, { key: 'f', type: 'boolean' }, 201);
      await sendOk(one, 'PATCH', env, { key: 'fixed' });
      await sendOk(one, 'PATCH', '/projects/q', { key: 'r' });
      expect((await one.call('DELETE', '/environments/p/drop')).status).toBe(204);
      await sendOk(one, 'POST', '/projects/p/environments', { key: 'typo' }, 201);
      await first.close();

      const second = await startServer({ port: 0, logger: false, ...store });
      try {
        const two = await adminCaller(second);
        const projects = (await (await two.call('GET', '/overview')).json()).projects;
        const envsOf = (k: string) =>
          projects
            .find((p: { key: string }) => p.key === k)
            ?.environments.map((e: { key: string }) => e.key)
            .sort();
        expect(envsOf('p')).toEqual(['fixed', 'typo']);
        expect(envsOf('r')).toEqual(['x']);
        expect(envsOf('q')).toBeUndefined();
        expect((await sendOk(two, 'GET', '/environments/p/fixed/flags', undefined))[0]).toMatchObject({
          key: 'f',
        });
        expect(await sendOk(two, 'GET', '/environments/p/typo/flags', undefined)).toEqual([]);
        const flags = await fetch(`${second.url}/api/v1/flags`, {
          headers: { authorization: `Bearer ${key.key}` },
        });
        expect((await flags.json()).map((f: { key: string }) => f.key)).toEqual(['f']);
      } finally {
        await second.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a project with environments the store keeps unserved', () => {
  it('deletes them too: none comes back when the project and environment are created again', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'flagwire-lifecycle-'));
    const store: StartServerOptions =
      TEST_STORE === 'postgres' ? { databaseUrl: await freshDatabase() } : { dataDir: dir };
    const config = {
      projects: [
        { key: 'old', environments: [{ key: 'e', flags: [{ key: 'seeded', type: 'boolean' as const }] }] },
      ],
    };
    try {
      await (await startServer({ port: 0, logger: false, ...store, config })).close();
      // The config no longer names it: the store keeps old/e, unserved.
      const server = await startServer({ port: 0, logger: false, ...store });
      try {
        const caller = await adminCaller(server);
        await sendOk(caller, 'POST', '/projects', { key: 'old' }, 201);
        expect((await caller.call('DELETE', '/projects/old')).status).toBe(204);
        await sendOk(caller, 'POST', '/projects', { key: 'old' }, 201);
        await sendOk(caller, 'POST', '/projects/old/environments', { key: 'e' }, 201);
        expect(await sendOk(caller, 'GET', '/environments/old/e/flags', undefined)).toEqual([]);
      } finally {
        await server.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe.runIf(TEST_STORE === 'postgres')('two instances on one database', () => {
  it("follow each other: a rename keeps the other one's streams, a deletion closes them", async () => {
    const [a, b] = await startInstances(2, await freshDatabase());
    try {
      const [onA, onB] = [await adminCaller(a!), await adminCaller(b!)];
      const env = await makeEnv(onA, 'multi', 'one');
      const key = await makeKey(onA, env, 'read-only');
      const auth = { authorization: `Bearer ${key.key}` };
      const flagsOnB = () => fetch(`${b!.url}/api/v1/flags`, { headers: auth });
      await expect.poll(async () => (await flagsOnB()).status).toBe(200);
      const stream = await openStream(`${b!.url}/sdk/events`, auth);
      await stream.next({ skipPings: true }); // the initial sync

      await sendOk(onA, 'PATCH', env, { key: 'two' });
      await expect
        .poll(async () => (await onB.call('GET', '/environments/multi/two/flags')).status)
        .toBe(200);
      await expectError(await onB.call('GET', `${env}/flags`), 404, 'NOT_FOUND');
      await sendOk(onB, 'POST', '/environments/multi/two/flags', { key: 'after', type: 'boolean' }, 201);
      expect((await stream.next({ skipPings: true })).data).toContain('"after"');

      expect((await onA.call('DELETE', '/environments/multi/two')).status).toBe(204);
      await stream.ended;
      expect((await flagsOnB()).status).toBe(401);
      await expectError(await onB.call('GET', '/environments/multi/two/flags'), 404, 'NOT_FOUND');
    } finally {
      await Promise.all([a!.close(), b!.close()]);
    }
  });
});
