/**
 * The admin API behind the dashboard's targeting screens (`docs/protocol.md` §10.3): "who gets
 * what" (`POST /admin/api/evaluate`) for the saved flag and an unsaved edit, by the SDK's own
 * evaluator, checked against a real SDK client; the edit refused as a PATCH would refuse it,
 * naming the JSON path, and never written; segments through the admin paths, their deletion
 * refused while a flag uses them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type FlagwireClient } from '../../../src/index.js';
import { type AdminCaller, adminCaller } from '../../helpers/admin.js';
import { expectError, type Json, sendOk } from '../../helpers/lifecycle.js';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';
import { whenTrue } from '../../helpers/wait.js';

let t: TestServer;
let admin: AdminCaller;
let sdk: FlagwireClient | undefined;
const ENV = '/environments/acme/staging';

const evaluate = (body: unknown) => sendOk(admin, 'POST', '/evaluate', body);
const who = (flag: string, user: Json, draft?: Json) =>
  evaluate({ environment: 'acme/staging', flag, user, ...(draft ? { draft } : {}) });

const BANNER_RULES = [
  {
    id: 'staff',
    clauses: [{ attribute: 'email', op: 'endsWith', values: ['@ACME.com'], caseInsensitive: true }],
    serve: { variant: 'blue' },
  },
  {
    id: 'beta',
    clauses: [{ op: 'inSegment', values: ['beta'] }],
    serve: {
      split: [
        { variant: 'blue', weight: 50_000 },
        { variant: 'red', weight: 50_000 },
      ],
      bucketBy: 'company',
    },
  },
];

beforeAll(async () => {
  t = await startTestServer();
  admin = await adminCaller(t.server);
  await sendOk(admin, 'POST', `${ENV}/flags`, { key: 'gate', type: 'boolean' }, 201);
  await sendOk(admin, 'PATCH', `${ENV}/flags/gate`, { enabled: true });
  await sendOk(
    admin,
    'POST',
    `${ENV}/flags`,
    { key: 'banner', type: 'string', variants: { blue: 'Blue!', red: 'Red!' }, offVariant: 'red' },
    201,
  );
});

afterAll(async () => {
  await sdk?.close();
  await t?.close();
});

describe('segments through the admin API', () => {
  it('creates, lists, changes and reads a segment as /api/v1 does', async () => {
    const made = await sendOk(
      admin,
      'POST',
      `${ENV}/segments`,
      { key: 'beta', included: ['ann', 'bob'], rules: [] },
      201,
    );
    expect(made).toMatchObject({ key: 'beta', included: ['ann', 'bob'], excluded: [] });
    await sendOk(admin, 'PATCH', `${ENV}/segments/beta`, { excluded: ['carl'] });
    const list = await sendOk(admin, 'GET', `${ENV}/segments`, undefined);
    expect(list.map((s: Json) => [s.key, s.excluded])).toEqual([['beta', ['carl']]]);
    const history = await sendOk(admin, 'GET', `${ENV}/history?flag=segment:beta`, undefined);
    expect(history[0]).toMatchObject({
      action: 'updated',
      changes: [{ field: 'excluded', from: [], to: ['carl'] }],
    });
  });
});

describe('who gets what', () => {
  it('answers the saved flag and the unsaved edit side by side, writing nothing', async () => {
    await sendOk(admin, 'PATCH', `${ENV}/flags/banner`, { enabled: true });
    const draft = { rules: BANNER_RULES, prerequisites: [{ flag: 'gate', variants: ['on'] }] };
    const answer = await who('banner', { key: 'zed', email: 'zed@acme.COM' }, draft);
    // A string flag without targeting serves its first variant to everyone: `ON`, and `static`
    // (OpenFeature's STATIC, protocol.md §11.2), as the SDK's getDetail says.
    expect(answer.saved).toEqual({ value: 'Blue!', variant: 'blue', reason: 'ON', static: true });
    expect(answer.draft).toEqual({
      value: 'Blue!',
      variant: 'blue',
      reason: 'RULE_MATCH',
      ruleIndex: 0,
      ruleId: 'staff',
    });
    const saved = await sendOk(admin, 'GET', `${ENV}/flags/banner`, undefined);
    expect(saved.rules).toBeUndefined();
  });

  it('refuses an edit as a PATCH would, naming the JSON path, and still answers the saved flag', async () => {
    const bad = {
      rules: [
        { clauses: [{ attribute: 'email', op: 'startWith', values: ['a'] }], serve: { variant: 'blue' } },
      ],
    };
    const answer = await who('banner', { key: 'zed' }, bad);
    expect(answer.saved.variant).toBe('blue');
    expect(answer.draft.error).toBe('VALIDATION_ERROR');
    expect(answer.draft.message).toMatch(/^rules\[0\]\.clauses\[0\]\.op: /);
    const patch = await admin.call('PATCH', `${ENV}/flags/banner`, bad);
    expect(await expectError(patch, 400, 'VALIDATION_ERROR')).toBe(answer.draft.message);
    const unknownSegment = await who(
      'banner',
      { key: 'zed' },
      {
        rules: [{ clauses: [{ op: 'inSegment', values: ['nobody'] }], serve: { variant: 'red' } }],
      },
    );
    expect(unknownSegment.draft.message).toMatch(/^rules\[0\]\.clauses\[0\]\.values\[0\]: /);
  });

  it('says what a real SDK client then serves, for every kind of user', async () => {
    const rules = await sendOk(admin, 'PATCH', `${ENV}/flags/banner`, {
      rules: BANNER_RULES,
      targets: [{ variant: 'red', keys: ['ann'] }],
      prerequisites: [{ flag: 'gate', variants: ['on'] }],
    });
    expect(rules.rules.map((r: Json) => r.id)).toEqual(['staff', 'beta']);
    sdk = createClient({ baseUrl: t.base, apiKey: KEYS.acmeStageFull, logger: false });
    await sdk.ready({ timeoutMs: 10_000 });
    await whenTrue(sdk, () => sdk!.getDetail('banner', { key: 'ann' }, '').reason === 'TARGET_MATCH');
    const users: Json[] = [
      { key: 'ann' },
      { key: 'zed', email: 'zed@acme.com' },
      { key: 'bob', company: 'initech' },
      { key: 'bob', company: 'globex' },
      { key: 'bob' },
      { key: 'carl', company: 'initech' },
      { email: 'x@acme.com' },
    ];
    const seen = new Set<string>();
    for (const user of users) {
      const { saved } = await who('banner', user);
      const detail = sdk.getDetail('banner', user as never, 'default');
      const { version: _version, ...fromSdk } = detail as Json;
      expect(saved, JSON.stringify(user)).toEqual(fromSdk);
      seen.add(`${saved.reason}:${saved.variant}`);
    }
    // Both halves of the split by company, the target, the case-insensitive rule and the fallthrough.
    expect([...seen].sort()).toEqual(
      ['FALLTHROUGH:blue', 'RULE_MATCH:blue', 'RULE_MATCH:red', 'TARGET_MATCH:red'].sort(),
    );
    await sendOk(admin, 'PATCH', `${ENV}/flags/gate`, { enabled: false });
    const off = await who('banner', { key: 'zed', email: 'zed@acme.com' });
    expect(off.saved).toEqual({
      value: 'Red!',
      variant: 'red',
      reason: 'PREREQUISITE_FAILED',
      prerequisiteKey: 'gate',
    });
    await whenTrue(sdk, () => sdk!.getDetail('banner', { key: 'zed' }, '').reason === 'PREREQUISITE_FAILED');
    await sendOk(admin, 'PATCH', `${ENV}/flags/gate`, { enabled: true });
  });

  it('refuses to delete a segment a flag uses, naming the flag', async () => {
    const res = await admin.call('DELETE', `${ENV}/segments/beta`);
    expect(await expectError(res, 409, 'CONFLICT')).toContain('"banner"');
  });

  it('answers 404 for an unknown flag or environment, 400 for a bad body, 401 without the admin credential', async () => {
    await expectError(
      await admin.call('POST', '/evaluate', { environment: 'acme/staging', flag: 'nope', user: {} }),
      404,
      'NOT_FOUND',
    );
    await expectError(
      await admin.call('POST', '/evaluate', { environment: 'acme/nope', flag: 'banner', user: {} }),
      404,
      'NOT_FOUND',
    );
    await expectError(
      await admin.call('POST', '/evaluate', {
        environment: 'acme/staging',
        flag: 'banner',
        user: { key: 3 },
      }),
      400,
      'VALIDATION_ERROR',
    );
    await expectError(
      await admin.call('POST', '/evaluate', {
        environment: 'acme/staging',
        flag: 'banner',
        user: {},
        extra: 1,
      }),
      400,
      'VALIDATION_ERROR',
    );
    const anonymous = await fetch(`${t.server.url}/admin/api/evaluate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ environment: 'acme/staging', flag: 'banner', user: {} }),
    });
    await expectError(anonymous, 401, 'UNAUTHORIZED');
    const crossSite = await admin.asPage(
      'POST',
      '/evaluate',
      { environment: 'acme/staging', flag: 'banner', user: {} },
      { origin: 'http://evil.example' },
    );
    await expectError(crossSite, 403, 'FORBIDDEN');
  });
});
