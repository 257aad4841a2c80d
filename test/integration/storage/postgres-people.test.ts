/**
 * People on several instances sharing one Postgres database (`docs/protocol.md` §10.6): an
 * account, a session or a token made through one instance acts on every other, and a disabled
 * user, a revoked token or an ended session stops on every instance at its next request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlagwireServer } from '../../../server/index.js';
import { freshDatabase, startInstances } from '../../helpers/server.js';

const TOKEN = 'people-instances-admin-token';
const PASSWORD = 'correct horse battery staple';
let a: FlagwireServer;
let b: FlagwireServer;

/** An admin API request through `server`, with a bearer or a cookie (and that server's `Origin`). */
async function call(
  server: FlagwireServer,
  method: string,
  path: string,
  credential: { bearer?: string; cookie?: string },
  body?: unknown,
): Promise<{ status: number; json: unknown; cookie: string | null }> {
  const headers: Record<string, string> = { origin: server.url };
  if (credential.bearer) headers.authorization = `Bearer ${credential.bearer}`;
  if (credential.cookie) headers.cookie = credential.cookie;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${server.url}/admin/api${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  const setCookie = res.headers.get('set-cookie');
  return {
    status: res.status,
    json: text ? JSON.parse(text) : null,
    cookie: setCookie && setCookie.split(';')[0]!,
  };
}

beforeAll(async () => {
  [a, b] = (await startInstances(2, await freshDatabase(), { adminToken: TOKEN })) as [
    FlagwireServer,
    FlagwireServer,
  ];
});

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
});

describe('people across instances sharing a database', () => {
  it('an invitation made on one is accepted on the other; its session and token act on both; disabling stops both at once', async () => {
    const invited = await call(
      a,
      'POST',
      '/users',
      { bearer: TOKEN },
      { email: 'Ada@Example.com', role: 'editor' },
    );
    expect(invited.status).toBe(201);
    const { user, inviteUrl } = invited.json as { user: { id: string }; inviteUrl: string };
    const inviteToken = inviteUrl.slice(inviteUrl.indexOf('#invite=') + '#invite='.length);

    const accepted = await call(
      b,
      'POST',
      '/invitations/accept',
      {},
      { token: inviteToken, password: PASSWORD },
    );
    expect(accepted.status).toBe(200);
    const cookie = accepted.cookie!;
    // Used up on every instance.
    expect(
      (await call(a, 'POST', '/invitations/accept', {}, { token: inviteToken, password: PASSWORD })).status,
    ).toBe(410);

    expect((await call(a, 'GET', '/session', { cookie })).json).toMatchObject({
      via: 'password',
      user: { id: user.id },
    });
    const created = await call(a, 'POST', '/tokens', { cookie }, { name: 'ci' });
    expect(created.status).toBe(201);
    const pat = (created.json as { token: string }).token;
    expect((await call(b, 'GET', '/session', { bearer: pat })).json).toMatchObject({ via: 'token' });

    expect((await call(b, 'PATCH', `/users/${user.id}`, { bearer: TOKEN }, { disabled: true })).status).toBe(
      200,
    );
    for (const server of [a, b]) {
      expect((await call(server, 'GET', '/session', { cookie })).status).toBe(401);
      expect((await call(server, 'GET', '/session', { bearer: pat })).status).toBe(401);
    }
  });

  it('a token revoked and a session ended on one are refused on the other at once', async () => {
    const invited = await call(
      b,
      'POST',
      '/users',
      { bearer: TOKEN },
      { email: 'grace@example.com', role: 'viewer' },
    );
    const inviteUrl = (invited.json as { inviteUrl: string }).inviteUrl;
    const inviteToken = inviteUrl.slice(inviteUrl.indexOf('#invite=') + '#invite='.length);
    const accepted = await call(
      a,
      'POST',
      '/invitations/accept',
      {},
      { token: inviteToken, password: PASSWORD },
    );
    const cookie = accepted.cookie!;
    const pat = (await call(b, 'POST', '/tokens', { cookie }, { name: 'script' })).json as {
      token: string;
      id: string;
    };

    expect((await call(a, 'GET', '/overview', { bearer: pat.token })).status).toBe(200);
    expect((await call(b, 'DELETE', `/tokens/${pat.id}`, { cookie })).status).toBe(204);
    expect((await call(a, 'GET', '/overview', { bearer: pat.token })).status).toBe(401);

    expect((await call(b, 'GET', '/overview', { cookie })).status).toBe(200);
    expect((await call(a, 'DELETE', '/session', { cookie })).status).toBe(204);
    expect((await call(b, 'GET', '/overview', { cookie })).status).toBe(401);
  });
});
