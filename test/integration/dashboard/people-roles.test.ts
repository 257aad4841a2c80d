/**
 * Roles on the admin API (`docs/protocol.md` §10.6, the contract's "people"): every route the
 * admin API serves, called once by each kind of principal (the admin token; users whose global
 * role is admin, editor or viewer; users whose role inside project `acme` differs from their
 * global one; a disabled user, an ended session, a revoked and an expired personal token), and
 * the answers held to one table: let through (anything but `401`/`403`), `403` naming the role
 * needed (and the project), or `401`. The calls name nothing that exists or send a body the
 * route refuses, so whoever is let through changes nothing: the role is checked first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlagwireServer } from '../../../server/index.js';
import { routesOf } from '../../../server/start-server.js';
import { servedOperations } from '../../helpers/openapi-walk.js';
import {
  asBearer,
  type Member,
  type PeopleDriver,
  peopleDriver,
  type Role,
  type Send,
  uniqueEmail,
} from '../../helpers/people.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const TOKEN = 'fw_admin_RolesToken000000000000000000000';
const HOUR = 3600 * 1000;

/** A principal of the matrix: how it calls, and the role it holds globally and inside projects (none: it may not act at all). */
interface Principal {
  call: Send;
  role?: { global: Role; projects?: Record<string, Role> };
}

let t: TestServer;
let people: PeopleDriver;
let clock = Date.now();
const principals: Record<string, Principal> = {};

beforeAll(async () => {
  t = await startTestServer({ adminToken: TOKEN, people: { now: () => clock } });
  people = peopleDriver(t.server.url, TOKEN);
  const join = (role: Role, projects?: Record<string, Role>): Promise<Member> =>
    people.join({ email: uniqueEmail(`roles-${role}`), role, ...(projects && { projects }) });
  // One password each (a scrypt apiece): made at once.
  const [admin, editor, viewer, acmeEditor, acmeViewer, disabled] = await Promise.all([
    join('admin'),
    join('editor'),
    join('viewer'),
    join('viewer', { acme: 'editor' }),
    join('editor', { acme: 'viewer' }),
    join('editor'),
  ]);
  const tokenOf = async (member: Member) => (await people.token(member)).call;
  principals['admin token'] = { call: asBearer(t.server.url, TOKEN), role: { global: 'admin' } };
  principals.admin = { call: await tokenOf(admin!), role: { global: 'admin' } };
  principals.editor = { call: await tokenOf(editor!), role: { global: 'editor' } };
  principals['editor by cookie'] = { call: editor!.page, role: { global: 'editor' } };
  principals.viewer = { call: await tokenOf(viewer!), role: { global: 'viewer' } };
  principals['viewer, acme editor'] = {
    call: await tokenOf(acmeEditor!),
    role: { global: 'viewer', projects: { acme: 'editor' } },
  };
  principals['editor, acme viewer'] = {
    call: await tokenOf(acmeViewer!),
    role: { global: 'editor', projects: { acme: 'viewer' } },
  };

  // Those that may not act: their user disabled (its token and its session), a session ended,
  // a token revoked, a token expired.
  const disabledToken = await tokenOf(disabled!);
  expect((await people.admin('PATCH', `/users/${disabled!.user.id}`, { disabled: true })).status).toBe(200);
  principals['disabled user (token)'] = { call: disabledToken };
  principals['disabled user (cookie)'] = { call: disabled!.page };

  const viewerSessions = (await (await viewer!.page('GET', '/me/sessions')).json()) as Array<{ id: string }>;
  expect(viewerSessions).toHaveLength(1);
  expect((await viewer!.page('DELETE', `/me/sessions/${viewerSessions[0]!.id}`)).status).toBe(204);
  principals['ended session'] = { call: viewer!.page };

  const revoked = await people.token(admin!, 'revoked');
  expect((await revoked.call('DELETE', `/tokens/${revoked.id}`)).status).toBe(204);
  principals['revoked token'] = { call: revoked.call };

  const expiring = await people.token(admin!, 'expiring', new Date(clock + HOUR).toISOString());
  expect((await expiring.call('GET', '/session')).status).toBe(200);
  clock += 2 * HOUR;
  principals['expired token'] = { call: expiring.call };
});
afterAll(() => t?.close());

/** The operations that take no credential of the request: they are how one gets one. */
const UNCHECKED = new Set(['post /session', 'delete /session', 'post /invitations/accept', 'get /sso']);

/**
 * The role an operation needs (the contract: admins manage people, projects, environments and
 * keys; editors change flags, segments, webhooks, usage marks and copy flags; viewers read
 * everything (webhooks and their deliveries too, which a read-only API key may not), evaluate, preview a copy, and manage their own sessions and tokens).
 */
function needed(op: string): Role {
  const [method, path] = op.split(' ') as [string, string];
  if (path.startsWith('/users') || path === '/audit') return 'admin';
  if (path.startsWith('/me/') || path.startsWith('/tokens')) return 'viewer';
  if (method === 'get' || path === '/evaluate' || path === '/copy-flags/preview') return 'viewer';
  if (
    path === '/projects' ||
    path.startsWith('/projects/{project}') ||
    path === '/environments/{project}/{env}' ||
    path.startsWith('/environments/{project}/{env}/keys')
  )
    return 'admin';
  return 'editor';
}

/** The project an operation's path names (the matrix calls every such path in `acme`). */
const projectOf = (op: string): string | undefined =>
  /^\w+ \/(environments|projects)\/\{project\}/.test(op) ? 'acme' : undefined;

/** The concrete path: `acme`'s production environment, and ids naming nothing. */
const pathOf = (op: string): string =>
  op
    .split(' ')[1]!
    .replace('{project}', 'acme')
    .replace(/^\/environments\/acme\/\{env\}$/, '/environments/acme/matrix-none')
    .replace('{env}', 'production')
    .replace(/\{[^}]+\}/g, 'matrix-none');

const RANK: Record<Role, number> = { viewer: 0, editor: 1, admin: 2 };

/** What the table expects of `principal` calling `op`. */
function expected(op: string, principal: Principal): string {
  if (!principal.role) return '401';
  const project = projectOf(op);
  const has = (project !== undefined && principal.role.projects?.[project]) || principal.role.global;
  const needs = needed(op);
  if (RANK[has] >= RANK[needs]) return 'allowed';
  return `403: needs ${needs}${project ? ` in ${project}` : ''}, is ${has}`;
}

/** What the server answered, in the table's words. */
async function outcome(call: Send, op: string): Promise<string> {
  const method = op.split(' ')[0]!.toUpperCase();
  const body = method === 'GET' || method === 'DELETE' ? undefined : [];
  const response = await call(method, pathOf(op), body, {}).catch((error: Error) => {
    throw new Error(`${op}: ${error.message}`);
  });
  if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
    // The event stream: its head is the answer; the stream is let go.
    await response.body?.cancel();
    return response.status === 200 ? 'allowed' : String(response.status);
  }
  const text = await response.text();
  if (response.status === 401) return '401';
  // Let through: refused for what the request names or sends, never for a failure of the server.
  if (response.status >= 500) return `${response.status}: ${text}`;
  if (response.status !== 403) return 'allowed';
  const { message } = JSON.parse(text) as { message: string };
  const refusal = /needs the (\w+) role(?: in project "([^"]+)")?; you are an? (\w+)$/.exec(message);
  if (!refusal) return `403 without the role needed: ${text}`;
  return `403: needs ${refusal[1]}${refusal[2] ? ` in ${refusal[2]}` : ''}, is ${refusal[3]}`;
}

describe('roles on the admin API', () => {
  it('every served route answers each principal as its role allows', async () => {
    const ops = servedOperations(routesOf(t.server as FlagwireServer)!.admin).filter(
      (op) => !UNCHECKED.has(op),
    );
    // The people routes and the environment's are among them.
    expect(ops).toEqual(
      expect.arrayContaining([
        'get /users',
        'delete /tokens/{id}',
        'post /environments/{project}/{env}/flags',
        'post /copy-flags',
      ]),
    );
    const actual: Record<string, string> = {};
    const wanted: Record<string, string> = {};
    for (const op of ops)
      for (const [name, principal] of Object.entries(principals)) {
        wanted[`${op} × ${name}`] = expected(op, principal);
        actual[`${op} × ${name}`] = await outcome(principal.call, op);
      }
    expect(actual).toEqual(wanted);
    console.log(`role matrix: ${ops.length} operations × ${Object.keys(principals).length} principals`);
  });

  it('a change by the session cookie still needs the server’s own Origin, whatever the role', async () => {
    const member = await people.join({ email: uniqueEmail('roles-csrf'), role: 'admin' });
    const cookie = member.page;
    const elsewhere = (method: string, path: string, body?: unknown) =>
      cookie(method, path, body, { origin: 'http://elsewhere.example' });
    expect((await elsewhere('POST', '/projects', { key: 'csrf-made' })).status).toBe(403);
    expect((await elsewhere('GET', '/users')).status).toBe(200);
    expect((await cookie('POST', '/projects', { key: 'csrf-made' })).status).toBe(201);
  });

  it('copying flags into a project needs the editor role inside that project', async () => {
    // The target is named in the body, not the path: a global editor who is a viewer in `acme`
    // may preview a copy into `acme` (a read), not make it.
    const copier = principals['editor, acme viewer']!.call;
    const copy = { from: 'acme/production', to: 'acme/staging', flags: ['seeded'] };
    const preview = await copier('POST', '/copy-flags/preview', copy);
    expect(preview.status).toBe(200);
    const { to } = (await preview.json()) as { to: { revision: number } };
    const answer = await copier('POST', '/copy-flags', { ...copy, expectedRevision: to.revision });
    const body = (await answer.json()) as { message?: string };
    expect({ status: answer.status, body }).toEqual({
      status: 403,
      body: {
        error: 'FORBIDDEN',
        message: expect.stringMatching(/needs the editor role in project "acme"; you are a viewer$/),
      },
    });
    const staging = await principals['admin token']!.call('GET', '/environments/acme/staging/flags');
    expect(((await staging.json()) as Array<{ key: string }>).map((f) => f.key)).not.toContain('seeded');
  });
});
