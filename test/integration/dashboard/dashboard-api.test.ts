/**
 * The dashboard's admin API on a real server (`docs/protocol.md` §10): the admin credential
 * and its session, the CSRF rule, projects, environments, API keys (hashed, revoked at once),
 * history with actors, the event stream, durability across restarts, and turning it off.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../../server/index.js';
import { type AdminCaller, adminCaller } from '../../helpers/admin.js';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';
import { openStream } from '../../helpers/sse.js';

let t: TestServer;
let admin: AdminCaller;

beforeAll(async () => {
  t = await startTestServer({ adminToken: 'fw_admin_TestToken000000000000000000000' });
  admin = await adminCaller(t.server);
});
afterAll(() => t?.close());

describe('the admin credential', () => {
  it('refuses every admin endpoint without it, with an API key, or with a wrong token', async () => {
    for (const path of [
      '/overview',
      '/environments/acme/production/flags',
      '/environments/acme/production/keys',
    ]) {
      const none = await fetch(`${t.server.url}/admin/api${path}`);
      expect(none.status).toBe(401);
      expect(await none.json()).toMatchObject({ error: 'UNAUTHORIZED' });
      const apiKey = await fetch(`${t.server.url}/admin/api${path}`, {
        headers: { authorization: `Bearer ${KEYS.acmeProdFull}` },
      });
      expect(apiKey.status).toBe(401);
      const wrong = await fetch(`${t.server.url}/admin/api${path}`, {
        headers: { authorization: 'Bearer fw_admin_TestToken000000000000000000001' },
      });
      expect(wrong.status).toBe(401);
    }
  });

  it('never opens the service API', async () => {
    const res = await t.api('GET', '/flags', undefined, t.server.adminToken);
    expect(res.status).toBe(401);
  });

  it('exchanges the token for an HttpOnly, SameSite=Strict session cookie, and signs out', async () => {
    const wrong = await fetch(`${t.server.url}/admin/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: t.server.url },
      body: JSON.stringify({ token: 'nope' }),
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    const res = await fetch(`${t.server.url}/admin/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: t.server.url },
      body: JSON.stringify({ token: t.server.adminToken }),
    });
    expect(res.status).toBe(200);
    const cookie = res.headers.get('set-cookie')!;
    // <expiry>.<random id>.<HMAC>: the id is what signing out ends on the server.
    expect(cookie).toMatch(
      /^flagwire_admin=\d+\.[\w-]{22,23}\.[\w-]{43}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=\d+$/,
    );
    expect(cookie).not.toContain(t.server.adminToken!);
    const session = cookie.split(';')[0]!;
    expect((await fetch(`${t.server.url}/admin/api/session`, { headers: { cookie: session } })).status).toBe(
      200,
    );
    const tampered = `${session.slice(0, -2)}xx`;
    expect(
      (await fetch(`${t.server.url}/admin/api/overview`, { headers: { cookie: tampered } })).status,
    ).toBe(401);
    const out = await fetch(`${t.server.url}/admin/api/session`, {
      method: 'DELETE',
      headers: { cookie: session, origin: t.server.url },
    });
    expect(out.headers.get('set-cookie')).toMatch(/^flagwire_admin=; .*Max-Age=0/);
  });

  it('refuses a cookie-authenticated change from a foreign or missing Origin (CSRF)', async () => {
    for (const origin of [undefined, 'http://evil.example', 'null']) {
      const headers: Record<string, string> = { cookie: admin.cookie };
      if (origin) headers.origin = origin;
      const res = await fetch(`${t.server.url}/admin/api/projects`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ key: 'csrf' }),
      });
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ error: 'FORBIDDEN' });
    }
    const form = await fetch(`${t.server.url}/admin/api/projects`, {
      method: 'POST',
      headers: {
        cookie: admin.cookie,
        origin: t.server.url,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'key=csrf',
    });
    expect(form.status).toBe(415);
    const overview = await (await admin.call('GET', '/overview')).json();
    expect(overview.projects.map((p: { key: string }) => p.key)).not.toContain('csrf');
  });
});

describe('projects, environments and keys', () => {
  it('creates a project and an environment whose new key works with the service API at once', async () => {
    expect((await admin.asPage('POST', '/projects', { key: 'shop' })).status).toBe(201);
    expect((await admin.asPage('POST', '/projects', { key: 'shop' })).status).toBe(409);
    expect((await admin.asPage('POST', '/projects', { key: '-bad key' })).status).toBe(400);
    const env = await admin.asPage('POST', '/projects/shop/environments', { key: 'live' });
    expect(env.status).toBe(201);
    expect(await env.json()).toMatchObject({ project: 'shop', key: 'live', source: 'dashboard' });
    expect((await admin.asPage('POST', '/projects/nope/environments', { key: 'x' })).status).toBe(404);

    const created = await admin.asPage('POST', '/environments/shop/live/keys', {
      access: 'full',
      name: 'backend',
    });
    expect(created.status).toBe(201);
    const key = await created.json();
    expect(key).toMatchObject({ access: 'full', name: 'backend', source: 'dashboard', revocable: true });
    expect(key.hint).toBe(`fw_live_…${key.key.slice(-4)}`);
    const flag = await t.api('POST', '/flags', { key: 'in-shop', type: 'boolean' }, key.key);
    expect(flag.status).toBe(201);
    const listed = await (await admin.call('GET', '/environments/shop/live/keys')).json();
    expect(listed).toEqual([{ ...key, key: undefined }].map(({ key: _, ...rest }) => rest));
    const overview = await (await admin.call('GET', '/overview')).json();
    const shop = overview.projects.find((p: { key: string }) => p.key === 'shop');
    expect(shop).toMatchObject({
      source: 'dashboard',
      environments: [{ key: 'live', flags: 1, revision: 1 }],
    });
    const acme = overview.projects.find((p: { key: string }) => p.key === 'acme');
    expect(acme.source).toBe('config');
  });

  it('lists config keys as not revocable, and refuses to revoke them', async () => {
    const keys = await (await admin.call('GET', '/environments/acme/production/keys')).json();
    expect(keys).toHaveLength(2);
    for (const key of keys) expect(key).toMatchObject({ source: 'config', revocable: false });
    expect(JSON.stringify(keys)).not.toContain(KEYS.acmeProdFull);
    const res = await admin.asPage('DELETE', `/environments/acme/production/keys/${keys[0].id}`);
    expect(res.status).toBe(409);
    expect((await t.api('GET', '/flags')).status).toBe(200);
  });

  it('revokes a key at once: its requests get 401 and its open stream is closed', async () => {
    const key = await (
      await admin.asPage('POST', '/environments/acme/production/keys', { access: 'read-only' })
    ).json();
    const stream = await openStream(`${t.server.url}/sdk/events`, { authorization: `Bearer ${key.key}` });
    expect(stream.response.statusCode).toBe(200);
    // Keep-alive: the same connection has authenticated with the key before the revocation.
    expect((await t.api('GET', '/flags', undefined, key.key)).status).toBe(200);
    expect((await admin.asPage('DELETE', `/environments/acme/production/keys/${key.id}`)).status).toBe(204);
    await stream.ended;
    expect((await t.api('GET', '/flags', undefined, key.key)).status).toBe(401);
    expect((await t.api('GET', '/flags')).status).toBe(200); // other keys unaffected
  });
});

describe('flags through the dashboard', () => {
  it('uses the same validation and answers as /api/v1, and records who changed what', async () => {
    const bad = await admin.asPage('POST', '/environments/acme/production/flags', { key: 'x', type: 'nope' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual(
      await (await t.api('POST', '/flags', { key: 'x', type: 'nope' })).json(),
    );
    const created = await admin.asPage('POST', '/environments/acme/production/flags', {
      key: 'dash-flag',
      type: 'rollout',
      percentage: 5,
    });
    expect(created.status).toBe(201);
    await t.api('PATCH', '/flags/dash-flag', { percentage: 30 });
    await admin.asPage('PATCH', '/environments/acme/production/flags/dash-flag', { enabled: true });
    const history = await (
      await admin.call('GET', '/environments/acme/production/history?flag=dash-flag')
    ).json();
    expect(history.map((h: { action: string }) => h.action)).toEqual(['updated', 'updated', 'created']);
    expect(history[0]).toMatchObject({
      flag: 'dash-flag',
      changes: [{ field: 'enabled', from: false, to: true }],
      actor: { type: 'adminToken', id: 'admin-token', name: 'admin token' },
    });
    expect(history[1]).toMatchObject({
      changes: [{ field: 'percentage', from: 5, to: 30 }],
      actor: { type: 'apiKey', hint: `fw_live_…${KEYS.acmeProdFull.slice(-4)}` },
    });
    expect(history[2].changes).toContainEqual({ field: 'type', from: null, to: 'rollout' });
    const seeded = await (
      await admin.call('GET', '/environments/acme/production/history?flag=seeded')
    ).json();
    expect(seeded[0]).toMatchObject({ action: 'created', actor: { type: 'system', id: 'config' } });
    expect((await admin.call('GET', '/environments/acme/production/history?limit=0')).status).toBe(400);
  });

  it('tells the page about every change, whoever made it, on its event stream', async () => {
    const events = await openStream(`${t.server.url}/admin/api/events`, { cookie: admin.cookie });
    expect(events.response.statusCode).toBe(200);
    expect((await events.next()).event).toBe('streams');
    await t.api('POST', '/flags', { key: 'evented', type: 'boolean' });
    const change = await events.next({ skipPings: true });
    expect(change.event).toBe('change');
    expect(JSON.parse(change.data)).toMatchObject({ env: 'acme/production', flag: 'evented' });
    const sdk = await openStream(`${t.server.url}/sdk/events`, {
      authorization: `Bearer ${KEYS.acmeStageFull}`,
    });
    let counts: Record<string, number> = {};
    while (counts['acme/staging'] !== 1) {
      const next = await events.next({ skipPings: true });
      if (next.event === 'streams') counts = JSON.parse(next.data);
    }
    sdk.close();
    events.close();
  });
});

describe('durability and switches', () => {
  it('keeps the generated token, projects, environments, hashed keys and history across a restart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'flagwire-dash-'));
    try {
      const first = await startServer({ dataDir: dir, logger: false });
      expect(first.adminToken).toMatch(/^fw_admin_[A-Za-z0-9]{32}$/);
      expect(first.dashboardUrl).toBe(`${first.url}/#token=${first.adminToken}`);
      const a = await adminCaller(first);
      await a.asPage('POST', '/projects', { key: 'p' });
      await a.asPage('POST', '/projects/p/environments', { key: 'e' });
      const key = await (await a.asPage('POST', '/environments/p/e/keys', { access: 'full' })).json();
      await a.asPage('POST', '/environments/p/e/flags', { key: 'f', type: 'boolean' });
      await first.close();
      const files = await readdir(dir);
      for (const file of files) expect(await readFile(join(dir, file), 'utf8')).not.toContain(key.key);

      const second = await startServer({ dataDir: dir, logger: false });
      expect(second.adminToken).toBe(first.adminToken);
      const flags = await fetch(`${second.url}/api/v1/flags`, {
        headers: { authorization: `Bearer ${key.key}` },
      });
      expect(await flags.json()).toEqual([{ key: 'f', type: 'boolean', enabled: false, description: null }]);
      const b = await adminCaller(second);
      const history = await (await b.call('GET', '/environments/p/e/history')).json();
      expect(history).toHaveLength(1);
      expect(history[0].actor).toEqual({ type: 'adminToken', id: 'admin-token', name: 'admin token' });
      await second.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('takes back an environment the store kept from an earlier set-up, and serves it after restarts', async () => {
    // Found by review: it answered 201 as "default" and was gone after the next restart.
    const dir = await mkdtemp(join(tmpdir(), 'flagwire-dash-'));
    try {
      const first = await startServer({ dataDir: dir, logger: false });
      const oldKey = first.keys.find((k) => k.access === 'full')!.key;
      await first.close();
      const config = { projects: [{ key: 'acme', environments: [{ key: 'prod' }] }] };
      const second = await startServer({ dataDir: dir, config, logger: false });
      const a = await adminCaller(second);
      expect((await a.asPage('POST', '/projects', { key: 'default' })).status).toBe(201);
      const env = await a.asPage('POST', '/projects/default/environments', { key: 'development' });
      expect(env.status).toBe(201);
      expect(await env.json()).toMatchObject({ source: 'dashboard' });
      expect(
        (await fetch(`${second.url}/api/v1/flags`, { headers: { authorization: `Bearer ${oldKey}` } }))
          .status,
      ).toBe(200);
      await second.close();
      const third = await startServer({ dataDir: dir, config, logger: false });
      expect(
        (await fetch(`${third.url}/api/v1/flags`, { headers: { authorization: `Bearer ${oldKey}` } })).status,
      ).toBe(200);
      await third.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('creates an environment once when two requests race', async () => {
    await admin.asPage('POST', '/projects', { key: 'race' });
    const answers = await Promise.all([
      admin.asPage('POST', '/projects/race/environments', { key: 'e' }),
      admin.asPage('POST', '/projects/race/environments', { key: 'e' }),
    ]);
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409]);
    const overview = await (await admin.call('GET', '/overview')).json();
    expect(overview.projects.find((p: { key: string }) => p.key === 'race').environments).toHaveLength(1);
  });

  it('lists a revoked generated key no more in server.keys', async () => {
    const own = await startTestServer({ config: undefined });
    try {
      const a = await adminCaller(own.server);
      const keys = await (await a.call('GET', '/environments/default/development/keys')).json();
      const full = keys.find((k: { access: string }) => k.access === 'full');
      expect((await a.asPage('DELETE', `/environments/default/development/keys/${full.id}`)).status).toBe(
        204,
      );
      expect(own.server.keys.map((k) => k.access)).toEqual(['read-only']);
    } finally {
      await own.close();
    }
  });

  it('serves no dashboard and no admin API with dashboard: false', async () => {
    const off = await startTestServer({ dashboard: false });
    try {
      expect(off.server.adminToken).toBeUndefined();
      expect(off.server.dashboardUrl).toBeUndefined();
      expect((await fetch(`${off.server.url}/`)).status).toBe(404);
      expect((await fetch(`${off.server.url}/admin/api/overview`)).status).toBe(404);
    } finally {
      await off.close();
    }
  });

  it('serves the page with a strict Content-Security-Policy', async () => {
    const res = await fetch(`${t.server.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await res.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
    expect(html).not.toContain(t.server.adminToken!);
  });
});
