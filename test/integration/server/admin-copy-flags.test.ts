/**
 * Copying flags to another environment through the admin API, on a real server
 * (`docs/protocol.md` §10.3): a preview that writes nothing (created, changed with the fields,
 * unchanged, conflicts; segments created or kept), the copy in one entry through the normal
 * write path (the target's SDK stream and webhooks see it; both histories record it), 409
 * `REVISION_CHANGED` for a stale preview, 409 `CONFLICT` for a flag that cannot be copied, and
 * `{error, message}` for every bad request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminCaller, adminCaller } from '../../helpers/admin.js';
import { expectError, type Json, makeEnv, makeKey, sendOk } from '../../helpers/lifecycle.js';
import { startReceiver, type TestReceiver } from '../../helpers/receiver.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { openStream } from '../../helpers/sse.js';

let t: TestServer;
let admin: AdminCaller;
let receiver: TestReceiver;
let staging = '';
let production = '';

const FROM = 'promo/staging';
const TO = 'promo/production';
const preview = (body: Json) => sendOk(admin, 'POST', '/copy-flags/preview', { from: FROM, to: TO, ...body });
const flagsOf = async (env: string) =>
  Object.fromEntries(
    ((await sendOk(admin, 'GET', `${env}/flags`, undefined)) as Json[]).map((f) => [f.key, f]),
  ) as Record<string, Json>;
/** A flag as both environments must agree on: its definition without bookkeeping. */
const definition = ({ key, type, enabled, percentage, description, ...rest }: Json) => {
  const { version: _v, createdAt: _c, updatedAt: _u, ...targeting } = rest;
  return { key, type, enabled, percentage, description, ...targeting };
};

beforeAll(async () => {
  t = await startTestServer();
  admin = await adminCaller(t.server);
  receiver = await startReceiver();
  staging = await makeEnv(admin, 'promo', 'staging');
  production = await makeEnv(admin, 'promo', 'production');
  await sendOk(admin, 'POST', `${staging}/segments`, { key: 'beta', included: ['u1', 'u2'] }, 201);
  for (const flag of [
    { key: 'banner', type: 'boolean', description: 'Top banner' },
    { key: 'ramp', type: 'rollout', percentage: 30, salt: 'ramp-salt' },
    {
      key: 'color',
      type: 'string',
      variants: { red: '#f00', blue: '#00f' },
      fallthrough: { variant: 'blue' },
      rules: [{ id: 'r_beta', clauses: [{ op: 'inSegment', values: ['beta'] }], serve: { variant: 'red' } }],
    },
    { key: 'gated', type: 'boolean', prerequisites: [{ flag: 'banner', variants: ['on'] }] },
  ])
    await sendOk(admin, 'POST', `${staging}/flags`, flag, 201);
  await sendOk(admin, 'PATCH', `${staging}/flags/banner`, { enabled: true });
  await sendOk(admin, 'POST', `${production}/webhooks`, { url: receiver.url, events: ['flag.updated'] }, 201);
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

describe('the preview', () => {
  it('says what each flag and segment would become, and writes nothing', async () => {
    const before = await sendOk(admin, 'GET', '/overview', undefined);
    const answer = await preview({});
    expect(answer.from).toEqual({ project: 'promo', environment: 'staging', revision: 6 });
    expect(answer.to).toEqual({ project: 'promo', environment: 'production', revision: 0 });
    expect(answer.flags.map((f: Json) => [f.key, f.status])).toEqual([
      ['banner', 'created'],
      ['color', 'created'],
      ['gated', 'created'],
      ['ramp', 'created'],
    ]);
    const banner = answer.flags[0];
    expect(banner.changes).toContainEqual({ field: 'enabled', from: null, to: true });
    expect(banner.changes).toContainEqual({ field: 'description', from: null, to: 'Top banner' });
    expect(answer.segments).toEqual([{ key: 'beta', status: 'created', differs: false }]);
    expect(await sendOk(admin, 'GET', `${production}/flags`, undefined)).toEqual([]);
    expect(await sendOk(admin, 'GET', `${production}/segments`, undefined)).toEqual([]);
    expect(await sendOk(admin, 'GET', '/overview', undefined)).toEqual(before);
  });

  it('of some flags only; a prerequisite left behind is a conflict naming it', async () => {
    const answer = await preview({ flags: ['gated', 'ramp'] });
    expect(answer.flags.map((f: Json) => [f.key, f.status])).toEqual([
      ['gated', 'conflict'],
      ['ramp', 'created'],
    ]);
    expect(answer.flags[0].reason).toContain('prerequisites[0].flag');
    expect(answer.flags[0].reason).toContain('banner');
    expect(answer.segments).toEqual([]);
  });
});

describe('the copy', () => {
  it('writes every flag in one go: the SDK stream, the webhooks and both histories see it', async () => {
    const key = await makeKey(admin, production, 'read-only');
    const stream = await openStream(`${t.server.url}/sdk/events`, {
      authorization: `Bearer ${key.key}`,
      'x-flagwire-capabilities': 'targeting',
    });
    await stream.next({ skipPings: true }); // the initial sync
    const { to } = await preview({});
    const done = await sendOk(admin, 'POST', '/copy-flags', {
      from: FROM,
      to: TO,
      expectedRevision: to.revision,
    });
    expect(done.to.revision).toBe(5); // the segment, then four flags
    expect(done.flags.every((f: Json) => f.status === 'created')).toBe(true);

    const source = await flagsOf(staging);
    const target = await flagsOf(production);
    for (const k of Object.keys(source)) expect(definition(target[k]!)).toEqual(definition(source[k]!));
    expect(await sendOk(admin, 'GET', `${production}/segments/beta`, undefined)).toMatchObject({
      included: ['u1', 'u2'],
    });
    // Five revisions, each a frame of the stream opened before.
    const frames = [];
    for (let i = 0; i < 5; i++) frames.push(await stream.next({ skipPings: true }));
    expect(frames.map((f) => f.id?.split(':')[1])).toEqual(['1', '2', '3', '4', '5']);
    expect(frames[0]!.event).toBe('segments:updated');
    stream.close();
    const delivered = new Set<string>();
    while (delivered.size < 4) delivered.add(((await receiver.next()).json.data.flag as Json).key);
    expect([...delivered].sort()).toEqual(['banner', 'color', 'gated', 'ramp']);

    const targetHistory = await sendOk(admin, 'GET', `${production}/history`, undefined);
    expect(targetHistory).toHaveLength(5);
    for (const entry of targetHistory as Json[])
      expect(entry).toMatchObject({ action: 'created', copiedFrom: FROM });
    expect(targetHistory.map((e: Json) => e.flag)).toContain('segment:beta');
    const sourceHistory = await sendOk(admin, 'GET', `${staging}/history?flag=color`, undefined);
    expect(sourceHistory[0]).toMatchObject({ flag: 'color', action: 'copied', copiedTo: TO, changes: [] });
    expect(sourceHistory[0].actor).toEqual({ type: 'adminToken', id: 'admin-token', name: 'admin token' });
  });

  it('answers changed with the fields, unchanged, and keeps the target segment as it is', async () => {
    await sendOk(admin, 'PATCH', `${staging}/flags/ramp`, { percentage: 80 });
    await sendOk(admin, 'PATCH', `${production}/segments/beta`, { included: ['p1'] });
    const answer = await preview({});
    const status = Object.fromEntries(answer.flags.map((f: Json) => [f.key, f]));
    expect(status.ramp).toEqual({
      key: 'ramp',
      status: 'changed',
      changes: [{ field: 'percentage', from: 30, to: 80 }],
    });
    for (const k of ['banner', 'color', 'gated']) expect(status[k].status).toBe('unchanged');
    expect(answer.segments).toEqual([{ key: 'beta', status: 'kept', differs: true }]);
    await sendOk(admin, 'POST', '/copy-flags', {
      from: FROM,
      to: TO,
      flags: ['ramp', 'color'],
      expectedRevision: answer.to.revision,
      expectedSourceRevision: answer.from.revision,
    });
    expect((await flagsOf(production)).ramp!.percentage).toBe(80);
    expect(await sendOk(admin, 'GET', `${production}/segments/beta`, undefined)).toMatchObject({
      included: ['p1'],
    });
    const latest = (await sendOk(admin, 'GET', `${production}/history`, undefined))[0];
    expect(latest).toMatchObject({ flag: 'ramp', action: 'updated', copiedFrom: FROM });
  });

  it('refuses a stale preview with 409 REVISION_CHANGED and writes nothing', async () => {
    await sendOk(admin, 'PATCH', `${staging}/flags/banner`, { description: 'Bottom banner' });
    const stale = await preview({});
    await sendOk(admin, 'PATCH', `${production}/flags/gated`, { description: 'moved meanwhile' });
    const body = { from: FROM, to: TO, expectedRevision: stale.to.revision };
    const message = await expectError(await admin.call('POST', '/copy-flags', body), 409, 'REVISION_CHANGED');
    expect(message).toContain(TO);
    expect((await flagsOf(production)).banner!.description).toBe('Top banner');
    // The source moved since the preview: refused too when its revision is given.
    const fresh = await preview({});
    await sendOk(admin, 'PATCH', `${staging}/flags/ramp`, { percentage: 81 });
    const sourceMoved = {
      ...body,
      expectedRevision: fresh.to.revision,
      expectedSourceRevision: fresh.from.revision,
    };
    await expectError(await admin.call('POST', '/copy-flags', sourceMoved), 409, 'REVISION_CHANGED');
  });

  it('refuses a flag of another type with 409 CONFLICT; without it the copy goes', async () => {
    await sendOk(admin, 'POST', `${production}/flags`, { key: 'mixed', type: 'rollout' }, 201);
    await sendOk(admin, 'POST', `${staging}/flags`, { key: 'mixed', type: 'boolean' }, 201);
    const answer = await preview({ flags: ['mixed', 'banner'] });
    expect(answer.flags[0]).toMatchObject({ key: 'mixed', status: 'conflict' });
    expect(answer.flags[0].reason).toContain('type');
    const body = { from: FROM, to: TO, flags: ['mixed', 'banner'], expectedRevision: answer.to.revision };
    expect(await expectError(await admin.call('POST', '/copy-flags', body), 409, 'CONFLICT')).toContain(
      'mixed',
    );
    expect((await flagsOf(production)).banner!.description).toBe('Top banner');
    await sendOk(admin, 'POST', '/copy-flags', { ...body, flags: ['banner'] });
    expect((await flagsOf(production)).banner!.description).toBe('Bottom banner');
  });

  it('changes nothing, and records nothing, when nothing differs', async () => {
    const answer = await preview({ flags: ['banner'] });
    expect(answer.flags[0].status).toBe('unchanged');
    const before = await sendOk(admin, 'GET', `${staging}/history`, undefined);
    const done = await sendOk(admin, 'POST', '/copy-flags', {
      from: FROM,
      to: TO,
      flags: ['banner'],
      expectedRevision: answer.to.revision,
    });
    expect(done.to.revision).toBe(answer.to.revision);
    expect(await sendOk(admin, 'GET', `${staging}/history`, undefined)).toEqual(before);
  });
});

describe('bad requests', () => {
  it('answer {error, message} with a stable code', async () => {
    const cases: Array<[string, unknown, number, string]> = [
      ['/copy-flags/preview', [], 400, 'VALIDATION_ERROR'],
      ['/copy-flags/preview', { from: FROM, to: TO, extra: 1 }, 400, 'VALIDATION_ERROR'],
      ['/copy-flags/preview', { from: 'promo', to: TO }, 400, 'VALIDATION_ERROR'],
      ['/copy-flags/preview', { from: FROM, to: FROM }, 400, 'VALIDATION_ERROR'],
      ['/copy-flags/preview', { from: FROM, to: TO, flags: [] }, 400, 'VALIDATION_ERROR'],
      ['/copy-flags/preview', { from: FROM, to: TO, flags: ['a', 'a'] }, 400, 'VALIDATION_ERROR'],
      ['/copy-flags/preview', { from: FROM, to: TO, flags: 'banner' }, 400, 'VALIDATION_ERROR'],
      ['/copy-flags/preview', { from: FROM, to: 'promo/nope' }, 404, 'NOT_FOUND'],
      ['/copy-flags/preview', { from: FROM, to: TO, flags: ['nope'] }, 404, 'NOT_FOUND'],
      ['/copy-flags', { from: FROM, to: TO }, 400, 'VALIDATION_ERROR'],
      ['/copy-flags', { from: FROM, to: TO, expectedRevision: -1 }, 400, 'VALIDATION_ERROR'],
      ['/copy-flags', { from: FROM, to: TO, expectedRevision: '3' }, 400, 'VALIDATION_ERROR'],
    ];
    for (const [path, body, status, code] of cases)
      await expectError(await admin.call('POST', path, body), status, code);
    const res = await fetch(`${t.server.url}/admin/api/copy-flags/preview`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.server.adminToken}`, 'content-type': 'application/json' },
      body: '{"from":',
    });
    await expectError(res, 400, 'INVALID_JSON');
    // Not without the admin credential.
    const anon = await fetch(`${t.server.url}/admin/api/copy-flags/preview`, { method: 'POST' });
    await expectError(anon, 401, 'UNAUTHORIZED');
  });
});

describe('variants (editable, `docs/protocol.md` §12.1)', () => {
  it('carries them; refuses removing one that a flag the copy leaves lists as a prerequisite', async () => {
    const palette = { key: 'palette', type: 'string', fallthrough: { variant: 'a' }, offVariant: 'a' };
    await sendOk(admin, 'POST', `${staging}/flags`, { ...palette, variants: { a: 'A', c: 'C' } }, 201);
    await sendOk(admin, 'POST', `${production}/flags`, { ...palette, variants: { a: 'A', b: 'B' } }, 201);
    const dep = { key: 'dep', type: 'boolean', prerequisites: [{ flag: 'palette', variants: ['b'] }] };
    await sendOk(admin, 'POST', `${production}/flags`, dep, 201);

    let answer = await preview({ flags: ['palette'] });
    expect(answer.flags[0]).toMatchObject({ key: 'palette', status: 'conflict' });
    expect(answer.flags[0].reason).toContain('variant "b" by flag "dep"');

    await sendOk(admin, 'PATCH', `${production}/flags/dep`, {
      prerequisites: [{ flag: 'palette', variants: ['a'] }],
    });
    answer = await preview({ flags: ['palette'] });
    expect(answer.flags[0]).toMatchObject({
      key: 'palette',
      status: 'changed',
      changes: [{ field: 'variants', from: { a: 'A', b: 'B' }, to: { a: 'A', c: 'C' } }],
    });
    await sendOk(admin, 'POST', '/copy-flags', {
      from: FROM,
      to: TO,
      flags: ['palette'],
      expectedRevision: answer.to.revision,
    });
    expect((await flagsOf(production)).palette!.variants).toEqual({ a: 'A', c: 'C' });
  });
});
