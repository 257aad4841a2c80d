/**
 * Who made each change (`docs/protocol.md` §10.6, "Credit"): a flag written by a person's session,
 * by their personal token, by the admin token and by an environment's API key (`/api/v1`) is
 * credited to that actor, alike in the environment's history and in the webhook delivery's
 * `data.actor`; and a durable server keeps people across a restart: a token still acts, an ended
 * session stays ended.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  asBearer,
  cookieOf,
  type Member,
  PASSWORD,
  peopleDriver,
  uniqueEmail,
} from '../../helpers/people.js';
import { startReceiver, type TestReceiver } from '../../helpers/receiver.js';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';

const TOKEN = 'fw_admin_CreditToken0000000000000000000000';
const PRODUCTION = '/environments/acme/production';

let t: TestServer;
let receiver: TestReceiver;
let sam: Member;

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestServer({ adminToken: TOKEN });
  sam = await peopleDriver(t.server.url, TOKEN).join({
    email: uniqueEmail('credit'),
    role: 'editor',
    name: 'Sam',
  });
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

describe('credit', () => {
  it('the history and the webhook payload name who wrote: a user, a token, the admin token, an API key', async () => {
    const people = peopleDriver(t.server.url, TOKEN);
    const hook = await people.admin('POST', `${PRODUCTION}/webhooks`, {
      url: receiver.url,
      events: ['flag.updated'],
    });
    expect(hook.status).toBe(201);
    const token = await people.token(sam, 'deploy bot');
    const flag = (key: string) => ({ key, type: 'rollout', enabled: true, percentage: 5 });

    const writes: Array<[string, Promise<Response>]> = [
      ['by-user', sam.page('POST', `${PRODUCTION}/flags`, flag('by-user'))],
      ['by-token', token.call('POST', `${PRODUCTION}/flags`, flag('by-token'))],
      ['by-admin-token', people.admin('POST', `${PRODUCTION}/flags`, flag('by-admin-token'))],
      ['by-api-key', t.api('POST', '/flags', flag('by-api-key'), KEYS.acmeProdFull)],
    ];
    for (const [key, write] of writes) expect((await write).status, key).toBe(201);

    const wanted = {
      'by-user': { type: 'user', id: sam.user.id, name: 'Sam' },
      'by-token': { type: 'token', id: token.id, name: 'deploy bot', user: { id: sam.user.id, name: 'Sam' } },
      'by-admin-token': { type: 'adminToken', id: 'admin-token', name: 'admin token' },
      'by-api-key': {
        type: 'apiKey',
        id: expect.stringMatching(/^key_[0-9a-f]{16}$/),
        name: expect.any(String),
        hint: expect.stringMatching(/^fw_live_.*0000$/),
      },
    };
    const history = (await (await people.admin('GET', `${PRODUCTION}/history`)).json()) as Array<{
      flag: string;
      actor: unknown;
    }>;
    const credited = Object.fromEntries(
      history.filter((entry) => entry.flag in wanted).map((entry) => [entry.flag, entry.actor]),
    );
    expect(credited).toEqual(wanted);

    const delivered: Record<string, unknown> = {};
    for (let i = 0; i < writes.length; i++) {
      const { json } = await receiver.next();
      delivered[(json.data.flag as { key: string }).key] = json.data.actor;
    }
    expect(delivered).toEqual(wanted);
    // Never the key itself, nor the token.
    const all = JSON.stringify([history, receiver.received.map((r) => r.body)]);
    expect(all).not.toContain(KEYS.acmeProdFull);
    expect(all).not.toContain(token.token);
  });
});

describe('on a durable server', () => {
  it('a token still acts after a restart, and an ended session stays ended', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'flagwire-people-'));
    try {
      let server = await startTestServer({ adminToken: TOKEN, dataDir: dir });
      const people = peopleDriver(server.server.url, TOKEN);
      const member = await people.join({ email: uniqueEmail('durable'), role: 'viewer' }, PASSWORD);
      const token = await people.token(member, 'kept');
      const sessions = (await (await token.call('GET', '/me/sessions')).json()) as Array<{ id: string }>;
      expect(sessions).toHaveLength(1);
      const ended = sessions[0]!.id;
      // A second session, still live at the restart.
      const kept = cookieOf(await people.signIn(member.email, PASSWORD));
      expect((await token.call('DELETE', `/me/sessions/${ended}`)).status).toBe(204);
      expect((await member.page('GET', '/session')).status).toBe(401);
      await server.close();

      server = await startTestServer({ adminToken: TOKEN, dataDir: dir, port: 0 });
      try {
        const origin = server.server.url;
        const who = (headers: Record<string, string>) => fetch(`${origin}/admin/api/session`, { headers });
        const again = asBearer(origin, token.token);
        expect(await (await again('GET', '/session')).json()).toMatchObject({
          user: { id: member.user.id },
          via: 'token',
        });
        expect((await who({ cookie: member.cookie })).status).toBe(401);
        expect((await who({ cookie: kept })).status).toBe(200);
        const listed = (await (await again('GET', '/me/sessions')).json()) as Array<{ id: string }>;
        expect(listed.map((s) => s.id)).not.toContain(ended);
        expect(listed).toHaveLength(1);
      } finally {
        await server.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
