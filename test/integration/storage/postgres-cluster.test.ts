/**
 * Several reference servers on one Postgres behave as one service (`docs/scaling.md`): three
 * instances started together on an empty database, writes through one seen by the streams of
 * the others, resume across instances, concurrent writers on all three, keys across instances.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FlagwireServer, startServer } from '../../../server/index.js';
import { createClient } from '../../../src/index.js';
import { queryDatabase } from '../../helpers/postgres.js';
import { freshDatabase, KEYS, startInstances, TEST_CONFIG } from '../../helpers/server.js';
import { openStream, type SseReader } from '../../helpers/sse.js';

const auth = { authorization: `Bearer ${KEYS.acmeProdFull}` };
const json = { ...auth, 'content-type': 'application/json' };

let servers: FlagwireServer[] = [];
const readers: SseReader[] = [];

function api(server: FlagwireServer, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${server.url}/api/v1${path}`, {
    method,
    headers: body === undefined ? auth : json,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function stream(server: FlagwireServer, headers: Record<string, string> = {}): Promise<SseReader> {
  const reader = await openStream(`${server.url}/sdk/events`, { ...auth, ...headers });
  readers.push(reader);
  return reader;
}

beforeAll(async () => {
  const databaseUrl = await freshDatabase();
  // Started at once on an empty database: the migration and the config race, and must not.
  servers = await startInstances(3, databaseUrl);
});

afterAll(async () => {
  for (const reader of readers) reader.close();
  await Promise.all(servers.map((server) => server.close()));
});

describe('three instances on one Postgres', () => {
  it('start together on an empty database: the seed flag once, one epoch, the same admin token', async () => {
    const snapshots = await Promise.all(
      servers.map(async (server) => (await fetch(`${server.url}/sdk/flags`, { headers: auth })).json()),
    );
    const [first] = snapshots;
    expect(Object.keys(first.flags)).toEqual(['seeded']);
    expect(first.revision).toBe(1);
    for (const snapshot of snapshots) expect(snapshot).toEqual(first);
    expect(new Set(servers.map((s) => s.adminToken)).size).toBe(1);
    for (const server of servers) expect(server.storage).toMatch(/^postgres \(127\.0\.0\.1:\d+\/t_\w+\)$/);
  });

  it('delivers a write through A to the SDK streams on B and C, and to SDK clients on them', async () => {
    const [a, b, c] = servers as [FlagwireServer, FlagwireServer, FlagwireServer];
    const onB = await stream(b);
    const onC = await stream(c);
    expect((await onB.next()).event).toBe('flags:sync');
    expect((await onC.next()).event).toBe('flags:sync');
    const client = createClient({ apiKey: KEYS.acmeProdRead, baseUrl: c.url });
    await client.ready();
    const changed = new Promise<void>((resolve) =>
      client.on('change', (change) => change.key === 'cross' && resolve()),
    );
    const created = await api(a, 'POST', '/flags', { key: 'cross', type: 'boolean' });
    expect(created.status).toBe(201);
    const version = 2; // the seed flag was revision 1
    for (const reader of [onB, onC]) {
      const event = await reader.next({ skipPings: true });
      expect(event.event).toBe('flags:updated');
      expect(JSON.parse(event.data)).toMatchObject({ key: 'cross', version });
      expect(event.id).toMatch(new RegExp(`:${version}$`));
    }
    await changed;
    expect(client.isEnabled('cross', { key: 'u' })).toBe(false);
    await client.close();
  });

  it('resumes a client that followed A on C with Last-Event-ID: exactly what it missed, in order', async () => {
    const [a, b, c] = servers as [FlagwireServer, FlagwireServer, FlagwireServer];
    const onA = await stream(a);
    const sync = await onA.next();
    onA.close();
    const at = Number(sync.id!.split(':')[1]);
    for (const enabled of [true, false, true]) {
      const res = await api(b, 'PATCH', '/flags/cross', { enabled });
      expect(res.status).toBe(200);
    }
    const onC = await stream(c, { 'last-event-id': sync.id! });
    const got: Array<{ version: number; enabled: boolean; id: string | undefined }> = [];
    for (let i = 0; i < 3; i++) {
      const event = await onC.next({ skipPings: true });
      expect(event.event).toBe('flags:updated');
      const { version, enabled } = JSON.parse(event.data);
      got.push({ version, enabled, id: event.id });
    }
    const epoch = sync.id!.split(':')[0];
    expect(got).toEqual([
      { version: at + 1, enabled: true, id: `${epoch}:${at + 1}` },
      { version: at + 2, enabled: false, id: `${epoch}:${at + 2}` },
      { version: at + 3, enabled: true, id: `${epoch}:${at + 3}` },
    ]);
  });

  it('makes one gap-free revision sequence of concurrent writers on all three, losing no write', async () => {
    // The previous test wrote through another instance: start once all three hold its last write.
    const revisions = () =>
      Promise.all(
        servers.map(
          async (server) =>
            (await (await fetch(`${server.url}/sdk/flags`, { headers: auth })).json()).revision as number,
        ),
      );
    await expect.poll(async () => new Set(await revisions()).size).toBe(1);
    const before = (await revisions())[0]!;
    const watchers = await Promise.all(servers.map((server) => stream(server)));
    for (const watcher of watchers) expect((await watcher.next()).event).toBe('flags:sync');
    const percentages = Array.from({ length: 101 }, (_, i) => i).filter((p) => p !== 25);
    const written = percentages.slice(0, 90);
    const answers = await Promise.all(
      written.map((percentage, i) => api(servers[i % 3]!, 'PATCH', '/flags/seeded', { percentage })),
    );
    for (const [i, res] of answers.entries()) {
      expect(res.status).toBe(200);
      expect((await res.json()).percentage).toBe(written[i]);
    }
    // Every instance's stream saw the same 90 changes, revisions before+1 … before+90 in order,
    // one per acknowledged write: none lost, none twice.
    const seen: Array<Array<{ version: number; percentage: number }>> = [];
    for (const watcher of watchers) {
      const events: Array<{ version: number; percentage: number }> = [];
      while (events.length < 90) {
        const { version, percentage } = JSON.parse((await watcher.next({ skipPings: true })).data);
        events.push({ version, percentage });
      }
      seen.push(events);
    }
    expect(seen[0]!.map((e) => e.version)).toEqual(Array.from({ length: 90 }, (_, i) => before + 1 + i));
    expect(seen[0]!.map((e) => e.percentage).sort((x, y) => x - y)).toEqual(written);
    expect(seen[1]).toEqual(seen[0]);
    expect(seen[2]).toEqual(seen[0]);
    // And every instance answers the same final state: the last change committed.
    const finals = await Promise.all(servers.map(async (s) => (await api(s, 'GET', '/flags/seeded')).json()));
    for (const flag of finals) expect(flag).toEqual(finals[0]);
    expect(finals[0].percentage).toBe(seen[0]![89]!.percentage);
  });

  it('refuses a flag created twice at once through two instances: one 201, one 409', async () => {
    const [a, b] = servers as [FlagwireServer, FlagwireServer];
    const answers = await Promise.all([
      api(a, 'POST', '/flags', { key: 'once', type: 'boolean' }),
      api(b, 'POST', '/flags', { key: 'once', type: 'boolean' }),
    ]);
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409]);
  });

  it('creates a project and an environment once when two instances race, and serves it on all three', async () => {
    const [a, b, c] = servers as [FlagwireServer, FlagwireServer, FlagwireServer];
    const admin = (server: FlagwireServer, path: string, body: unknown) =>
      fetch(`${server.url}/admin/api${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((r) => r.status);
    expect(
      (
        await Promise.all([
          admin(a, '/projects', { key: 'racing' }),
          admin(b, '/projects', { key: 'racing' }),
        ])
      ).sort(),
    ).toEqual([201, 409]);
    const envs = await Promise.all([
      admin(b, '/projects/racing/environments', { key: 'live' }),
      admin(c, '/projects/racing/environments', { key: 'live' }),
    ]);
    expect(envs.sort()).toEqual([201, 409]);
    for (const server of servers) {
      await expect
        .poll(async () => {
          const overview = await (
            await fetch(`${server.url}/admin/api/overview`, {
              headers: { authorization: `Bearer ${server.adminToken}` },
            })
          ).json();
          return overview.projects.find((p: { key: string }) => p.key === 'racing')?.environments.length;
        })
        .toBe(1);
    }
  });

  it('honours a key created on one instance on the others, and its revocation everywhere', async () => {
    const [a, b, c] = servers as [FlagwireServer, FlagwireServer, FlagwireServer];
    const admin = { authorization: `Bearer ${a.adminToken}`, 'content-type': 'application/json' };
    const made = await fetch(`${a.url}/admin/api/environments/acme/production/keys`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ access: 'read-only', name: 'cluster' }),
    });
    expect(made.status).toBe(201);
    const { id, key } = await made.json();
    const withKey = (server: FlagwireServer) =>
      fetch(`${server.url}/sdk/flags`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status);
    await expect.poll(() => withKey(b)).toBe(200);
    await expect.poll(() => withKey(c)).toBe(200);
    const open = await openStream(`${c.url}/sdk/events`, { authorization: `Bearer ${key}` });
    readers.push(open);
    const revoked = await fetch(`${b.url}/admin/api/environments/acme/production/keys/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${a.adminToken}` },
    });
    expect(revoked.status).toBe(204);
    await expect.poll(() => withKey(a)).toBe(401);
    await expect.poll(() => withKey(c)).toBe(401);
    // The stream it had opened on another instance is closed too.
    await open.ended;
  });
});

describe('group commit on one instance', () => {
  let server: FlagwireServer;
  let databaseUrl: string;
  beforeAll(async () => {
    databaseUrl = await freshDatabase();
    server = await startServer({ port: 0, logger: false, config: TEST_CONFIG, databaseUrl });
  });
  afterAll(() => server.close());

  it('commits concurrent writes to one environment in shared transactions, gap-free', async () => {
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        api(server, 'POST', '/flags', { key: `batch-${i}`, type: 'boolean' }),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(60).fill(201));
    const rows = await queryDatabase<{ seq: string; at: string }>(
      databaseUrl,
      "SELECT seq, committed_at::text AS at FROM flagwire_entries WHERE scope = 'acme/production' ORDER BY seq",
    );
    const seqs = rows.map((r) => Number(r.seq));
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    // committed_at is the transaction's start: entries that share one were one transaction.
    expect(new Set(rows.map((r) => r.at)).size).toBeLessThan(rows.length);
  });

  it('lets each write of a batch see the ones before it: one 201 and the rest 409 for one key', async () => {
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => api(server, 'POST', '/flags', { key: 'contested', type: 'boolean' })),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([201, ...Array(11).fill(409)]);
  });

  it('takes a batch that does not commit back out of memory: nothing of it is served', async () => {
    // The database refuses any entry that mentions "poison".
    await queryDatabase(
      databaseUrl,
      `CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN IF NEW.ops::text LIKE '%poison%' THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$;
       CREATE TRIGGER refuse_poison BEFORE INSERT ON flagwire_entries FOR EACH ROW EXECUTE FUNCTION refuse_poison();`,
    );
    const before = await (await fetch(`${server.url}/sdk/flags`, { headers: auth })).json();
    const answers = await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => api(server, 'PATCH', `/flags/batch-${i}`, { enabled: true })),
      api(server, 'POST', '/flags', { key: 'poison', type: 'boolean' }),
    ]);
    await queryDatabase(databaseUrl, 'DROP TRIGGER refuse_poison ON flagwire_entries');
    expect(answers.at(-1)!.status).toBe(500);
    const committed = answers.slice(0, 10).filter((r) => r.status === 200).length;
    // Memory is what the database holds: a fresh instance on it answers the same.
    const fresh = await startServer({ port: 0, logger: false, config: TEST_CONFIG, databaseUrl });
    try {
      const [here, there] = await Promise.all(
        [server, fresh].map(async (s) => (await api(s, 'GET', '/flags')).json()),
      );
      expect(here).toEqual(there);
      expect(here.some((f: { key: string }) => f.key === 'poison')).toBe(false);
      expect(
        here.filter((f: { key: string; enabled: boolean }) => f.key.startsWith('batch-') && f.enabled),
      ).toHaveLength(committed);
      const sdk = await (await fetch(`${server.url}/sdk/flags`, { headers: auth })).json();
      expect(sdk.revision).toBe(before.revision + committed);
      expect(sdk.flags.poison).toBeUndefined();
      // And writes go on from there, gap-free.
      expect((await api(server, 'PATCH', '/flags/batch-59', { enabled: true })).status).toBe(200);
      const after = await (await fetch(`${fresh.url}/sdk/flags`, { headers: auth })).json();
      await expect
        .poll(async () => (await (await fetch(`${fresh.url}/sdk/flags`, { headers: auth })).json()).revision)
        .toBe(sdk.revision + 1);
      expect(after.epoch).toBe(sdk.epoch);
    } finally {
      await fresh.close();
    }
  });
});

describe('compaction on Postgres', () => {
  it('snapshots an environment after compactAfterEntries, and a new instance starts from the snapshot', async () => {
    const databaseUrl = await freshDatabase();
    const options = {
      port: 0,
      logger: false,
      config: TEST_CONFIG,
      databaseUrl,
      compactAfterEntries: 5,
    } as const;
    const first = await startServer(options);
    try {
      const hook = await (
        await api(first, 'POST', '/webhooks', { url: 'http://127.0.0.1:1/hook', events: ['flag.updated'] })
      ).json();
      for (let i = 0; i < 12; i++) {
        expect(
          (await api(first, 'POST', '/flags', { key: `snap-${i}`, type: 'rollout', percentage: i })).status,
        ).toBe(201);
      }
      const snapshotted = async () =>
        (
          await queryDatabase<{ seq: string }>(
            databaseUrl,
            "SELECT seq FROM flagwire_snapshots WHERE scope = 'acme/production'",
          )
        )[0]?.seq;
      await expect.poll(snapshotted).toBeDefined();
      // Whatever the snapshot covers is taken out of the log: only the snapshot can bring it back.
      const covered = Number(await snapshotted());
      expect(covered).toBeGreaterThanOrEqual(5);
      await queryDatabase(
        databaseUrl,
        "DELETE FROM flagwire_entries WHERE scope = 'acme/production' AND seq <= $1",
        [covered],
      );
      const second = await startServer(options);
      try {
        const read = async (server: FlagwireServer) => ({
          flags: await (await api(server, 'GET', '/flags')).json(),
          sdk: await (await fetch(`${server.url}/sdk/flags`, { headers: auth })).json(),
          hooks: await (await api(server, 'GET', '/webhooks')).json(),
          deliveries: await (await api(server, 'GET', `/webhooks/${hook.id}/deliveries`)).json(),
        });
        const [a, b] = [await read(first), await read(second)];
        expect(b.flags).toEqual(a.flags);
        expect(b.flags).toHaveLength(13);
        expect(b.sdk).toEqual(a.sdk);
        expect(b.hooks).toEqual(a.hooks);
        expect(b.deliveries.map((d: { id: string }) => d.id).sort()).toEqual(
          a.deliveries.map((d: { id: string }) => d.id).sort(),
        );
        // And the two go on as one: a write through the new one reaches the first.
        expect((await api(second, 'PATCH', '/flags/snap-0', { enabled: true })).status).toBe(200);
        await expect
          .poll(async () => (await (await api(first, 'GET', '/flags/snap-0')).json()).enabled)
          .toBe(true);
      } finally {
        await second.close();
      }
    } finally {
      await first.close();
    }
  });
});

describe('entries deleted before an instance read them', () => {
  it('are reported once, naming the scope, instead of a silent stall', async () => {
    const databaseUrl = await freshDatabase();
    const warnings: string[] = [];
    const server = await startServer({
      port: 0,
      config: TEST_CONFIG,
      databaseUrl,
      logger: { info() {}, warn: (m: string) => warnings.push(m), error() {} },
    });
    try {
      const [counter] = await queryDatabase<{ seq: string }>(
        databaseUrl,
        "SELECT seq FROM flagwire_scopes WHERE scope = 'acme/production'",
      );
      const seq = counter!.seq;
      // Entry seq+3 is there, seq+1 and seq+2 are not (as if pruned), and the instance is told.
      await queryDatabase(
        databaseUrl,
        "INSERT INTO flagwire_entries (scope, seq, ops) VALUES ('acme/production', $1, '[]')",
        [Number(seq) + 3],
      );
      await queryDatabase(databaseUrl, "SELECT pg_notify('flagwire_commits', $1)", [
        `${Number(seq) + 3} acme/production`,
      ]);
      await expect
        .poll(() => warnings)
        .toEqual([
          `entries ${Number(seq) + 1} to ${Number(seq) + 2} of acme/production were deleted before this instance read them; restart it to load from the snapshot`,
        ]);
    } finally {
      await server.close();
    }
  });
});

describe('reads and checks across instances', () => {
  it('validates a PATCH through B against a flag just created through A: never a stale 404', async () => {
    const databaseUrl = await freshDatabase();
    const [a, b] = await startInstances(2, databaseUrl);
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 50; i++) {
        expect((await api(a!, 'POST', '/flags', { key: `fresh-${i}`, type: 'rollout' })).status).toBe(201);
        statuses.push((await api(b!, 'PATCH', `/flags/fresh-${i}`, { percentage: 50 })).status);
      }
      expect(statuses).toEqual(Array(50).fill(200));
    } finally {
      await Promise.all([a!.close(), b!.close()]);
    }
  });

  it('keeps both generated keys revoked when they are revoked at once through two instances', async () => {
    const databaseUrl = await freshDatabase();
    const [a, b] = await startInstances(2, databaseUrl, { config: undefined });
    const keys = a!.keys.map((k) => k.key);
    expect(keys).toHaveLength(2);
    const admin = (server: FlagwireServer) => ({ authorization: `Bearer ${server.adminToken}` });
    const listed = await (
      await fetch(`${a!.url}/admin/api/environments/default/development/keys`, { headers: admin(a!) })
    ).json();
    const ids = listed.map((k: { id: string }) => k.id);
    const revoked = await Promise.all(
      [a!, b!].map((server, i) =>
        fetch(`${server.url}/admin/api/environments/default/development/keys/${ids[i]}`, {
          method: 'DELETE',
          headers: admin(server),
        }).then((r) => r.status),
      ),
    );
    expect(revoked).toEqual([204, 204]);
    await Promise.all([a!.close(), b!.close()]);
    const later = await startServer({ port: 0, logger: false, databaseUrl });
    try {
      for (const key of keys) {
        const res = await fetch(`${later.url}/sdk/flags`, { headers: { authorization: `Bearer ${key}` } });
        expect(res.status).toBe(401);
      }
    } finally {
      await later.close();
    }
  });

  it('honours keys created through A while B was starting', async () => {
    const databaseUrl = await freshDatabase();
    const a = await startServer({ port: 0, logger: false, config: TEST_CONFIG, databaseUrl });
    const made: string[] = [];
    let starting = true;
    const creating = (async () => {
      while (starting) {
        const res = await fetch(`${a.url}/admin/api/environments/acme/production/keys`, {
          method: 'POST',
          headers: { authorization: `Bearer ${a.adminToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ access: 'read-only', name: null }),
        });
        expect(res.status).toBe(201);
        made.push((await res.json()).key);
      }
    })();
    const b = await startServer({ port: 0, logger: false, config: TEST_CONFIG, databaseUrl });
    starting = false;
    await creating;
    try {
      expect(made.length).toBeGreaterThan(0);
      for (const key of made) {
        await expect
          .poll(
            async () =>
              (await fetch(`${b.url}/sdk/flags`, { headers: { authorization: `Bearer ${key}` } })).status,
          )
          .toBe(200);
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
