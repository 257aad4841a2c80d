/**
 * People of the admin API in tests (`docs/protocol.md` §10.6): inviting an account with the admin
 * token, accepting the link (a password, a session cookie), signing in, personal access tokens,
 * and callers that present each credential. A password costs a scrypt on the server (about a
 * second): make an account once and give it a token for the many calls.
 */
import type { CreatedToken, Invited, Role, User } from '../../src/core/wire/people.js';

export type { Role };

/** A password the server takes (12 characters or more). */
export const PASSWORD = 'correct-horse-battery-staple';

/** What a caller sends: a JSON body when given, and extra headers. */
export type Send = (
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<Response>;

/** `fetch` of `origin` + `/admin/api` + `path` with `headers`, a JSON body when given. */
export function sender(origin: string, headers: Record<string, string>): Send {
  return (method, path, body, extra = {}) => {
    const all: Record<string, string> = { ...headers, ...extra };
    const init: RequestInit = { method, headers: all };
    if (body !== undefined) {
      all['content-type'] = 'application/json';
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
    }
    return fetch(`${origin}/admin/api${path}`, init);
  };
}

/** A caller presenting `token` (the admin token, or a personal one) as a bearer. */
export const asBearer = (origin: string, token: string): Send =>
  sender(origin, { authorization: `Bearer ${token}` });

/** A caller presenting the session `cookie` from the server's own `Origin`, as its page does. */
export const asPage = (origin: string, cookie: string): Send => sender(origin, { cookie, origin });

/** The `name=value` of a `Set-Cookie` answer; throws when there is none. */
export function cookieOf(response: Response): string {
  const set = response.headers.get('set-cookie');
  if (!set) throw new Error(`no Set-Cookie in a ${response.status} answer`);
  return set.split(';')[0]!;
}

/** The invitation token of a link, `<origin>/#invite=<TOKEN>`. */
export function inviteTokenOf(inviteUrl: string): string {
  const match = /#invite=([^&]+)$/.exec(inviteUrl);
  if (!match) throw new Error(`not an invitation link: ${inviteUrl}`);
  return match[1]!;
}

async function expectStatus(response: Response, status: number, what: string): Promise<unknown> {
  if (response.status !== status)
    throw new Error(`${what}: answered ${response.status}, not ${status}: ${await response.text()}`);
  return response.json();
}

export interface NewPerson {
  email: string;
  role: Role;
  name?: string;
  projects?: Record<string, Role>;
}

/** An account that accepted its invitation: its session cookie, and callers by it. */
export interface Member {
  user: User;
  email: string;
  password: string;
  cookie: string;
  /** Calls with the session cookie and the server's own `Origin`. */
  page: Send;
}

/** A personal access token, as `POST /admin/api/tokens` answered it, and a caller presenting it. */
export interface Personal extends CreatedToken {
  call: Send;
}

/** The admin API's people, driven through the admin token. */
export interface PeopleDriver {
  origin: string;
  /** Calls with the admin token as a bearer. */
  admin: Send;
  /** `POST /admin/api/users`: the account and its link (with the link's token). */
  invite(person: NewPerson): Promise<Invited & { token: string }>;
  /** `POST /admin/api/invitations/accept` from the server's own `Origin`: the raw answer. */
  accept(token: string, password: string, name?: string): Promise<Response>;
  /** Invites and accepts (one scrypt): a member signed in by the cookie accepting answered. */
  join(person: NewPerson, password?: string): Promise<Member>;
  /** `POST /admin/api/session` with an e-mail address and password: the raw answer. */
  signIn(email: string, password: string): Promise<Response>;
  /** `POST /admin/api/tokens` as `member` (by its cookie): the token, shown once. */
  token(member: Member, name?: string, expiresAt?: string | null): Promise<Personal>;
}

let made = 0;
/** An e-mail address no other call of this process made. */
export const uniqueEmail = (prefix: string): string => `${prefix}-${++made}-${process.pid}@example.com`;

export function peopleDriver(origin: string, adminToken: string): PeopleDriver {
  const admin = asBearer(origin, adminToken);
  const anonymous = sender(origin, { origin });
  const driver: PeopleDriver = {
    origin,
    admin,
    async invite(person) {
      const invited = (await expectStatus(
        await admin('POST', '/users', person),
        201,
        `inviting ${person.email}`,
      )) as Invited;
      return { ...invited, token: inviteTokenOf(invited.inviteUrl) };
    },
    accept: (token, password, name) =>
      anonymous('POST', '/invitations/accept', { token, password, ...(name !== undefined && { name }) }),
    async join(person, password = PASSWORD) {
      const { token } = await driver.invite(person);
      const accepted = await driver.accept(token, password);
      const body = (await expectStatus(accepted, 200, `accepting ${person.email}'s invitation`)) as {
        user: { id: string };
      };
      const cookie = cookieOf(accepted);
      const user = (await expectStatus(
        await admin('GET', `/users/${body.user.id}`),
        200,
        `reading ${person.email}`,
      )) as User;
      return { user, email: person.email, password, cookie, page: asPage(origin, cookie) };
    },
    signIn: (email, password) => anonymous('POST', '/session', { email, password }),
    async token(member, name = 'test token', expiresAt) {
      const created = (await expectStatus(
        await member.page('POST', '/tokens', { name, ...(expiresAt !== undefined && { expiresAt }) }),
        201,
        `creating a token for ${member.email}`,
      )) as CreatedToken;
      return { ...created, call: asBearer(origin, created.token) };
    },
  };
  return driver;
}
