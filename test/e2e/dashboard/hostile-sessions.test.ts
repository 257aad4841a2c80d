/**
 * Hostile review of the dashboard's credential (`docs/protocol.md` §10.2), on real
 * servers on 127.0.0.1:0: a cookie copied before signing out stops working on the server, after
 * a restart, after a crash (journal replay) and on every instance of a shared database; the
 * ended sessions kept are bounded. The CSRF check compares `Origin` (scheme, host and port) with
 * the server's own origin, never with the `Host` the client wrote; `publicUrl` (`--public-url`)
 * names it behind a proxy. Every request goes to 127.0.0.1: the other origins are header values.
 */
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OwnOrigins } from '../../../server/dashboard/origins.js';
import { type FlagwireServer, startServer } from '../../../server/index.js';
import { SessionService } from '../../../server/state/admin/session-service.js';
import { MAX_ENDED_SESSIONS, nowSeconds } from '../../../server/state/admin/sessions.js';
import { applyOp, fromSnapshot, type Op, toSnapshot } from '../../../server/state/domains.js';
import { MemoryState } from '../../../server/state/kernel/model.js';
import { launchedChromium } from '../../helpers/browser.js';
import { spawnCli, startCli } from '../../helpers/cli.js';
import { openDashboard } from '../../helpers/dashboard-page.js';
import { freshDatabase, startInstances } from '../../helpers/server.js';

const TOKEN = 'fw_admin_HostileSessions0000000000000000';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * One request to 127.0.0.1:`port` with exactly these headers (`Host` included: fetch would put
 * its own), answered with its status, headers and text.
 */
function send(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const all: Record<string, string> = { host: `127.0.0.1:${port}`, ...headers };
  if (payload !== undefined) {
    all['content-type'] = 'application/json';
    all['content-length'] = String(Buffer.byteLength(payload));
  }
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: all }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

const portOf = (server: FlagwireServer) => server.port;

/** `GET /admin/api/events` with the cookie: resolves once the stream is open; `ended` when the server cuts it. */
function openEvents(server: FlagwireServer, cookie: string): Promise<{ ended: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const headers = { host: `127.0.0.1:${server.port}`, cookie };
    const req = request(
      { host: '127.0.0.1', port: server.port, path: '/admin/api/events', headers },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`events answered ${res.statusCode}`));
        const ended = new Promise<void>((done) => {
          res.on('close', () => done());
          res.on('error', () => done());
        });
        res.once('data', () => resolve({ ended }));
        res.resume();
      },
    );
    req.on('error', reject);
    cleanups.push(async () => req.destroy());
    req.end();
  });
}

/** Signs in with the admin token from `origin`; answers the cookie (`name=value`). */
async function signIn(server: FlagwireServer, origin = server.url): Promise<string> {
  const res = await send(portOf(server), 'POST', '/admin/api/session', { origin }, { token: TOKEN });
  expect(res.status).toBe(200);
  return String(res.headers['set-cookie']).split(';')[0]!;
}

const signOut = (server: FlagwireServer, cookie: string) =>
  send(portOf(server), 'DELETE', '/admin/api/session', { cookie, origin: server.url });

const sessionStatus = async (server: FlagwireServer, cookie: string) =>
  (await send(portOf(server), 'GET', '/admin/api/session', { cookie })).status;

/** A state-changing request made with the cookie, from `origin`. */
const createProject = (server: FlagwireServer, cookie: string, key: string, origin = server.url) =>
  send(portOf(server), 'POST', '/admin/api/projects', { cookie, origin }, { key });

/** The answer is the JSON error `code`, with a message. */
function expectError(res: Answer, status: number, code: string): void {
  expect(res.status).toBe(status);
  const body = JSON.parse(res.body) as { error?: unknown; message?: unknown };
  expect(body.error).toBe(code);
  expect(typeof body.message).toBe('string');
}

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'flagwire-sessions-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

describe('signing out ends the session on the server', () => {
  let server: FlagwireServer;
  beforeAll(async () => {
    server = await startServer({ port: 0, logger: false, adminToken: TOKEN });
    cleanups.push(() => server.close());
  });

  it('refuses the old cookie afterwards, on the session and on a change; other sessions go on', async () => {
    const cookie = await signIn(server);
    const other = await signIn(server);
    expect(await sessionStatus(server, cookie)).toBe(200);
    const out = await signOut(server, cookie);
    expect(out.status).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/^flagwire_admin=; .*Max-Age=0/);

    expectError(await send(portOf(server), 'GET', '/admin/api/session', { cookie }), 401, 'UNAUTHORIZED');
    expectError(await createProject(server, cookie, 'after-sign-out'), 401, 'UNAUTHORIZED');
    expectError(await send(portOf(server), 'GET', '/admin/api/overview', { cookie }), 401, 'UNAUTHORIZED');
    // Signing out again is no error; the session stays ended.
    expect((await signOut(server, cookie)).status).toBe(204);
    expect(await sessionStatus(server, cookie)).toBe(401);

    expect(await sessionStatus(server, other)).toBe(200);
    expect((await createProject(server, other, 'still-signed-in')).status).toBe(201);
  });

  it("cuts the session's open event stream when it signs out", async () => {
    const cookie = await signIn(server);
    const other = await signIn(server);
    const stream = await openEvents(server, cookie);
    const kept = await openEvents(server, other);
    let keptEnded = false;
    void kept.ended.then(() => {
      keptEnded = true;
    });
    expect((await signOut(server, cookie)).status).toBe(204);
    await stream.ended;
    // A round trip later, the other session's stream is still open.
    expect(await sessionStatus(server, other)).toBe(200);
    expect(keptEnded).toBe(false);
  });

  it('a page of another origin cannot sign someone out', async () => {
    const cookie = await signIn(server);
    const res = await send(portOf(server), 'DELETE', '/admin/api/session', {
      cookie,
      origin: 'http://evil.example',
    });
    expectError(res, 403, 'FORBIDDEN');
    expect(await sessionStatus(server, cookie)).toBe(200);
  });
});

describe('signing out in the page', () => {
  const browser = launchedChromium();
  let server: FlagwireServer;
  beforeAll(async () => {
    server = await startServer({ port: 0, logger: false, adminToken: TOKEN });
    cleanups.push(() => server.close());
  });

  it('ends the session the browser held, quietly', async () => {
    const d = await openDashboard(browser(), server);
    cleanups.push(() => d.context.close());
    const held = (await d.context.cookies()).find((c) => c.name === 'flagwire_admin')!;
    const cookie = `${held.name}=${held.value}`;
    expect(await sessionStatus(server, cookie)).toBe(200);
    await d.page.getByRole('button', { name: 'Sign out' }).click();
    await d.page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await sessionStatus(server, cookie)).toBe(401);
    // A sign-out, not a session lost: no "session has ended" notice, no errors.
    expect(await d.page.getByText(/session has ended/i).count()).toBe(0);
    expect(d.problems).toEqual([]);
  });
});

describe('an ended session stays ended', () => {
  it('after a restart on the same data directory', async () => {
    const dataDir = await tempDir();
    const first = await startServer({ port: 0, logger: false, dataDir, adminToken: TOKEN });
    const ended = await signIn(first);
    const kept = await signIn(first);
    expect((await signOut(first, ended)).status).toBe(204);
    await first.close();

    const second = await startServer({ port: 0, logger: false, dataDir, adminToken: TOKEN });
    try {
      expect(await sessionStatus(second, ended)).toBe(401);
      expectError(await createProject(second, ended, 'after-restart'), 401, 'UNAUTHORIZED');
      // Sessions survive a restart: the one not signed out still works.
      expect(await sessionStatus(second, kept)).toBe(200);
    } finally {
      await second.close();
    }
  });

  it('after a crash: replayed from the journal, with no snapshot written at shutdown', async () => {
    const dataDir = await tempDir();
    const running = await startServer({ port: 0, logger: false, dataDir, adminToken: TOKEN });
    const ended = await signIn(running);
    expect((await signOut(running, ended)).status).toBe(204);
    // The files as they are now, answered and durable: what a crash would leave.
    const copy = await tempDir();
    for (const name of await readdir(dataDir))
      if (name !== 'flagwire.lock') await cp(join(dataDir, name), join(copy, name));
    await running.close();

    const restarted = await startServer({ port: 0, logger: false, dataDir: copy, adminToken: TOKEN });
    try {
      expect(await sessionStatus(restarted, ended)).toBe(401);
    } finally {
      await restarted.close();
    }
  });

  it('on every instance sharing a Postgres database, at once', async () => {
    const databaseUrl = await freshDatabase();
    const [a, b] = await startInstances(2, databaseUrl, { adminToken: TOKEN });
    cleanups.push(() => Promise.all([a!.close(), b!.close()]));
    const cookie = await signIn(a!);
    expect(await sessionStatus(b!, cookie)).toBe(200);
    const streamOnB = await openEvents(b!, cookie);
    expect((await signOut(a!, cookie)).status).toBe(204);
    expect(await sessionStatus(b!, cookie)).toBe(401);
    expectError(await createProject(b!, cookie, 'on-b'), 401, 'UNAUTHORIZED');
    // B cuts its open stream of that session too, once it learns of the sign-out.
    await streamOnB.ended;
  });
});

describe('what is kept of ended sessions is bounded', () => {
  /** Memory with the storage's write protocol reduced to applying the ops. */
  function memory() {
    const db = new MemoryState();
    const flags = {
      commit: async (_scope: string, plan: () => Op[]) => {
        for (const op of plan()) applyOp(db, op);
      },
      readSettled: async <T>(_scope: string | null, read: () => T) => read(),
    };
    return { db, sessions: new SessionService(db, flags) };
  }

  it('keeps an id only until its session expires, also in the snapshot', async () => {
    const { db, sessions } = memory();
    const now = nowSeconds();
    await sessions.end('a'.repeat(22), now + 3600, now + 604_800);
    expect(sessions.isEnded('a'.repeat(22), now + 3600)).toBe(true);
    // Replayed after its expiry (an old journal entry): nothing is kept.
    applyOp(db, { t: 'session-end', id: 'b'.repeat(22), until: now - 1 });
    expect(db.endedSessions.ids.has('b'.repeat(22))).toBe(false);
    db.endedSessions.ids.set('c'.repeat(22), now - 5); // expired since it was ended
    const restored = fromSnapshot(toSnapshot(db));
    expect([...restored.endedSessions.ids.keys()]).toEqual(['a'.repeat(22)]);
  });

  it(`past ${MAX_ENDED_SESSIONS} ended sessions, one more sign-out ends all sessions open then`, async () => {
    const { db, sessions } = memory();
    const now = nowSeconds();
    const week = now + 604_800;
    for (let i = 0; i < MAX_ENDED_SESSIONS; i++) db.endedSessions.ids.set(`s${i}`, now + 60);
    await sessions.end('last', week - 10, week);
    expect(db.endedSessions.ids.size).toBeLessThanOrEqual(1);
    expect(sessions.isEnded('last', week - 10)).toBe(true);
    // Open ones, never signed out, made before the cut-off: ended too.
    expect(sessions.isEnded('open-before', week - 1)).toBe(true);
    // One made after it (same second or later) is not.
    expect(sessions.isEnded('made-now', week)).toBe(false);
    expect(fromSnapshot(toSnapshot(db)).endedSessions.endedBefore).toBe(week);
  });
});

describe('the CSRF check compares Origin with the server’s own origin', () => {
  let server: FlagwireServer;
  let port: number;
  let cookie: string;
  beforeAll(async () => {
    server = await startServer({ port: 0, logger: false, adminToken: TOKEN });
    cleanups.push(() => server.close());
    port = server.port;
    cookie = await signIn(server);
  });

  it('refuses https:// over http, with the right host and port', async () => {
    const origin = `https://127.0.0.1:${port}`;
    expectError(
      await send(port, 'POST', '/admin/api/session', { origin }, { token: TOKEN }),
      403,
      'FORBIDDEN',
    );
    expectError(await createProject(server, cookie, 'https-origin', origin), 403, 'FORBIDDEN');
  });

  it('refuses the right host on another port', async () => {
    const origin = `http://127.0.0.1:${port === 65535 ? port - 1 : port + 1}`;
    expectError(
      await send(port, 'POST', '/admin/api/session', { origin }, { token: TOKEN }),
      403,
      'FORBIDDEN',
    );
    expectError(await createProject(server, cookie, 'other-port', origin), 403, 'FORBIDDEN');
  });

  it('refuses a forged Host that matches a forged Origin', async () => {
    for (const host of ['evil.example', `evil.example:${port}`]) {
      const origin = `http://${host}`;
      expectError(
        await send(port, 'POST', '/admin/api/session', { host, origin }, { token: TOKEN }),
        403,
        'FORBIDDEN',
      );
      expectError(
        await send(port, 'POST', '/admin/api/projects', { host, origin, cookie }, { key: 'forged-host' }),
        403,
        'FORBIDDEN',
      );
    }
  });

  it('refuses an Origin with a path, credentials, or none', async () => {
    for (const origin of [`${server.url}/admin`, `http://user@127.0.0.1:${port}`, 'null']) {
      expectError(await createProject(server, cookie, 'odd-origin', origin), 403, 'FORBIDDEN');
    }
  });

  it('accepts its own origin, and the loopback names of its loopback address', async () => {
    expect((await createProject(server, cookie, 'own-origin')).status).toBe(201);
    for (const origin of [`http://localhost:${port}`, `http://[::1]:${port}`, `HTTP://LOCALHOST:${port}`])
      expect(await signIn(server, origin)).toMatch(/^flagwire_admin=/);
  });

  it('names the origins it guessed, and warns, for a wildcard listener', () => {
    const loopback = ['http://localhost:8787', 'http://127.0.0.1:8787', 'http://[::1]:8787'];
    for (const [address, family] of [
      ['0.0.0.0', 'IPv4'],
      ['::', 'IPv6'],
    ] as const) {
      const origins = new OwnOrigins(undefined);
      const warning = origins.listening({ address, family, port: 8787 } as AddressInfo);
      expect(warning).toContain('--public-url');
      expect(origins.list).toEqual(loopback);
    }
    const lan = new OwnOrigins(undefined);
    expect(lan.listening({ address: '192.0.2.10', family: 'IPv4', port: 8787 })).toBeUndefined();
    expect(lan.list).toEqual(['http://192.0.2.10:8787']);
    const named = new OwnOrigins('https://flags.example.com');
    expect(named.listening({ address: '0.0.0.0', family: 'IPv4', port: 8787 })).toBeUndefined();
    expect(named.list).toEqual(['https://flags.example.com']);
  });
});

describe('publicUrl: the origin people reach the server at', () => {
  const PUBLIC = 'https://flags.example.com';
  let server: FlagwireServer;
  beforeAll(async () => {
    server = await startServer({ port: 0, logger: false, adminToken: TOKEN, publicUrl: `${PUBLIC}/` });
    cleanups.push(() => server.close());
  });

  it('is the only origin taken: sign-in and changes from it, not from the listening address', async () => {
    const cookie = await signIn(server, PUBLIC);
    expect((await createProject(server, cookie, 'from-public', PUBLIC)).status).toBe(201);
    for (const origin of [server.url, `http://localhost:${server.port}`, 'http://flags.example.com']) {
      expectError(
        await send(server.port, 'POST', '/admin/api/session', { origin }, { token: TOKEN }),
        403,
        'FORBIDDEN',
      );
      expectError(await createProject(server, cookie, 'from-elsewhere', origin), 403, 'FORBIDDEN');
    }
  });

  it('is the origin of the printed dashboard URL', () => {
    expect(server.dashboardUrl).toBe(`${PUBLIC}/#token=${TOKEN}`);
  });

  it('must be an http(s) origin without a path', async () => {
    for (const publicUrl of [
      'flags.example.com',
      'https://flags.example.com/admin',
      'ftp://flags.example.com',
    ])
      await expect(startServer({ port: 0, logger: false, publicUrl })).rejects.toThrow(/publicUrl/);
  });
});

describe('flagwire-server --public-url', () => {
  const PUBLIC = 'https://flags.example.com';

  it('takes the origin from --public-url, else FLAGWIRE_PUBLIC_URL', async () => {
    for (const [args, env] of [
      [['--public-url', PUBLIC], {}],
      [[], { FLAGWIRE_PUBLIC_URL: PUBLIC }],
    ] as const) {
      const run = await startCli(['--memory', '--admin-token', TOKEN, ...args], env);
      try {
        expect(run.stdout()).toContain(`dashboard: ${PUBLIC}/#token=${TOKEN}`);
        const port = Number(new URL(run.url).port);
        const from = (origin: string) =>
          send(port, 'POST', '/admin/api/session', { origin }, { token: TOKEN });
        expect((await from(PUBLIC)).status).toBe(200);
        expect((await from(run.url)).status).toBe(403);
      } finally {
        run.child.kill('SIGTERM');
        await run.exited;
      }
    }
  });

  it('refuses one that is not an origin', async () => {
    const run = spawnCli(['--memory', '--public-url', 'flags.example.com/admin']);
    expect((await run.exited).code).toBe(1);
    expect(run.err()).toContain('invalid --public-url');
  });
});
