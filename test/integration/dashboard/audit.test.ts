/**
 * The audit log (`GET /admin/api/audit`, `docs/protocol.md` §10.6): each change, whoever made it
 * (an API key, the admin token, a person, their token), read back with its actor, action, target,
 * before and after; filtered by project, actor, time and count, newest first; exported as JSON
 * lines; an admin's only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../../src/core/wire/audit.js';
import { type Member, type PeopleDriver, peopleDriver, uniqueEmail } from '../../helpers/people.js';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';

const TOKEN = 'fw_admin_AuditToken00000000000000000000000';
const PRODUCTION = '/environments/acme/production';

let t: TestServer;
let people: PeopleDriver;
let sam: Member;
let viewer: Member;

beforeAll(async () => {
  t = await startTestServer({ adminToken: TOKEN });
  people = peopleDriver(t.server.url, TOKEN);
  sam = await people.join({ email: uniqueEmail('audit'), role: 'admin', name: 'Sam' });
  viewer = await people.join({ email: uniqueEmail('audit-viewer'), role: 'viewer', name: 'Vi' });
});
afterAll(async () => {
  await t?.close();
});

async function audit(query = '', send = people.admin): Promise<AuditRecord[]> {
  const answer = await send('GET', `/audit${query}`);
  expect(answer.status, await answer.clone().text()).toBe(200);
  return (await answer.json()) as AuditRecord[];
}

describe('the audit log', () => {
  it('records who changed what, with before and after', async () => {
    const flag = { key: 'audited', type: 'boolean', enabled: false };
    expect((await t.api('POST', '/flags', flag, KEYS.acmeProdFull)).status).toBe(201);
    expect((await people.admin('PATCH', `${PRODUCTION}/flags/audited`, { enabled: true })).status).toBe(200);
    expect((await sam.page('PATCH', `${PRODUCTION}/flags/audited`, { description: 'by Sam' })).status).toBe(
      200,
    );
    const hook = await people.admin('POST', `${PRODUCTION}/webhooks`, {
      url: 'https://example.com/audit-hook',
      events: ['flag.updated'],
    });
    expect(hook.status).toBe(201);
    const { secret } = (await hook.json()) as { secret: string };
    const key = await sam.page('POST', `${PRODUCTION}/keys`, { access: 'read-only', name: 'audit key' });
    expect(key.status).toBe(201);
    const created = (await key.json()) as { id: string; key: string };
    expect((await sam.page('DELETE', `${PRODUCTION}/keys/${created.id}`)).status).toBe(204);
    const invited = await people.invite({ email: uniqueEmail('audit-invitee'), role: 'viewer' });
    expect((await people.admin('PATCH', `/users/${invited.user.id}`, { disabled: true })).status).toBe(200);

    const records = await audit('?limit=1000');
    const one = (action: string, key: string) =>
      records.find((r) => r.action === action && r.target?.key === key);
    expect(one('flag.created', 'audited')).toMatchObject({
      actor: { type: 'apiKey', id: expect.stringMatching(/^key_/) },
      project: 'acme',
      environment: 'production',
      target: { kind: 'flag', key: 'audited' },
      after: { type: 'boolean', enabled: false },
    });
    const updates = records.filter((r) => r.action === 'flag.updated' && r.target?.key === 'audited');
    expect(updates[0]).toMatchObject({
      actor: { type: 'user', id: sam.user.id, name: 'Sam' },
      before: { description: null },
      after: { description: 'by Sam' },
    });
    expect(updates[1]).toMatchObject({
      actor: { type: 'adminToken', id: 'admin-token' },
      before: { enabled: false },
      after: { enabled: true },
    });
    const hookId = (records.find((r) => r.action === 'webhook.created')?.target?.key ?? '') as string;
    expect(one('webhook.created', hookId)).toMatchObject({
      actor: { type: 'adminToken' },
      project: 'acme',
      after: { url: 'https://example.com/audit-hook', events: ['flag.updated'], active: true },
    });
    expect(one('apiKey.created', created.id)).toMatchObject({
      actor: { type: 'user', id: sam.user.id },
      after: { name: 'audit key', access: 'read-only' },
    });
    expect(one('apiKey.revoked', created.id)).toMatchObject({ actor: { id: sam.user.id } });
    expect(one('user.invited', invited.user.id)).toMatchObject({
      actor: { type: 'adminToken' },
      after: { role: 'viewer', disabled: false },
    });
    expect(one('user.updated', invited.user.id)).toMatchObject({
      before: { disabled: false },
      after: { disabled: true },
    });
    // The members joined: their invitations accepted, by themselves.
    expect(one('invitation.accepted', sam.user.id)).toMatchObject({
      actor: { type: 'user', id: sam.user.id },
    });
    // No secret: not the webhook's, not the key, not the invitation link.
    const text = JSON.stringify(records);
    for (const secretText of [secret, created.key, invited.token, TOKEN])
      expect(text).not.toContain(secretText);
  });

  it('answers newest first, filtered by project, actor, time and count', async () => {
    const all = await audit('?limit=1000');
    const times = all.map((r) => r.at);
    expect(times).toEqual([...times].sort().reverse());
    expect(await audit('?limit=2')).toEqual(all.slice(0, 2));
    const acme = await audit('?project=acme&limit=1000');
    expect(acme.length).toBeGreaterThan(0);
    expect(acme.every((r) => r.project === 'acme')).toBe(true);
    const bySam = await audit(`?actor=${sam.user.id}&limit=1000`);
    expect(bySam.length).toBeGreaterThan(0);
    expect(bySam.every((r) => r.actor.id === sam.user.id || r.actor.user?.id === sam.user.id)).toBe(true);

    // A token's changes count as its user's too.
    const token = await people.token(sam, 'audit bot');
    expect((await token.call('PATCH', `${PRODUCTION}/flags/audited`, { enabled: false })).status).toBe(200);
    const [latest] = await audit(`?actor=${sam.user.id}&limit=1`);
    expect(latest).toMatchObject({ action: 'flag.updated', actor: { type: 'token', id: token.id } });
    expect((await audit(`?actor=${token.id}`)).map((r) => r.action)).toEqual(['flag.updated']);

    const since = latest!.at;
    const recent = await audit(`?since=${encodeURIComponent(since)}`);
    expect(recent.length).toBeGreaterThan(0);
    expect(recent.every((r) => r.at >= since)).toBe(true);

    for (const bad of ['?limit=0', '?limit=1001', '?since=yesterday', '?limit=x'])
      expect((await people.admin('GET', `/audit${bad}`)).status, bad).toBe(400);
  });

  it('exports JSON lines', async () => {
    const answer = await people.admin('GET', '/audit?limit=5000', undefined, {
      accept: 'application/x-ndjson',
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/x-ndjson');
    const lines = (await answer.text()).split('\n');
    expect(lines.at(-1)).toBe('');
    const records = lines.slice(0, -1).map((line) => JSON.parse(line) as AuditRecord);
    expect(records).toEqual(await audit('?limit=1000'));
  });

  it('is an admin’s only', async () => {
    const answer = await viewer.page('GET', '/audit');
    expect(answer.status).toBe(403);
    expect(((await answer.json()) as { message: string }).message).toMatch(/admin/);
  });
});
