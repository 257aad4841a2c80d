/**
 * Single sign-on to the dashboard (`docs/protocol.md` §10.6) against a real OpenID Connect
 * provider (`oidc-provider`, in this process on 127.0.0.1): in headless Chromium, "sign in with
 * SSO" goes to the provider's login form and lands signed in on the dashboard (`via: "oidc"`),
 * with an account made for the person; the same person again is the same account. Every refusal
 * (a wrong `state`, a replayed callback, no pending sign-in, the provider's error, an e-mail
 * address outside the allowed domains or not verified, an ID token for another audience) sends
 * the browser to `/#sso-error=...` and makes neither a session nor an account.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchedChromium } from '../../helpers/browser.js';
import { collectProblems } from '../../helpers/dashboard-page.js';
import {
  CLIENT_ID,
  CLIENT_SECRET,
  type FakeProvider,
  signInAtProvider,
  startFakeProvider,
  startOidcProvider,
  type TestProvider,
} from '../../helpers/oidc-provider.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const browser = launchedChromium();
let provider: TestProvider;
let fake: FakeProvider;
/** Signs in through `provider`; e-mail addresses of example.com only. */
let t: TestServer;
/** Signs in through `fake`. */
let tf: TestServer;

const callbackOf = (t: TestServer) => `${t.server.url}/admin/oidc/callback`;

beforeAll(async () => {
  // Each provider listens first (its issuer), flagwire starts with it, then the provider learns
  // flagwire's redirect URI.
  provider = await startOidcProvider();
  t = await startTestServer({
    oidc: {
      issuer: provider.issuer,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      allowedDomains: ['Example.com'],
    },
  });
  provider.configure(callbackOf(t));
  fake = await startFakeProvider();
  tf = await startTestServer({
    oidc: { issuer: fake.issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, defaultRole: 'editor' },
  });
  fake.configure(callbackOf(tf));
  provider.accounts.set('alice', { email: 'Alice@Example.com', email_verified: true, name: 'Alice Liddell' });
  provider.accounts.set('bob', { email: 'bob@example.com', email_verified: true, name: 'Bob' });
  provider.accounts.set('carol', { email: 'carol@example.com', email_verified: true });
  provider.accounts.set('mallory', { email: 'mallory@elsewhere.test', email_verified: true });
  provider.accounts.set('eve', { email: 'eve@example.com', email_verified: false });
}, 60_000);

afterAll(async () => {
  await t?.close();
  await tf?.close();
  await provider?.close();
  await fake?.close();
});

interface Answer {
  status: number;
  location: string;
  cookies: string[];
}

async function get(url: string, cookie?: string): Promise<Answer> {
  const response = await fetch(url, { redirect: 'manual', ...(cookie && { headers: { cookie } }) });
  await response.body?.cancel();
  return {
    status: response.status,
    location: response.headers.get('location') ?? '',
    cookies: response.headers.getSetCookie(),
  };
}

/** `GET /admin/oidc/login`: the provider's authorization URL and the pending sign-in's cookie. */
async function startLogin(t: TestServer): Promise<{ authorization: URL; cookie: string }> {
  const answer = await get(`${t.server.url}/admin/oidc/login`);
  expect(answer.status).toBe(302);
  const set = answer.cookies.find((c) => c.startsWith('flagwire_oidc='));
  expect(set).toMatch(/; HttpOnly; SameSite=Lax; Path=\/admin\/oidc; Max-Age=600/);
  return { authorization: new URL(answer.location), cookie: set!.split(';')[0]! };
}

/** Signs `login` in at the provider: the callback URL it sends the browser to, and the pending cookie. */
async function atProvider(login: string): Promise<{ callback: URL; cookie: string }> {
  const { authorization, cookie } = await startLogin(t);
  return { callback: await signInAtProvider(authorization.href, login, callbackOf(t)), cookie };
}

const sessionCookieIn = (answer: Answer) => answer.cookies.find((c) => c.startsWith('flagwire_admin='));

async function emails(t: TestServer): Promise<string[]> {
  const response = await fetch(`${t.server.url}/admin/api/users`, {
    headers: { authorization: `Bearer ${t.server.adminToken}` },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as Array<{ email: string }>).map((u) => u.email).sort();
}

async function sessionOf(t: TestServer, cookie: string) {
  const response = await fetch(`${t.server.url}/admin/api/session`, { headers: { cookie } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A refusal: back to the dashboard with the message in the fragment, no session, the pending cookie cleared. */
function expectRefused(answer: Answer, message: RegExp): void {
  expect(answer.status).toBe(303);
  expect(answer.location).toMatch(/^\/#sso-error=/);
  expect(decodeURIComponent(answer.location.slice('/#sso-error='.length))).toMatch(message);
  expect(sessionCookieIn(answer)).toBeUndefined();
  expect(answer.cookies).toContainEqual(expect.stringMatching(/^flagwire_oidc=; .*Max-Age=0/));
}

describe('GET /admin/api/sso', () => {
  it('says single sign-on is offered, and where it starts, without a credential', async () => {
    const response = await fetch(`${t.server.url}/admin/api/sso`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ enabled: true, loginUrl: '/admin/oidc/login' });
  });

  it('says it is not, on a server without it (whose /admin/oidc/ routes are 404)', async () => {
    const plain = await startTestServer();
    try {
      expect(await (await fetch(`${plain.server.url}/admin/api/sso`)).json()).toEqual({
        enabled: false,
        loginUrl: null,
      });
      expect((await get(`${plain.server.url}/admin/oidc/login`)).status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});

describe('signing in through the identity provider', () => {
  it('asks for the authorization code with PKCE (S256), state and nonce, scopes openid email profile', async () => {
    const { authorization } = await startLogin(t);
    expect(authorization.origin).toBe(provider.issuer);
    const q = authorization.searchParams;
    expect(q.get('response_type')).toBe('code');
    expect(q.get('client_id')).toBe(CLIENT_ID);
    expect(q.get('redirect_uri')).toBe(callbackOf(t));
    expect(q.get('scope')).toBe('openid email profile');
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get('state')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(q.get('nonce')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
  });

  it('in Chromium: the provider’s form, then the dashboard signed in via oidc, a viewer account made', async () => {
    const context = await browser().newContext();
    try {
      // Traffic to 127.0.0.1 only: the provider's development page would fetch a web font.
      const elsewhere: string[] = [];
      await context.route(
        (url) => url.hostname !== '127.0.0.1',
        (route) => {
          elsewhere.push(route.request().url());
          return route.abort();
        },
      );
      const page = await context.newPage();
      const problems: string[] = [];
      collectProblems(page, problems);
      // The sign-in screen offers single sign-on (`GET /admin/api/sso`): one click to the provider.
      await page.goto(`${t.server.url}/`);
      await page.getByRole('link', { name: 'Sign in with SSO' }).click();
      // The provider's own page (oidc-provider's development login form).
      await page.waitForURL((url) => url.origin === provider.issuer);
      await page.locator('input[name="login"]').fill('alice');
      await page.locator('input[name="password"]').fill('whatever the provider takes');
      await page.getByRole('button', { name: 'Sign-in' }).click();
      await page.waitForURL((url) => url.origin === t.server.url && url.pathname === '/');
      expect(page.url()).not.toContain('sso-error');
      const session = await page.evaluate(async () => {
        const response = await fetch('/admin/api/session');
        return { status: response.status, body: await response.json() };
      });
      expect(session.status).toBe(200);
      // The dashboard names who signed in.
      await page.getByText('Alice Liddell').first().waitFor();
      expect(session.body).toMatchObject({
        signedIn: true,
        via: 'oidc',
        user: { email: 'alice@example.com', name: 'Alice Liddell', role: 'viewer' },
      });
      // The pending sign-in's cookie is gone, the session cookie is the dashboard's own.
      // (Cookies ignore ports: the provider's, on 127.0.0.1 too, are left out.)
      const cookies = (await context.cookies(t.server.url)).filter((c) => c.name.startsWith('flagwire_'));
      expect(cookies.map((c) => c.name)).toEqual(['flagwire_admin']);
      expect(cookies[0]).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
      expect(await emails(t)).toContain('alice@example.com');
      // The only failures are the provider page's requests that were not let out.
      expect(elsewhere.every((url) => !url.startsWith(t.server.url))).toBe(true);
      expect(problems.filter((p) => !/Failed to load resource: net::ERR_FAILED/.test(p))).toEqual([]);
      expect(problems.length).toBeLessThanOrEqual(elsewhere.length);
    } finally {
      await context.close();
    }
  });

  it('in Chromium: a refused sign-in comes back to the sign-in screen, which says why and clears the address', async () => {
    const context = await browser().newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${t.server.url}/#sso-error=${encodeURIComponent('that account is disabled')}`);
      await page.getByText('Single sign-on did not sign you in: that account is disabled').waitFor();
      expect(new URL(page.url()).hash).toBe('');
      await page.getByRole('link', { name: 'Sign in with SSO' }).waitFor();
    } finally {
      await context.close();
    }
  });

  it('over HTTP: signs the same person in again as the same account, the e-mail read from userinfo', async () => {
    const before = await emails(t);
    const sessions: string[] = [];
    for (let round = 0; round < 2; round++) {
      const { callback, cookie } = await atProvider('bob');
      const answer = await get(callback.href, cookie);
      expect(answer.status).toBe(303);
      expect(answer.location).toBe('/');
      const session = sessionCookieIn(answer);
      expect(session).toMatch(/; HttpOnly; SameSite=Strict; Path=\//);
      sessions.push(session!.split(';')[0]!);
    }
    expect(await emails(t)).toEqual([...before, 'bob@example.com'].sort());
    const [first, second] = await Promise.all(sessions.map((cookie) => sessionOf(t, cookie)));
    expect(first!.body).toMatchObject({ via: 'oidc', user: { email: 'bob@example.com' } });
    expect((second!.body.user as { id: string }).id).toBe((first!.body.user as { id: string }).id);
  });

  it('names the account by the address when the provider gives no name, and lands on the return path', async () => {
    const answer = await get(`${t.server.url}/admin/oidc/login?return=${encodeURIComponent('/#/people')}`);
    const cookie = answer.cookies.find((c) => c.startsWith('flagwire_oidc='))!.split(';')[0]!;
    const done = await get((await signInAtProvider(answer.location, 'carol', callbackOf(t))).href, cookie);
    expect(done.location).toBe('/#/people');
    const { body } = await sessionOf(t, sessionCookieIn(done)!.split(';')[0]!);
    expect(body).toMatchObject({ via: 'oidc', user: { email: 'carol@example.com', name: 'carol' } });
  });
});

describe('a refused sign-in creates neither a session nor an account', () => {
  it('a wrong state', async () => {
    const before = await emails(t);
    provider.accounts.set('dave', { email: 'dave@example.com', email_verified: true });
    const { callback, cookie } = await atProvider('dave');
    callback.searchParams.set('state', 'not-the-state-that-was-sent');
    expectRefused(await get(callback.href, cookie), /state/);
    expect(await emails(t)).toEqual(before);
  });

  it('a replayed callback: the pending sign-in is used once', async () => {
    provider.accounts.set('frank', { email: 'frank@example.com', email_verified: true });
    const { callback, cookie } = await atProvider('frank');
    const first = await get(callback.href, cookie);
    expect(sessionCookieIn(first)).toBeDefined();
    const after = await emails(t);
    // The same callback again, with the same cookie: nothing pending any more.
    expectRefused(await get(callback.href, cookie), /expired or was used already/);
    // With the cookie of a new sign-in: its state is not the code's.
    const fresh = await startLogin(t);
    expectRefused(await get(callback.href, fresh.cookie), /state/);
    expect(await emails(t)).toEqual(after);
  });

  it('no pending sign-in at all (no cookie, or one the server never gave)', async () => {
    const before = await emails(t);
    const { callback } = await atProvider('bob');
    expectRefused(await get(callback.href), /expired or was used already/);
    expectRefused(await get(callback.href, `flagwire_oidc=${'A'.repeat(43)}`), /expired or was used already/);
    expect(await emails(t)).toEqual(before);
  });

  it("the provider's error answer", async () => {
    const before = await emails(t);
    const { authorization, cookie } = await startLogin(t);
    const state = authorization.searchParams.get('state')!;
    const answer = await get(
      `${callbackOf(t)}?error=access_denied&error_description=End-User+aborted+interaction&state=${state}&iss=${encodeURIComponent(provider.issuer)}`,
      cookie,
    );
    expectRefused(answer, /access_denied.*aborted/);
    expect(await emails(t)).toEqual(before);
  });

  it('an e-mail address outside the allowed domains', async () => {
    const before = await emails(t);
    const { callback, cookie } = await atProvider('mallory');
    expectRefused(await get(callback.href, cookie), /elsewhere\.test may not sign in/);
    expect(await emails(t)).toEqual(before);
  });

  it('an e-mail address the provider has not verified', async () => {
    const before = await emails(t);
    const { callback, cookie } = await atProvider('eve');
    expectRefused(await get(callback.href, cookie), /not verified/);
    expect(await emails(t)).toEqual(before);
  });

  it('an ID token for another audience (a provider that signs one); the same token for flagwire signs in', async () => {
    const signIn = async () => {
      const { authorization, cookie } = await startLogin(tf);
      const back = await get(authorization.href);
      expect(back.location.startsWith(callbackOf(tf))).toBe(true);
      return get(back.location, cookie);
    };
    fake.audience = 'another-client';
    expectRefused(await signIn(), /aud/);
    expect(await emails(tf)).toEqual([]);
    // The control: the very same provider, the token for flagwire's client id.
    fake.audience = CLIENT_ID;
    const answer = await signIn();
    expect(sessionCookieIn(answer)).toBeDefined();
    expect(await emails(tf)).toEqual(['fake@example.com']);
    const { body } = await sessionOf(tf, sessionCookieIn(answer)!.split(';')[0]!);
    expect(body).toMatchObject({ via: 'oidc', user: { role: 'editor' } });
  });

  it('a provider that cannot be reached: refused, and tried again at the next sign-in', async () => {
    const { port } = await import('node:net').then(
      ({ createServer }) =>
        new Promise<{ port: number }>((resolve) => {
          const probe = createServer();
          probe.listen(0, '127.0.0.1', () => {
            const { port } = probe.address() as { port: number };
            probe.close(() => resolve({ port }));
          });
        }),
    );
    const down = await startTestServer({
      oidc: { issuer: `http://127.0.0.1:${port}`, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
    });
    try {
      for (let attempt = 0; attempt < 2; attempt++)
        expectRefused(await get(`${down.server.url}/admin/oidc/login`), /cannot be reached/);
    } finally {
      await down.close();
    }
  });
});
