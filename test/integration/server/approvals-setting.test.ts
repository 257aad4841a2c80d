/**
 * Environments that require approval (`docs/protocol.md` §2, §10.3), on a real server: the
 * environment's `approvals` (set by an admin through `PATCH /admin/api/environments/:env`, or by
 * the config file), API keys that bypass approvals (`bypassApprovals`), and the refusal of every
 * direct flag and segment write by any other key or through the admin API (`403
 * APPROVAL_REQUIRED`); reads, webhooks and usage marks go on; all of it survives a restart.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FlagwireConfig, type StartServerOptions, startServer } from '../../../server/index.js';
import { applyOp, captureScope, fromSnapshot, type Op, toSnapshot } from '../../../server/state/domains.js';
import { MemoryState } from '../../../server/state/kernel/model.js';
import { type AdminCaller, adminCaller } from '../../helpers/admin.js';
import { expectError, type Json, makeEnv, sendOk } from '../../helpers/lifecycle.js';
import { asBearer, peopleDriver, type Send, uniqueEmail } from '../../helpers/people.js';
import { freshDatabase, startTestServer, TEST_STORE, type TestServer } from '../../helpers/server.js';

const TOKEN = 'fw_admin_ApprovalsToken0000000000000000';
const KEY = {
  full: 'fw_live_ApprFull000000000000000000000000',
  bypass: 'fw_live_ApprBypass0000000000000000000000',
  read: 'fw_live_ApprRead000000000000000000000000',
  managed: 'fw_live_ApprManaged000000000000000000000',
} as const;

const CONFIG: FlagwireConfig = {
  projects: [
    {
      key: 'appr',
      environments: [
        {
          key: 'prod',
          apiKeys: [
            { key: KEY.full, access: 'full' },
            { key: KEY.bypass, access: 'full', bypassApprovals: true },
            { key: KEY.read, access: 'read-only' },
          ],
          flags: [{ key: 'seeded', type: 'boolean' }],
        },
        { key: 'managed', approvals: 2, apiKeys: [{ key: KEY.managed, access: 'full' }] },
      ],
    },
  ],
};

const PROD = '/environments/appr/prod';

let t: TestServer;
let admin: AdminCaller;

beforeAll(async () => {
  t = await startTestServer({ config: CONFIG, adminToken: TOKEN });
  admin = await adminCaller(t.server);
});
afterAll(() => t?.close());

/** `/api/v1` as `key`. */
const as = (key: string) => (method: string, path: string, body?: unknown) => t.api(method, path, body, key);

/** The environments of the overview, by `PROJECT/ENV`. */
async function overviewEnvs(caller: AdminCaller = admin): Promise<Record<string, Json>> {
  const { projects } = await sendOk(caller, 'GET', '/overview', undefined);
  const out: Record<string, Json> = {};
  for (const project of projects) for (const env of project.environments) out[`appr/${env.key}`] = env;
  return out;
}

const setApprovals = (approvals: number, path = PROD) => sendOk(admin, 'PATCH', path, { approvals });

/** Asserts a `403 APPROVAL_REQUIRED` naming the environment, the approvals it needs and what to do. */
async function expectApprovalRequired(res: Response, env: string, approvals: number): Promise<void> {
  const message = await expectError(res, 403, 'APPROVAL_REQUIRED');
  expect(message).toContain(`"${env}"`);
  expect(message).toContain(`requires ${approvals} approval${approvals === 1 ? '' : 's'}`);
  expect(message).toContain(`POST /admin/api/environments/${env}/change-requests`);
  expect(message).toContain('change request');
  expect(message).toContain('bypasses approvals');
}

/** Every direct flag and segment write, each on its own keys so that one's outcome never decides another's. */
function writes(tag: string): Array<[string, string, unknown]> {
  return [
    ['POST', '/flags', { key: `made-${tag}`, type: 'boolean' }],
    ['PATCH', '/flags/seeded', { description: `by ${tag}` }],
    ['DELETE', `/flags/doomed-${tag}`, undefined],
    ['POST', '/segments', { key: `seg-made-${tag}` }],
    ['PATCH', `/segments/seg-${tag}`, { description: `by ${tag}` }],
    ['DELETE', `/segments/seg-doomed-${tag}`, undefined],
  ];
}

/** Makes what `writes(tag)` changes and deletes, with the bypass key (whatever the approvals). */
async function prepare(tag: string): Promise<void> {
  const bypass = as(KEY.bypass);
  expect((await bypass('POST', '/flags', { key: `doomed-${tag}`, type: 'boolean' })).status).toBe(201);
  expect((await bypass('POST', '/segments', { key: `seg-${tag}` })).status).toBe(201);
  expect((await bypass('POST', '/segments', { key: `seg-doomed-${tag}` })).status).toBe(201);
}

describe('the approvals setting', () => {
  it('takes 0 to 10 on any environment, the config’s too, and the overview and the answer show it', async () => {
    expect((await overviewEnvs())['appr/prod']).toMatchObject({ key: 'prod', approvals: 0 });
    for (const approvals of [1, 10, 0, 3]) {
      const answer = await setApprovals(approvals);
      expect(answer).toMatchObject({ project: 'appr', key: 'prod', source: 'config', approvals });
      expect((await overviewEnvs())['appr/prod']!.approvals).toBe(approvals);
    }
    await setApprovals(0);
  });

  it('refuses what is not a count from 0 to 10, an unknown field and an empty body: 400, naming the field', async () => {
    for (const body of [
      { approvals: -1 },
      { approvals: 11 },
      { approvals: 1.5 },
      { approvals: '2' },
      { approvals: null },
      {},
      { approval: 2 },
      { approvals: 2, extra: true },
      [],
    ]) {
      const message = await expectError(await admin.call('PATCH', PROD, body), 400, 'VALIDATION_ERROR');
      if ('approvals' in body) expect(message).toContain('approvals');
    }
    expect((await overviewEnvs())['appr/prod']!.approvals).toBe(0);
  });

  it('sets approvals and renames at once on an environment the dashboard made', async () => {
    const old = await makeEnv(admin, 'appr', 'both-old');
    const answer = await sendOk(admin, 'PATCH', old, { key: 'both-new', approvals: 4 });
    expect(answer).toMatchObject({ key: 'both-new', approvals: 4, source: 'dashboard' });
    await expectError(await admin.call('PATCH', old, { approvals: 1 }), 404, 'NOT_FOUND');
    // A rename the config refuses writes nothing, approvals included.
    await expectError(
      await admin.call('PATCH', PROD, { key: 'elsewhere', approvals: 5 }),
      409,
      'CONFIG_MANAGED',
    );
    expect((await overviewEnvs())['appr/prod']!.approvals).toBe(0);
  });

  it('records the change in the audit log, with who made it', async () => {
    await setApprovals(2);
    await setApprovals(0);
    const records = (await sendOk(admin, 'GET', '/audit?project=appr', undefined)) as unknown as Json[];
    const changed = records.filter((r) => r.action === 'environment.approvalsChanged');
    expect(changed.slice(0, 2)).toEqual([
      expect.objectContaining({
        project: 'appr',
        environment: 'prod',
        actor: expect.objectContaining({ type: 'adminToken' }),
        target: { kind: 'environment', key: 'appr/prod' },
        before: { approvals: 2 },
        after: { approvals: 0 },
      }),
      expect.objectContaining({ before: { approvals: 0 }, after: { approvals: 2 } }),
    ]);
  });

  it('needs the admin role in the project: an editor is refused 403, a project admin is let through', async () => {
    const people = peopleDriver(t.server.url, TOKEN);
    const [editor, projectAdmin] = await Promise.all([
      people.join({ email: uniqueEmail('approvals-editor'), role: 'editor' }),
      people.join({ email: uniqueEmail('approvals-padmin'), role: 'viewer', projects: { appr: 'admin' } }),
    ]);
    const editorCall: Send = (await people.token(editor)).call;
    const message = await expectError(await editorCall('PATCH', PROD, { approvals: 1 }), 403, 'FORBIDDEN');
    expect(message).toMatch(/needs the admin role in project "appr"; you are an editor$/);
    const adminCall: Send = (await people.token(projectAdmin)).call;
    const answer = await adminCall('PATCH', PROD, { approvals: 1 });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as Json).approvals).toBe(1);
    expect((await adminCall('PATCH', PROD, { approvals: 0 })).status).toBe(200);
    // The admin token is an admin everywhere; a bearer of nothing valid is 401.
    expect((await asBearer(t.server.url, 'fw_pat_nothing')('PATCH', PROD, { approvals: 1 })).status).toBe(
      401,
    );
  });
});

describe('API keys that bypass approvals', () => {
  it('are created with bypassApprovals (full access only) and listed with it; the audit record shows it', async () => {
    const created = await sendOk(
      admin,
      'POST',
      `${PROD}/keys`,
      { access: 'full', bypassApprovals: true },
      201,
    );
    expect(created).toMatchObject({ access: 'full', bypassApprovals: true, source: 'dashboard' });
    const plain = await sendOk(admin, 'POST', `${PROD}/keys`, { access: 'full', name: 'plain' }, 201);
    expect(plain.bypassApprovals).toBe(false);
    const off = await sendOk(admin, 'POST', `${PROD}/keys`, { access: 'full', bypassApprovals: false }, 201);
    expect(off.bypassApprovals).toBe(false);

    const listed = (await sendOk(admin, 'GET', `${PROD}/keys`, undefined)) as unknown as Json[];
    const byId = new Map(listed.map((k) => [k.id, k]));
    expect(byId.get(created.id)!.bypassApprovals).toBe(true);
    expect(byId.get(plain.id)!.bypassApprovals).toBe(false);
    for (const key of listed) expect(typeof key.bypassApprovals).toBe('boolean');
    // The config file's: its bypass key says so, the others do not.
    const config = listed.filter((k) => k.source === 'config');
    expect(config.map((k) => [k.hint, k.bypassApprovals]).sort()).toEqual(
      [
        [`fw_live_…${KEY.full.slice(-4)}`, false],
        [`fw_live_…${KEY.bypass.slice(-4)}`, true],
        [`fw_live_…${KEY.read.slice(-4)}`, false],
      ].sort(),
    );

    const records = (await sendOk(admin, 'GET', '/audit?project=appr', undefined)) as unknown as Json[];
    const made = records.find((r) => r.action === 'apiKey.created' && r.target?.key === created.id);
    expect(made?.after).toMatchObject({ access: 'full', bypassApprovals: true });
    const madePlain = records.find((r) => r.action === 'apiKey.created' && r.target?.key === plain.id);
    expect(madePlain?.after).toMatchObject({ access: 'full', bypassApprovals: false });
  });

  it('refuses bypassApprovals on a read-only or client key, and a value that is not a boolean: 400', async () => {
    for (const access of ['read-only', 'client']) {
      const message = await expectError(
        await admin.call('POST', `${PROD}/keys`, { access, bypassApprovals: true }),
        400,
        'VALIDATION_ERROR',
      );
      expect(message).toContain('bypassApprovals');
    }
    await expectError(
      await admin.call('POST', `${PROD}/keys`, { access: 'full', bypassApprovals: 'yes' }),
      400,
      'VALIDATION_ERROR',
    );
    // Without it, a read-only key is made as before.
    const read = await sendOk(
      admin,
      'POST',
      `${PROD}/keys`,
      { access: 'read-only', bypassApprovals: false },
      201,
    );
    expect(read.bypassApprovals).toBe(false);
  });

  it('refuses bypassApprovals on a config key that is not full', async () => {
    const bad = {
      projects: [
        {
          key: 'p',
          environments: [
            { key: 'e', apiKeys: [{ key: KEY.read, access: 'read-only' as const, bypassApprovals: true }] },
          ],
        },
      ],
    };
    await expect(startServer({ port: 0, logger: false, config: bad })).rejects.toThrow(
      /projects\[0\]\.environments\[0\]\.apiKeys\[0\]\.bypassApprovals/,
    );
  });
});

describe('writes to an environment that requires approval', () => {
  it('refuses every /api/v1 flag and segment write by a key without bypassApprovals: 403 APPROVAL_REQUIRED', async () => {
    await prepare('refused');
    await setApprovals(2);
    try {
      const full = as(KEY.full);
      const dashboardKey = await sendOk(admin, 'POST', `${PROD}/keys`, { access: 'full' }, 201);
      for (const [method, path, body] of writes('refused')) {
        await expectApprovalRequired(await full(method, path, body), 'appr/prod', 2);
        await expectApprovalRequired(
          await t.api(method, path, body, dashboardKey.key as string),
          'appr/prod',
          2,
        );
        // A read-only key is refused for its access first, as before.
        await expectError(await as(KEY.read)(method, path, body), 403, 'FORBIDDEN');
      }
      // Nothing was written.
      expect((await full('GET', '/flags/made-refused')).status).toBe(404);
      expect((await full('GET', '/flags/doomed-refused')).status).toBe(200);
      expect((await full('GET', '/segments/seg-doomed-refused')).status).toBe(200);
      expect((await full('GET', '/segments/seg-made-refused')).status).toBe(404);
      // The check comes before the body: a body it would refuse is still APPROVAL_REQUIRED.
      await expectApprovalRequired(await full('POST', '/flags', { nonsense: true }), 'appr/prod', 2);
    } finally {
      await setApprovals(0);
    }
  });

  it('takes them from a key that bypasses approvals, and credits it in the history', async () => {
    await prepare('bypassed');
    await setApprovals(1);
    try {
      const made = await sendOk(
        admin,
        'POST',
        `${PROD}/keys`,
        { access: 'full', bypassApprovals: true, name: 'ci' },
        201,
      );
      const statuses: number[] = [];
      for (const [method, path, body] of writes('bypassed'))
        statuses.push((await t.api(method, path, body, made.key as string)).status);
      expect(statuses).toEqual([201, 200, 204, 201, 200, 204]);
      const history = (await sendOk(admin, 'GET', `${PROD}/history?limit=6`, undefined)) as unknown as Json[];
      expect(history.map((e) => [e.flag, e.action])).toEqual([
        ['segment:seg-doomed-bypassed', 'deleted'],
        ['segment:seg-bypassed', 'updated'],
        ['segment:seg-made-bypassed', 'created'],
        ['doomed-bypassed', 'deleted'],
        ['seeded', 'updated'],
        ['made-bypassed', 'created'],
      ]);
      for (const entry of history)
        expect(entry.actor).toEqual({ type: 'apiKey', id: made.id, name: 'ci', hint: made.hint });
    } finally {
      await setApprovals(0);
    }
  });

  it("takes them from the config file's bypass key", async () => {
    await prepare('config-bypass');
    await setApprovals(3);
    try {
      const statuses: number[] = [];
      for (const [method, path, body] of writes('config-bypass'))
        statuses.push((await as(KEY.bypass)(method, path, body)).status);
      expect(statuses).toEqual([201, 200, 204, 201, 200, 204]);
      const [last] = (await sendOk(admin, 'GET', `${PROD}/history?limit=1`, undefined)) as unknown as Json[];
      expect(last!.actor).toMatchObject({ type: 'apiKey', hint: `fw_live_…${KEY.bypass.slice(-4)}` });
    } finally {
      await setApprovals(0);
    }
  });

  it('still serves reads, webhook writes and usage marks to every key', async () => {
    await setApprovals(2);
    try {
      const full = as(KEY.full);
      for (const path of ['/flags', '/flags/seeded', '/segments', '/sdk/flags', '/webhooks'])
        expect((await full('GET', path)).status, path).toBe(200);
      expect((await as(KEY.read)('GET', '/flags')).status).toBe(200);
      const hook = await full('POST', '/webhooks', {
        url: 'http://127.0.0.1:9/hook',
        events: ['flag.updated'],
      });
      expect(hook.status).toBe(201);
      const { id } = (await hook.json()) as { id: string };
      expect((await full('PATCH', `/webhooks/${id}`, { active: false })).status).toBe(200);
      expect((await full('DELETE', `/webhooks/${id}`)).status).toBe(204);
      expect((await full('PATCH', '/usage/flags/seeded', { permanent: true })).status).toBe(200);
    } finally {
      await setApprovals(0);
    }
  });

  it('takes them again once approvals are set back to 0', async () => {
    await prepare('reopened');
    await setApprovals(1);
    await expectApprovalRequired(
      await as(KEY.full)('POST', '/flags', { key: 'x', type: 'boolean' }),
      'appr/prod',
      1,
    );
    await setApprovals(0);
    const statuses: number[] = [];
    for (const [method, path, body] of writes('reopened'))
      statuses.push((await as(KEY.full)(method, path, body)).status);
    expect(statuses).toEqual([201, 200, 204, 201, 200, 204]);
  });

  it("refuses the admin API's direct flag and segment writes, and a copy into it; reads and previews go on", async () => {
    await prepare('admin');
    await setApprovals(2);
    try {
      for (const [method, path, body] of writes('admin'))
        await expectApprovalRequired(await admin.call(method, `${PROD}${path}`, body), 'appr/prod', 2);
      await expectApprovalRequired(
        await admin.asPage('PATCH', `${PROD}/flags/seeded`, { enabled: true }),
        'appr/prod',
        2,
      );
      expect((await admin.call('GET', `${PROD}/flags`)).status).toBe(200);
      expect((await admin.call('GET', `${PROD}/segments`)).status).toBe(200);
      const staging = await makeEnv(admin, 'appr', 'copy-from');
      await sendOk(admin, 'POST', `${staging}/flags`, { key: 'copied', type: 'boolean' }, 201);
      const copy = { from: 'appr/copy-from', to: 'appr/prod', flags: ['copied'] };
      const preview = await sendOk(admin, 'POST', '/copy-flags/preview', copy);
      await expectApprovalRequired(
        await admin.call('POST', '/copy-flags', { ...copy, expectedRevision: preview.to.revision }),
        'appr/prod',
        2,
      );
      expect((await as(KEY.full)('GET', '/flags/copied')).status).toBe(404);
    } finally {
      await setApprovals(0);
    }
  });

  it('lists the refusal in both OpenAPI documents, on the writes of flags and segments only', async () => {
    const api = (await (await fetch(`${t.base}/openapi.json`)).json()) as Json;
    const words = (doc: Json, path: string, method: string) =>
      String(doc.paths[path][method].responses['403']?.description ?? '');
    for (const [path, method] of [
      ['/flags', 'post'],
      ['/flags/{key}', 'patch'],
      ['/flags/{key}', 'delete'],
      ['/segments', 'post'],
      ['/segments/{key}', 'patch'],
      ['/segments/{key}', 'delete'],
    ] as const)
      expect(words(api, path, method), `${method} ${path}`).toContain('APPROVAL_REQUIRED');
    for (const [path, method] of [
      ['/flags', 'get'],
      ['/webhooks', 'post'],
      ['/usage/flags/{key}', 'patch'],
    ] as const)
      expect(words(api, path, method), `${method} ${path}`).not.toContain('APPROVAL_REQUIRED');
    const adminDoc = await sendOk(admin, 'GET', '/openapi.json', undefined);
    const scoped = '/environments/{project}/{env}';
    expect(words(adminDoc, `${scoped}/flags/{key}`, 'patch')).toContain('APPROVAL_REQUIRED');
    expect(words(adminDoc, `${scoped}/segments`, 'post')).toContain('APPROVAL_REQUIRED');
    expect(words(adminDoc, '/copy-flags', 'post')).toContain('APPROVAL_REQUIRED');
    expect(words(adminDoc, `${scoped}/webhooks`, 'post')).not.toContain('APPROVAL_REQUIRED');
    expect(adminDoc.paths[scoped].patch.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/EnvPatchInput',
    });
  });
});

describe('approvals set by the config file', () => {
  it('apply at start, refuse writes, and cannot be changed through the admin API (409 CONFIG_MANAGED)', async () => {
    expect((await overviewEnvs())['appr/managed']).toMatchObject({ source: 'config', approvals: 2 });
    await expectApprovalRequired(
      await as(KEY.managed)('POST', '/flags', { key: 'x', type: 'boolean' }),
      'appr/managed',
      2,
    );
    const message = await expectError(
      await admin.call('PATCH', '/environments/appr/managed', { approvals: 0 }),
      409,
      'CONFIG_MANAGED',
    );
    expect(message).toContain('config file');
    expect((await overviewEnvs())['appr/managed']!.approvals).toBe(2);
  });
});

describe('across a restart', () => {
  it('keeps the approvals and the keys that bypass them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'flagwire-approvals-'));
    const store: StartServerOptions =
      TEST_STORE === 'postgres' ? { databaseUrl: await freshDatabase() } : { dataDir: dir };
    const config = (approvals?: number): FlagwireConfig => ({
      projects: [
        {
          key: 'keep',
          environments: [
            {
              key: 'cfg',
              ...(approvals !== undefined && { approvals }),
              apiKeys: [{ key: KEY.managed, access: 'full' }],
            },
          ],
        },
      ],
    });
    try {
      const first = await startServer({ port: 0, logger: false, ...store, config: config(4) });
      const one = await adminCaller(first);
      const env = await makeEnv(one, 'keep', 'made');
      await sendOk(one, 'PATCH', env, { approvals: 3 });
      const bypass = await sendOk(one, 'POST', `${env}/keys`, { access: 'full', bypassApprovals: true }, 201);
      const plain = await sendOk(one, 'POST', `${env}/keys`, { access: 'full' }, 201);
      await first.close();

      // The config no longer sets cfg's approvals: they stay as stored, now the admin API's to change.
      const second = await startServer({ port: 0, logger: false, ...store, config: config() });
      try {
        const two = await adminCaller(second);
        const { projects } = await sendOk(two, 'GET', '/overview', undefined);
        const keep = projects.find((p: Json) => p.key === 'keep');
        const approvals = Object.fromEntries(keep.environments.map((e: Json) => [e.key, e.approvals]));
        expect(approvals).toEqual({ cfg: 4, made: 3 });
        const keys = (await sendOk(two, 'GET', `${env}/keys`, undefined)) as unknown as Json[];
        expect(keys.map((k) => [k.id, k.bypassApprovals]).sort()).toEqual(
          [
            [bypass.id, true],
            [plain.id, false],
          ].sort(),
        );
        const api = (key: string, body: unknown) =>
          fetch(`${second.url}/api/v1/flags`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
        await expectApprovalRequired(await api(plain.key, { key: 'a', type: 'boolean' }), 'keep/made', 3);
        expect((await api(bypass.key, { key: 'b', type: 'boolean' })).status).toBe(201);
        await expectApprovalRequired(await api(KEY.managed, { key: 'c', type: 'boolean' }), 'keep/cfg', 4);
        await sendOk(two, 'PATCH', '/environments/keep/cfg', { approvals: 0 });
        expect((await api(KEY.managed, { key: 'c', type: 'boolean' })).status).toBe(201);
      } finally {
        await second.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the env-approvals op', () => {
  const env: Op = {
    t: 'env',
    id: 'p/e',
    project: 'p',
    environment: 'e',
    epoch: 'ep',
    keys: [],
    source: 'dashboard',
  };
  const set = (approvals: number, at = '2025-01-01T00:00:00.000Z'): Op => ({
    t: 'env-approvals',
    env: 'p/e',
    approvals,
    at,
  });

  it('is replay-idempotent, audited once, and snapshotted (absent when 0)', () => {
    const db = new MemoryState();
    applyOp(db, env);
    applyOp(db, set(3));
    applyOp(db, set(3));
    expect(db.get('p/e')!.approvals).toBe(3);
    expect(db.get('p/e')!.audit?.filter((r) => r.action === 'environment.approvalsChanged')).toHaveLength(1);
    const restored = fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(db))));
    expect(restored.get('p/e')!.approvals).toBe(3);
    applyOp(db, set(0, '2025-01-02T00:00:00.000Z'));
    expect('approvals' in db.get('p/e')!).toBe(false);
    const snapshot = JSON.parse(JSON.stringify(toSnapshot(db)));
    expect('approvals' in snapshot.envs[0]).toBe(false);
    expect(fromSnapshot(snapshot).get('p/e')!.approvals).toBeUndefined();
  });

  it('is taken back with a failed commit of its scope', () => {
    const db = new MemoryState();
    applyOp(db, env);
    applyOp(db, set(2));
    const restore = captureScope(db, 'p/e');
    applyOp(db, set(5, '2025-01-03T00:00:00.000Z'));
    expect(db.get('p/e')!.approvals).toBe(5);
    restore();
    expect(db.get('p/e')!.approvals).toBe(2);
  });

  it('refuses a snapshot whose approvals are not a count', () => {
    const db = new MemoryState();
    applyOp(db, env);
    const snapshot = JSON.parse(JSON.stringify(toSnapshot(db)));
    snapshot.envs[0].approvals = 'two';
    expect(fromSnapshot(snapshot).damaged.has('p/e')).toBe(true);
  });
});
