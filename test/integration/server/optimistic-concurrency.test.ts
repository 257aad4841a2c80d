/**
 * Optimistic concurrency (`docs/protocol.md` §3.3): flags and segments answer their
 * version as an `ETag`; `PATCH` and `DELETE` with `If-Match` are refused `412
 * PRECONDITION_FAILED` with the current resource when it moved, and write nothing. Two people
 * editing one flag no longer lose a change. Runs on both stores.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManagementClient, isFlagwireError, isPreconditionFailed } from '../../../src/index.js';
import { type AdminCaller, adminCaller } from '../../helpers/admin.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let t: TestServer;
let admin: AdminCaller;

beforeAll(async () => {
  t = await startTestServer({ adminToken: 'fw_admin_TestToken000000000000000000000' });
  admin = await adminCaller(t.server);
});
afterAll(() => t?.close());

const patch = (path: string, body: unknown, ifMatch?: string) =>
  fetch(`${t.base}${path}`, {
    method: 'PATCH',
    headers: {
      authorization: `Bearer ${t.fullKey}`,
      'content-type': 'application/json',
      ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }),
    },
    body: JSON.stringify(body),
  });

const remove = (path: string, ifMatch?: string) =>
  fetch(`${t.base}${path}`, {
    method: 'DELETE',
    headers: {
      authorization: `Bearer ${t.fullKey}`,
      ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }),
    },
  });

async function etag(path: string): Promise<string> {
  const res = await t.api('GET', path);
  expect(res.status).toBe(200);
  await res.arrayBuffer();
  const tag = res.headers.get('etag');
  expect(tag).toMatch(/^"\d+"$/);
  return tag!;
}

describe('flags (§3.3)', () => {
  it('GET, POST and PATCH answer the version as a strong ETag, the OFREP metadata version', async () => {
    const created = await t.api('POST', '/flags', { key: 'cc-tag', type: 'rollout', percentage: 5 });
    expect(created.status).toBe(201);
    const createdTag = created.headers.get('etag');
    expect(createdTag).toMatch(/^"\d+"$/);
    expect(await etag('/flags/cc-tag')).toBe(createdTag);
    const changed = await patch('/flags/cc-tag', { percentage: 6 }, createdTag!);
    expect(changed.status).toBe(200);
    const changedTag = changed.headers.get('etag');
    expect(Number(JSON.parse(changedTag!))).toBeGreaterThan(Number(JSON.parse(createdTag!)));
    expect(await etag('/flags/cc-tag')).toBe(changedTag);
    const ofrep = await fetch(`${t.server.url}/ofrep/v1/evaluate/flags/cc-tag`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.fullKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ context: { targetingKey: 'u' } }),
    });
    const metadata = ((await ofrep.json()) as { metadata?: { version?: unknown } }).metadata;
    expect(`"${metadata?.version}"`).toBe(changedTag);
  });

  it('a PATCH made against an older version is refused 412 with the current flag, and writes nothing', async () => {
    await t.api('POST', '/flags', { key: 'cc-stale', type: 'rollout', percentage: 10 });
    const base = await etag('/flags/cc-stale');
    // Someone else saves first.
    expect((await patch('/flags/cc-stale', { percentage: 20 }, base)).status).toBe(200);
    const history = await (
      await admin.asPage('GET', '/environments/acme/production/history?flag=cc-stale')
    ).json();
    const refused = await patch('/flags/cc-stale', { description: 'mine' }, base);
    expect(refused.status).toBe(412);
    const body = (await refused.json()) as { error: string; message: string; current: unknown };
    expect(body.error).toBe('PRECONDITION_FAILED');
    expect(body.message).toMatch(/cc-stale/);
    expect(body.current).toMatchObject({ key: 'cc-stale', percentage: 20, description: null });
    expect(refused.headers.get('etag')).toBe(await etag('/flags/cc-stale'));
    expect(await (await t.api('GET', '/flags/cc-stale')).json()).toMatchObject({
      percentage: 20,
      description: null,
    });
    expect(
      await (await admin.asPage('GET', '/environments/acme/production/history?flag=cc-stale')).json(),
    ).toEqual(history);
  });

  it('of racing writes made against one version, exactly one applies', async () => {
    await t.api('POST', '/flags', { key: 'cc-race', type: 'rollout', percentage: 0 });
    const base = await etag('/flags/cc-race');
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => patch('/flags/cc-race', { percentage: 10 + i }, base)),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 412, 412, 412, 412, 412, 412, 412]);
    const winner = answers.find((r) => r.status === 200)!;
    const { percentage } = (await winner.json()) as { percentage: number };
    expect(await (await t.api('GET', '/flags/cc-race')).json()).toMatchObject({ percentage });
  });

  it('If-Match: * and a list that names the current version apply; a weak tag never matches', async () => {
    await t.api('POST', '/flags', { key: 'cc-forms', type: 'boolean' });
    expect((await patch('/flags/cc-forms', { enabled: true }, '*')).status).toBe(200);
    const current = await etag('/flags/cc-forms');
    expect((await patch('/flags/cc-forms', { enabled: false }, `"999999", ${current}`)).status).toBe(200);
    const now = await etag('/flags/cc-forms');
    expect((await patch('/flags/cc-forms', { enabled: true }, `W/${now}`)).status).toBe(412);
  });

  it('a malformed If-Match is 400 VALIDATION_ERROR naming the header', async () => {
    await t.api('POST', '/flags', { key: 'cc-bad', type: 'boolean' });
    for (const header of ['12', '"abc"', '"-1"', '"99999999999999999"']) {
      const res = await patch('/flags/cc-bad', { enabled: true }, header);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({
        error: 'VALIDATION_ERROR',
        message: expect.stringMatching(/If-Match/),
      });
    }
  });

  it('a DELETE made against an older version is refused 412 and the flag stays', async () => {
    await t.api('POST', '/flags', { key: 'cc-del', type: 'boolean' });
    const base = await etag('/flags/cc-del');
    await patch('/flags/cc-del', { enabled: true });
    const refused = await remove('/flags/cc-del', base);
    expect(refused.status).toBe(412);
    expect(await refused.json()).toMatchObject({ error: 'PRECONDITION_FAILED', current: { enabled: true } });
    expect((await t.api('GET', '/flags/cc-del')).status).toBe(200);
    expect((await remove('/flags/cc-del', await etag('/flags/cc-del'))).status).toBe(204);
    expect((await t.api('GET', '/flags/cc-del')).status).toBe(404);
  });

  it('the dashboard admin API honours If-Match on the same routes', async () => {
    await t.api('POST', '/flags', { key: 'cc-admin', type: 'boolean' });
    const base = await etag('/flags/cc-admin');
    await patch('/flags/cc-admin', { enabled: true });
    const refused = await admin.asPage(
      'PATCH',
      '/environments/acme/production/flags/cc-admin',
      { description: 'from the page' },
      { 'if-match': base },
    );
    expect(refused.status).toBe(412);
    expect(await refused.json()).toMatchObject({ error: 'PRECONDITION_FAILED', current: { enabled: true } });
  });
});

describe('segments (§3.3)', () => {
  it('answer an ETag, and a stale PATCH or DELETE is refused 412 with the current segment', async () => {
    const created = await t.api('POST', '/segments', { key: 'cc-seg', included: ['a'] });
    expect(created.status).toBe(201);
    const base = created.headers.get('etag')!;
    expect(await etag('/segments/cc-seg')).toBe(base);
    expect((await patch('/segments/cc-seg', { included: ['a', 'b'] }, base)).status).toBe(200);
    const refused = await patch('/segments/cc-seg', { included: ['a', 'c'] }, base);
    expect(refused.status).toBe(412);
    expect(await refused.json()).toMatchObject({
      error: 'PRECONDITION_FAILED',
      current: { key: 'cc-seg', included: ['a', 'b'] },
    });
    expect((await remove('/segments/cc-seg', base)).status).toBe(412);
    expect(await (await t.api('GET', '/segments/cc-seg')).json()).toMatchObject({ included: ['a', 'b'] });
  });
});

describe('the management client (§3.3)', () => {
  it('reads a version and writes only if unchanged, rejecting with the current resource', async () => {
    const client = createManagementClient({ baseUrl: t.base, apiKey: t.fullKey });
    await client.flags.create({ key: 'cc-client', type: 'rollout', percentage: 1 });
    const mine = await client.flags.read('cc-client');
    expect(mine.value).toMatchObject({ key: 'cc-client', percentage: 1 });
    expect(`"${mine.version}"`).toBe(await etag('/flags/cc-client'));
    await client.flags.update('cc-client', { percentage: 2 }, { ifVersion: mine.version });
    const error = await client.flags
      .update('cc-client', { percentage: 3 }, { ifVersion: mine.version })
      .catch((e: unknown) => e);
    expect(isFlagwireError(error) && isPreconditionFailed(error)).toBe(true);
    if (!isPreconditionFailed(error)) throw error;
    expect(error.status).toBe(412);
    expect(error.current).toMatchObject({ key: 'cc-client', percentage: 2 });
    await expect(client.flags.delete('cc-client', { ifVersion: mine.version })).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
    });
    const seg = await client.segments.create({ key: 'cc-client-seg' });
    const read = await client.segments.read(seg.key);
    await client.segments.update(seg.key, { included: ['x'] }, { ifVersion: read.version });
    await expect(
      client.segments.update(seg.key, { included: ['y'] }, { ifVersion: read.version }),
    ).rejects.toMatchObject({ code: 'PRECONDITION_FAILED', current: { included: ['x'] } });
    const now = await client.segments.read(seg.key);
    await client.segments.delete(seg.key, { ifVersion: now.version });
    await expect(client.segments.get(seg.key)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
