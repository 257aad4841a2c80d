/**
 * People's accounts on the admin API (`docs/protocol.md` §10.6): invitations (a link shown once,
 * used once, expiring), signing in (one answer to every failure, throttled), changes that count
 * from the next request (disabled, a new role), sessions kept on the server (listed, ended on
 * request, ended by the clock: unused too long or too old) and personal access tokens; and no
 * password or token secret in any answer but the one that shows it, nor in the server's log.
 * Every password costs a scrypt on the server (about a second): accounts are made once, at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '../../../server/logger.js';
import {
  cookieOf,
  inviteTokenOf,
  type Member,
  PASSWORD,
  type PeopleDriver,
  type Personal,
  peopleDriver,
  uniqueEmail,
} from '../../helpers/people.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const TOKEN = 'fw_admin_AccountsToken00000000000000000000';
const SECOND = 1000;
const HOUR = 3600 * SECOND;

/** Every line the servers logged. */
const logged: string[] = [];
const logger: Logger = {
  info: (line) => logged.push(line),
  warn: (line) => logged.push(line),
  error: (line) => logged.push(line),
};

/** Every exchange with the admin API: what was sent, and the answer's body. */
const traffic: Array<{ what: string; sent: string; answer: string }> = [];
const realFetch = globalThis.fetch;

let t: TestServer;
let people: PeopleDriver;
/** A server whose people's clock the tests move: links, sessions and tokens expire by it. */
let timed: TestServer;
let later: PeopleDriver;
let clock = Date.now();
/** The one account of `timed`, and the clock when it signed in (accepting its link). */
let tim: Member;
let joined: number;
/** Tim's token: it lists Tim's live sessions without using one. */
let watcher: Personal;
/** An editor, the one who signs in by password here. */
let sam: Member;
/** Accounts each test changes or locks on its own. */
let locked: Member;
let leaving: Member;
let promoted: Member;

beforeAll(async () => {
  globalThis.fetch = async (input, init) => {
    const response = await realFetch(input, init);
    const url = input instanceof Request ? input.url : String(input);
    if (url.includes('/admin/api/'))
      traffic.push({
        what: `${init?.method ?? 'GET'} ${new URL(url).pathname} ${response.status}`,
        sent: typeof init?.body === 'string' ? init.body : '',
        answer: response.headers.get('content-type')?.startsWith('application/json')
          ? await response.clone().text()
          : '',
      });
    return response;
  };
  t = await startTestServer({ adminToken: TOKEN, logger });
  people = peopleDriver(t.server.url, TOKEN);
  timed = await startTestServer({
    adminToken: TOKEN,
    logger,
    people: {
      now: () => clock,
      invitationMs: 24 * HOUR,
      idleSeconds: 3600,
      sessionSeconds: 4 * 3600,
      seenEverySeconds: 60,
    },
  });
  later = peopleDriver(timed.server.url, TOKEN);
  joined = clock;
  [tim, sam, locked, leaving, promoted] = await Promise.all([
    later.join({ email: uniqueEmail('tim'), role: 'viewer' }),
    people.join({ email: uniqueEmail('sam'), role: 'editor', name: 'Sam' }),
    people.join({ email: uniqueEmail('locked'), role: 'viewer' }),
    people.join({ email: uniqueEmail('leaving'), role: 'editor' }),
    people.join({ email: uniqueEmail('promoted'), role: 'viewer' }),
  ]);
  watcher = await later.token(tim, 'session watcher');
});
afterAll(async () => {
  globalThis.fetch = realFetch;
  await t?.close();
  await timed?.close();
});

const json = async (response: Response) => ({ status: response.status, body: await response.json() });

describe('invitations', () => {
  it('shows the link once; a short password leaves it working; accepting signs in; the link works once', async () => {
    const email = uniqueEmail('ada');
    const invited = await people.invite({ email, role: 'editor', projects: { acme: 'viewer' } });
    // One of the server's own origins (no `Origin` was sent: the first it answers at).
    const port = new URL(t.server.url).port;
    expect(invited.inviteUrl).toMatch(
      new RegExp(`^http://(127\\.0\\.0\\.1|localhost):${port}/#invite=[A-Za-z0-9_-]{20,}$`),
    );
    expect(invited.user).toMatchObject({ email, role: 'editor', status: 'invited', disabled: false });
    const listed = await (await people.admin('GET', '/users')).text();
    expect(listed).toContain(invited.user.id);
    expect(listed).not.toContain(invited.token);

    const short = await json(await people.accept(invited.token, 'elevenchars'));
    expect(short).toMatchObject({ status: 400, body: { error: 'VALIDATION_ERROR' } });

    const accepted = await people.accept(invited.token, PASSWORD, 'Ada L.');
    expect(await accepted.clone().json()).toEqual({
      signedIn: true,
      user: { id: invited.user.id, email, name: 'Ada L.', role: 'editor', projects: { acme: 'viewer' } },
      via: 'password',
    });
    const page = { cookie: cookieOf(accepted) };
    const who = await json(await fetch(`${t.server.url}/admin/api/session`, { headers: page }));
    expect(who).toMatchObject({ status: 200, body: { user: { id: invited.user.id }, via: 'password' } });

    const again = await json(await people.accept(invited.token, PASSWORD));
    expect(again).toMatchObject({ status: 410, body: { error: 'GONE' } });
    const user = await json(await people.admin('GET', `/users/${invited.user.id}`));
    expect(user.body).toMatchObject({ status: 'active', name: 'Ada L.' });
  });

  it('a link replaced by a new invitation is gone', async () => {
    const replaced = await people.invite({ email: uniqueEmail('replaced'), role: 'viewer' });
    const renewed = await json(await people.admin('POST', `/users/${replaced.user.id}/invitation`));
    expect(renewed.status).toBe(201);
    expect(inviteTokenOf(renewed.body.inviteUrl)).not.toBe(replaced.token);
    expect((await people.accept(replaced.token, PASSWORD)).status).toBe(410);
  });
});

describe('signing in', () => {
  it('answers an unknown address and a wrong password alike', async () => {
    const unknown = await people.signIn(uniqueEmail('nobody'), 'some-password-here');
    const wrong = await people.signIn(sam.email, 'not-sams-password');
    const [a, b] = [await unknown.text(), await wrong.text()];
    expect({ status: unknown.status, body: a }).toEqual({ status: wrong.status, body: b });
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('set-cookie')).toBeNull();
    expect(wrong.headers.get('set-cookie')).toBeNull();

    const right = await people.signIn(sam.email, sam.password);
    expect(await right.clone().json()).toMatchObject({ user: { id: sam.user.id }, via: 'password' });
    expect(cookieOf(right)).toMatch(/^flagwire_admin=/);
  });

  it('locks an account after five failures: 429 with Retry-After, for the right password too', async () => {
    const answers: number[] = [];
    for (let i = 0; i < 5; i++) answers.push((await people.signIn(locked.email, 'a-wrong-password')).status);
    expect(answers).toEqual([401, 401, 401, 401, 401]);
    const right = await people.signIn(locked.email, locked.password);
    expect(right.status).toBe(429);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await right.json()).toMatchObject({ error: 'RATE_LIMITED' });
    expect(right.headers.get('set-cookie')).toBeNull();
    // The account's sessions go on: only signing in is locked.
    expect((await locked.page('GET', '/session')).status).toBe(200);
  });

  it('checks one password of an account at a time: a burst is answered 429 but for one', async () => {
    const email = uniqueEmail('burst');
    const statuses = await Promise.all(
      [1, 2, 3].map(async () => (await people.signIn(email, 'a-wrong-password')).status),
    );
    expect(statuses.sort()).toEqual([401, 429, 429]);
  });
});

describe('changes count from the next request', () => {
  it("a disabled user's session and token stop; their right password is refused as a wrong one", async () => {
    const token = await people.token(leaving);
    expect((await leaving.page('GET', '/session')).status).toBe(200);
    expect((await token.call('GET', '/overview')).status).toBe(200);
    expect((await people.admin('PATCH', `/users/${leaving.user.id}`, { disabled: true })).status).toBe(200);
    expect((await leaving.page('GET', '/session')).status).toBe(401);
    expect((await token.call('GET', '/overview')).status).toBe(401);
    expect((await token.call('GET', '/session')).status).toBe(401);
    const signIn = await people.signIn(leaving.email, leaving.password);
    expect(signIn.status).toBe(401);
    expect(await signIn.json()).toEqual({
      error: 'UNAUTHORIZED',
      message: 'that e-mail address and password do not match',
    });
  });

  it('a new role, globally or in a project, counts from the next request', async () => {
    const token = await people.token(promoted);
    const flag = (key: string) => ({ key, type: 'rollout', enabled: true, percentage: 10 });
    const create = (key: string) => token.call('POST', '/environments/acme/production/flags', flag(key));
    const refused = await json(await create('promoted-1'));
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/needs the editor role in project "acme"; you are a viewer$/);

    await people.admin('PATCH', `/users/${promoted.user.id}`, { role: 'editor' });
    expect((await create('promoted-1')).status).toBe(201);

    await people.admin('PATCH', `/users/${promoted.user.id}`, { projects: { acme: 'viewer' } });
    expect((await create('promoted-2')).status).toBe(403);
    expect(
      (await token.call('POST', '/environments/other/production/flags', flag('promoted-2'))).status,
    ).toBe(201);
  });
});

describe('sessions', () => {
  it('lists one’s own sessions, and ends one on request', async () => {
    const second = cookieOf(await people.signIn(sam.email, sam.password));
    const asSecond = (path: string) =>
      fetch(`${t.server.url}/admin/api${path}`, { headers: { cookie: second } });
    type Listed = Array<{ id: string; current: boolean; via: string }>;
    const fromSecond = (await (await asSecond('/me/sessions')).json()) as Listed;
    const fromFirst = (await (await sam.page('GET', '/me/sessions')).json()) as Listed;
    expect(fromSecond.map((s) => s.id).sort()).toEqual(fromFirst.map((s) => s.id).sort());
    expect(fromSecond.length).toBeGreaterThanOrEqual(2);
    expect(fromSecond.every((s) => s.via === 'password')).toBe(true);
    const first = fromFirst.find((s) => s.current)!.id;
    const secondId = fromSecond.find((s) => s.current)!.id;
    expect(secondId).not.toBe(first);

    // Nobody else's: the admin token's list holds none of Sam's, and it may not end them.
    expect(await (await people.admin('GET', '/me/sessions')).text()).not.toContain(first);
    expect((await people.admin('DELETE', `/me/sessions/${secondId}`)).status).toBe(404);

    expect((await sam.page('DELETE', `/me/sessions/${secondId}`)).status).toBe(204);
    expect((await asSecond('/session')).status).toBe(401);
    expect((await sam.page('GET', '/session')).status).toBe(200);
  });
});

describe('by the clock', () => {
  it('a session ends `sessionSeconds` after sign-in, however much it is used', async () => {
    const lastSeen = async () =>
      ((await (await watcher.call('GET', '/me/sessions')).json()) as Array<{ lastSeenAt: string }>).map(
        (s) => s.lastSeenAt,
      );
    const seconds = (ms: number) => new Date(Math.floor(ms / SECOND) * SECOND).toISOString();
    // Used every 50 minutes (the idle end is an hour): it lives on, its use recorded each time.
    for (let minutes = 50; minutes <= 200; minutes += 50) {
      clock = joined + minutes * 60 * SECOND;
      expect((await tim.page('GET', '/session')).status, `after ${minutes} minutes`).toBe(200);
      await expect.poll(lastSeen).toContain(seconds(clock));
    }
    clock = joined + 4 * HOUR - SECOND;
    expect((await tim.page('GET', '/session')).status).toBe(200);
    clock = joined + 4 * HOUR;
    expect((await tim.page('GET', '/session')).status).toBe(401);
    expect(await lastSeen()).toEqual([]);
  });

  it('a session unused for `idleSeconds` ends', async () => {
    const cookie = cookieOf(await later.signIn(tim.email, tim.password));
    const listed = async () =>
      ((await (await watcher.call('GET', '/me/sessions')).json()) as unknown[]).length;
    const from = clock;
    // Listed by the token (which uses no session): alive a second before the hour, not after it.
    clock = from + 3599 * SECOND;
    expect(await listed()).toBe(1);
    clock = from + 3600 * SECOND;
    expect(await listed()).toBe(0);
    expect((await fetch(`${timed.server.url}/admin/api/session`, { headers: { cookie } })).status).toBe(401);
  });

  it('a personal token stops at its `expiresAt`', async () => {
    const at = new Date(clock + HOUR).toISOString();
    const made = await watcher.call('POST', '/tokens', { name: 'expiring', expiresAt: at });
    const { token, expiresAt } = (await made.json()) as { token: string; expiresAt: string };
    expect(expiresAt).toBe(at);
    const overview = () =>
      fetch(`${timed.server.url}/admin/api/overview`, { headers: { authorization: `Bearer ${token}` } });
    clock += HOUR - SECOND;
    expect((await overview()).status).toBe(200);
    clock += SECOND;
    expect((await overview()).status).toBe(401);
    expect((await watcher.call('GET', '/overview')).status).toBe(200);
  });

  it('an invitation link past `invitationMs` is gone', async () => {
    const invited = await later.invite({ email: uniqueEmail('late'), role: 'viewer' });
    clock += 24 * HOUR;
    const late = await json(await later.accept(invited.token, PASSWORD));
    expect(late).toMatchObject({ status: 410, body: { error: 'GONE' } });
  });
});

describe('personal access tokens', () => {
  it('are fw_pat_ and 40 characters, shown once, act as their user, and stop when revoked', async () => {
    const created = await people.token(sam, 'ci');
    expect(created.token).toMatch(/^fw_pat_[A-Za-z0-9]{40}$/);
    expect(created).toMatchObject({ name: 'ci', expiresAt: null, id: expect.stringMatching(/^pat_/) });

    const own = await (await sam.page('GET', '/tokens')).text();
    const everyone = await (await people.admin('GET', '/tokens')).text();
    for (const listed of [own, everyone]) {
      expect(listed).toContain(created.id);
      expect(listed).not.toContain(created.token);
    }
    expect(await (await created.call('GET', '/session')).json()).toEqual({
      signedIn: true,
      user: { id: sam.user.id, email: sam.email, name: 'Sam', role: 'editor', projects: {} },
      via: 'token',
    });
    // No `Origin` is asked of a bearer.
    const flag = { key: 'by-sams-token', type: 'rollout', enabled: false, percentage: 0 };
    expect((await created.call('POST', '/environments/acme/staging/flags', flag)).status).toBe(201);

    // Only its owner (or an admin) revokes it; nobody sees a token expire in the past.
    const other = await people.token(promoted);
    expect((await other.call('DELETE', `/tokens/${created.id}`)).status).toBe(404);
    const past = await sam.page('POST', '/tokens', {
      name: 'late',
      expiresAt: new Date(Date.now() - HOUR).toISOString(),
    });
    expect(past.status).toBe(400);

    expect((await sam.page('DELETE', `/tokens/${created.id}`)).status).toBe(204);
    expect((await created.call('GET', '/session')).status).toBe(401);
    expect((await created.call('GET', '/overview')).status).toBe(401);
  });
});

describe('secrets', () => {
  it('no password or token secret appears in any answer but the one that shows it, nor in the log', () => {
    const passwords = new Set<string>([PASSWORD, TOKEN]);
    const shownOnce = new Set<string>();
    for (const { sent, answer } of traffic) {
      if (sent.includes('"password"')) passwords.add((JSON.parse(sent) as { password: string }).password);
      for (const match of answer.matchAll(/fw_pat_[A-Za-z0-9]{40}|#invite=([A-Za-z0-9_-]+)/g))
        shownOnce.add(match[1] ?? match[0]);
    }
    expect(passwords.size).toBeGreaterThan(2);
    expect(shownOnce.size).toBeGreaterThan(4);
    const leaks: string[] = [];
    for (const { what, answer } of traffic) {
      for (const secret of passwords) if (answer.includes(secret)) leaks.push(`${what} shows a password`);
    }
    for (const secret of shownOnce) {
      const showing = traffic.filter(({ answer }) => answer.includes(secret)).map(({ what }) => what);
      if (showing.length !== 1) leaks.push(`a secret shown by ${showing.join(', ')}`);
    }
    const log = logged.join('\n');
    for (const secret of [...passwords, ...shownOnce]) if (log.includes(secret)) leaks.push('the log');
    expect(leaks).toEqual([]);
  });
});
