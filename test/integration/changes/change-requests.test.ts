/**
 * Change requests through the admin API (`docs/protocol.md` §10.7): every state transition and
 * refusal, applying all or nothing against the versions the changes were written against, and
 * scheduled changes applied by the server at a time on a clock the test controls. Runs on both
 * stores (vitest.config.ts).
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeRequest, HistoryEntry } from '../../../src/core/admin-wire.js';
import { type Member, peopleDriver, type Send, uniqueEmail } from '../../helpers/people.js';
import { startReceiver, type TestReceiver } from '../../helpers/receiver.js';
import { freshDatabase, KEYS, startTestServer, TEST_STORE, type TestServer } from '../../helpers/server.js';

const PROD = '/environments/acme/production';
const STAGE = '/environments/acme/staging';
const START = Date.parse('2026-12-04T08:00:00.000Z');

let t: TestServer;
let admin: Send;
let reviewer: Member;
let viewer: Member;
let receiver: TestReceiver;
let now = START;

async function json<T>(response: Response, status: number): Promise<T> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return (text ? JSON.parse(text) : undefined) as T;
}

const create = async (body: unknown, as: Send = admin, env = PROD) =>
  json<ChangeRequest>(await as('POST', `${env}/change-requests`, body), 201);
const read = async (id: string, env = PROD) =>
  json<ChangeRequest>(await admin('GET', `${env}/change-requests/${id}`), 200);
const approve = async (id: string, as: Send = reviewer.page, env = PROD) =>
  json<ChangeRequest>(await as('POST', `${env}/change-requests/${id}/reviews`, { decision: 'approve' }), 200);
const flagOf = async (key: string, env = PROD) => {
  const response = await admin('GET', `${env}/flags/${key}`);
  return response.status === 404
    ? undefined
    : json<{ enabled: boolean; description: string | null }>(response, 200);
};
const versionOf = async (key: string) => {
  const response = await t.api('GET', `/flags/${key}`);
  expect(response.status).toBe(200);
  return Number(JSON.parse(response.headers.get('etag')!));
};
const revisionOf = async () => {
  const overview = await json<{
    projects: Array<{ key: string; environments: Array<{ key: string; revision: number }> }>;
  }>(await admin('GET', '/overview'), 200);
  return overview.projects.find((p) => p.key === 'acme')!.environments.find((e) => e.key === 'production')!
    .revision;
};
const flagChange = (key: string, body: Record<string, unknown>) => ({
  kind: 'flag',
  key,
  action: 'update',
  body,
});

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestServer({ changeRequests: { now: () => now, pollMs: 20 } });
  const people = peopleDriver(t.server.url, t.server.adminToken!);
  admin = people.admin;
  reviewer = await people.join({ email: uniqueEmail('reviewer'), role: 'editor', name: 'Rita Reviewer' });
  viewer = await people.join({ email: uniqueEmail('viewer'), role: 'viewer' });
  await json(await admin('PATCH', PROD, { approvals: 1 }), 200);
  const hook = await t.api('POST', '/webhooks', {
    url: receiver.url,
    events: [
      'flag.enabled',
      'flag.updated',
      'change_request.created',
      'change_request.approved',
      'change_request.rejected',
      'change_request.scheduled',
      'change_request.applied',
      'change_request.failed',
    ],
  });
  expect(hook.status).toBe(201);
}, 60_000);

afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

/** The webhook events received about request `id`, by type. */
const eventsOf = (id: string) =>
  receiver.received
    .filter((r) => (r.json.data.changeRequest as { id?: string } | undefined)?.id === id)
    .map((r) => r.json.type);

describe('a change request in an environment that needs one approval', () => {
  it('is open until another person approves it, then applies all at once, credited to its author', async () => {
    await t.api('POST', '/flags', { key: 'banner', type: 'boolean' }, KEYS.acmeStageFull);
    const before = await revisionOf();
    const cr = await create({
      title: 'Sale banner',
      description: 'For Friday',
      changes: [
        { kind: 'segment', key: 'vip', action: 'create', body: { included: ['ann'] } },
        {
          kind: 'flag',
          key: 'banner',
          action: 'create',
          body: {
            type: 'boolean',
            rules: [{ clauses: [{ op: 'inSegment', values: ['vip'] }], serve: { variant: 'on' } }],
          },
        },
        flagChange('seeded', { percentage: 50 }),
      ],
    });
    expect(cr).toMatchObject({
      title: 'Sale banner',
      state: 'open',
      author: { type: 'adminToken' },
      approvals: { required: 1, received: 0 },
      reviews: [],
    });
    expect(cr.id).toMatch(/^cr_[0-9a-f]{16}$/);
    // An update is written against the version it read.
    expect(cr.changes[2]!.baseVersion).toBe(await versionOf('seeded'));
    expect(cr.changes[0]!.baseVersion).toBeUndefined();
    // Nothing is written before it is applied.
    expect(await revisionOf()).toBe(before);
    expect(await flagOf('banner')).toBeUndefined();

    // Its page says what each change would do.
    const page = await read(cr.id);
    expect(page.preview?.map((p) => [p.kind, p.key, p.action])).toEqual([
      ['segment', 'vip', 'create'],
      ['flag', 'banner', 'create'],
      ['flag', 'seeded', 'update'],
    ]);
    expect(page.preview![2]!.changes).toEqual([{ field: 'percentage', from: 25, to: 50 }]);

    // Not without its approval; never by its author; never by a viewer.
    const early = await admin('POST', `${PROD}/change-requests/${cr.id}/apply`);
    expect(early.status).toBe(403);
    expect((await early.json()).error).toBe('APPROVAL_REQUIRED');
    const own = await admin('POST', `${PROD}/change-requests/${cr.id}/reviews`, { decision: 'approve' });
    expect(own.status).toBe(403);
    expect((await own.json()).message).toMatch(/your own change request/);
    const byViewer = await viewer.page('POST', `${PROD}/change-requests/${cr.id}/reviews`, {
      decision: 'approve',
    });
    expect(byViewer.status).toBe(403);

    const approved = await approve(cr.id);
    expect(approved).toMatchObject({ state: 'approved', approvals: { required: 1, received: 1 } });
    expect(approved.reviews).toMatchObject([
      { actor: { type: 'user', id: reviewer.user.id }, decision: 'approve' },
    ]);

    const applied = await json<ChangeRequest>(
      await admin('POST', `${PROD}/change-requests/${cr.id}/apply`),
      200,
    );
    expect(applied).toMatchObject({ state: 'applied', appliedBy: { type: 'adminToken' } });
    expect(applied.appliedAt).toBe(new Date(now).toISOString());
    expect(await revisionOf()).toBe(before + 3);
    expect(await flagOf('banner')).toMatchObject({ enabled: false });

    // The history credits the author, and names the request and who approved it.
    const history = await json<HistoryEntry[]>(await admin('GET', `${PROD}/history?limit=3`), 200);
    expect(history.map((h) => h.flag)).toEqual(['seeded', 'banner', 'segment:vip']);
    for (const entry of history) {
      expect(entry.actor.type).toBe('adminToken');
      expect(entry.changeRequest).toMatchObject({ id: cr.id, title: 'Sale banner' });
      expect(entry.changeRequest!.approvedBy).toMatchObject([{ type: 'user', id: reviewer.user.id }]);
    }

    // Webhooks: the request's life, signed like every delivery, and the flag changes it made.
    await expect
      .poll(() => eventsOf(cr.id))
      .toEqual(['change_request.created', 'change_request.approved', 'change_request.applied']);
    const appliedEvent = receiver.received.find(
      (r) =>
        r.json.type === 'change_request.applied' &&
        (r.json.data.changeRequest as { id: string }).id === cr.id,
    )!;
    expect(appliedEvent.headers['x-flagwire-signature']).toBeTruthy();
    expect(appliedEvent.json.data).toMatchObject({ action: 'applied', actor: { type: 'adminToken' } });
    expect((appliedEvent.json.data.changeRequest as ChangeRequest).changes[0]).not.toHaveProperty('body');
    const approvedEvent = receiver.received.find(
      (r) =>
        r.json.type === 'change_request.approved' &&
        (r.json.data.changeRequest as { id: string }).id === cr.id,
    )!;
    expect(approvedEvent.json.data).toMatchObject({
      actor: { id: reviewer.user.id },
      review: { decision: 'approve' },
    });

    // Applied is final.
    const again = await admin('POST', `${PROD}/change-requests/${cr.id}/apply`);
    expect(again.status).toBe(409);
  });

  it('refuses a stale request with the list of what moved, writes nothing, and applies once rebased', async () => {
    const first = await create({ title: 'fifty', changes: [flagChange('seeded', { percentage: 60 })] });
    const second = await create({ title: 'seventy', changes: [flagChange('seeded', { percentage: 70 })] });
    const base = second.changes[0]!.baseVersion!;
    await approve(first.id);
    await approve(second.id);
    await json(await admin('POST', `${PROD}/change-requests/${first.id}/apply`), 200);
    const moved = await versionOf('seeded');
    expect(moved).toBeGreaterThan(base);

    // Its page shows the conflict before anyone tries.
    expect((await read(second.id)).conflicts).toEqual([
      { kind: 'flag', key: 'seeded', baseVersion: base, currentVersion: moved },
    ]);
    const revision = await revisionOf();
    const stale = await admin('POST', `${PROD}/change-requests/${second.id}/apply`);
    expect(stale.status).toBe(409);
    const body = await stale.json();
    expect(body).toMatchObject({
      error: 'CONFLICT',
      conflicts: [{ kind: 'flag', key: 'seeded', baseVersion: base, currentVersion: moved }],
    });
    expect(body.message).toMatch(/flag "seeded" is at version \d+, not \d+/);
    expect(await revisionOf()).toBe(revision);
    expect((await read(second.id)).state).toBe('approved');

    // A rebase takes the current versions and clears the approvals: reviewed again.
    const rebased = await json<ChangeRequest>(
      await admin('PATCH', `${PROD}/change-requests/${second.id}`, { rebase: true }),
      200,
    );
    expect(rebased).toMatchObject({ state: 'open', reviews: [], approvals: { received: 0 } });
    expect(rebased.changes[0]!.baseVersion).toBe(moved);
    expect(rebased.conflicts).toBeUndefined();
    await approve(second.id);
    await json(await admin('POST', `${PROD}/change-requests/${second.id}/apply`), 200);
    expect(await versionOf('seeded')).toBeGreaterThan(moved);
  });

  it('is all or nothing: one moved target among several writes none of them', async () => {
    const version = await versionOf('seeded');
    const cr = await create({
      title: 'two flags',
      changes: [
        { kind: 'flag', key: 'fresh-one', action: 'create', body: { type: 'boolean' } },
        { ...flagChange('seeded', { description: 'changed' }), baseVersion: version },
      ],
    });
    await approve(cr.id);
    // Someone moves `seeded` with a key that bypasses approvals (written directly).
    const other = await create({ title: 'other', changes: [flagChange('seeded', { percentage: 5 })] });
    await approve(other.id);
    await json(await admin('POST', `${PROD}/change-requests/${other.id}/apply`), 200);
    const revision = await revisionOf();
    const response = await admin('POST', `${PROD}/change-requests/${cr.id}/apply`);
    expect(response.status).toBe(409);
    expect((await response.json()).conflicts).toHaveLength(1);
    expect(await revisionOf()).toBe(revision);
    expect(await flagOf('fresh-one')).toBeUndefined();
  });

  it('refuses a request that is stale, invalid or changes one target twice when it is made', async () => {
    const version = await versionOf('seeded');
    const stale = await admin('POST', `${PROD}/change-requests`, {
      title: 'old',
      changes: [{ ...flagChange('seeded', { enabled: false }), baseVersion: version - 1 }],
    });
    expect(stale.status).toBe(409);
    expect((await stale.json()).conflicts).toEqual([
      { kind: 'flag', key: 'seeded', baseVersion: version - 1, currentVersion: version },
    ]);
    const invalid = await admin('POST', `${PROD}/change-requests`, {
      title: 'bad',
      changes: [flagChange('seeded', { percentage: 500 })],
    });
    expect(invalid.status).toBe(400);
    expect((await invalid.json()).message).toMatch(/^changes\[0\] \(update flag "seeded"\): .*percentage/);
    const missing = await admin('POST', `${PROD}/change-requests`, {
      title: 'gone',
      changes: [{ kind: 'flag', key: 'no-such-flag', action: 'delete' }],
    });
    expect(missing.status).toBe(404);
    expect((await missing.json()).message).toMatch(/^changes\[0\] \(delete flag "no-such-flag"\): /);
    const twice = await admin('POST', `${PROD}/change-requests`, {
      title: 'twice',
      changes: [flagChange('seeded', { enabled: true }), flagChange('seeded', { enabled: false })],
    });
    expect(twice.status).toBe(400);
    expect((await twice.json()).message).toMatch(/changed twice/);
    for (const body of [
      {},
      { title: '', changes: [flagChange('seeded', {})] },
      { title: 'x', changes: [] },
      { title: 'x', changes: [{ kind: 'webhook', key: 'a', action: 'update' }] },
      { title: 'x', changes: [flagChange('seeded', {})], extra: 1 },
      { title: 'x', changes: [flagChange('seeded', {})], scheduledAt: 'Friday' },
    ]) {
      const response = await admin('POST', `${PROD}/change-requests`, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect((await response.json()).error).toBe('VALIDATION_ERROR');
    }
  });

  it('is rejected by a reviewer, reopened by its author editing it, and withdrawn by its author only', async () => {
    const cr = await create({ title: 'off', changes: [flagChange('seeded', { enabled: false })] });
    const rejected = await json<ChangeRequest>(
      await reviewer.page('POST', `${PROD}/change-requests/${cr.id}/reviews`, {
        decision: 'reject',
        comment: 'not on a Friday',
      }),
      200,
    );
    expect(rejected).toMatchObject({
      state: 'rejected',
      reviews: [{ decision: 'reject', comment: 'not on a Friday' }],
    });
    expect((await admin('POST', `${PROD}/change-requests/${cr.id}/apply`)).status).toBe(409);
    await expect.poll(() => eventsOf(cr.id)).toContain('change_request.rejected');

    // Only its author changes it; changing it clears the reviews and opens it again.
    expect(
      (await reviewer.page('PATCH', `${PROD}/change-requests/${cr.id}`, { title: 'mine now' })).status,
    ).toBe(403);
    const edited = await json<ChangeRequest>(
      await admin('PATCH', `${PROD}/change-requests/${cr.id}`, { title: 'off, on Monday' }),
      200,
    );
    expect(edited).toMatchObject({ state: 'open', title: 'off, on Monday', reviews: [] });
    await approve(cr.id);
    // An approval is cleared by an edit too.
    const reedited = await json<ChangeRequest>(
      await admin('PATCH', `${PROD}/change-requests/${cr.id}`, {
        changes: [flagChange('seeded', { enabled: true })],
      }),
      200,
    );
    expect(reedited).toMatchObject({ state: 'open', approvals: { received: 0 } });

    expect((await reviewer.page('DELETE', `${PROD}/change-requests/${cr.id}`)).status).toBe(403);
    const withdrawn = await json<ChangeRequest>(
      await admin('DELETE', `${PROD}/change-requests/${cr.id}`),
      200,
    );
    expect(withdrawn.state).toBe('withdrawn');
    expect(
      (await reviewer.page('POST', `${PROD}/change-requests/${cr.id}/reviews`, { decision: 'approve' }))
        .status,
    ).toBe(409);
    expect((await admin('DELETE', `${PROD}/change-requests/${cr.id}`)).status).toBe(409);
  });

  it('lists by state, newest first, and answers 404 for an unknown request', async () => {
    const all = await json<ChangeRequest[]>(await admin('GET', `${PROD}/change-requests`), 200);
    expect(all.length).toBeGreaterThan(3);
    const times = all.map((cr) => cr.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
    const applied = await json<ChangeRequest[]>(
      await admin('GET', `${PROD}/change-requests?state=applied`),
      200,
    );
    expect(applied.length).toBeGreaterThan(0);
    expect(applied.every((cr) => cr.state === 'applied')).toBe(true);
    expect((await admin('GET', `${PROD}/change-requests?state=merged`)).status).toBe(400);
    expect((await admin('GET', `${PROD}/change-requests/cr_0000000000000000`)).status).toBe(404);
    expect((await viewer.page('GET', `${PROD}/change-requests`)).status).toBe(200);
    expect((await viewer.page('POST', `${PROD}/change-requests`, { title: 'x', changes: [] })).status).toBe(
      403,
    );
  });
});

describe('scheduled changes', () => {
  it('applies an approved request at its time on the server clock, once', async () => {
    const at = new Date(now + 3_600_000).toISOString();
    const cr = await create({
      title: 'at nine',
      changes: [flagChange('seeded', { enabled: false })],
      scheduledAt: at,
    });
    expect(cr).toMatchObject({ state: 'open', scheduledAt: at });
    const approved = await approve(cr.id);
    expect(approved.state).toBe('scheduled');
    await expect.poll(() => eventsOf(cr.id)).toContain('change_request.scheduled');
    // Not before its time.
    expect((await read(cr.id)).state).toBe('scheduled');
    expect(await flagOf('seeded')).toMatchObject({ enabled: true });

    now += 3_600_000;
    await expect.poll(async () => (await read(cr.id)).state).toBe('applied');
    const applied = await read(cr.id);
    expect(applied).toMatchObject({ appliedAt: at, appliedBy: { type: 'system', id: 'scheduler' } });
    expect(applied.late).toBeUndefined();
    expect(await flagOf('seeded')).toMatchObject({ enabled: false });
    const [entry] = await json<HistoryEntry[]>(
      await admin('GET', `${PROD}/history?flag=seeded&limit=1`),
      200,
    );
    expect(entry).toMatchObject({ actor: { type: 'adminToken' }, changeRequest: { id: cr.id } });
    await expect.poll(() => eventsOf(cr.id)).toContain('change_request.applied');
    expect(eventsOf(cr.id).filter((type) => type === 'change_request.applied')).toHaveLength(1);
  });

  it('marks a scheduled request whose flag moved failed, naming it, and writes nothing', async () => {
    const at = new Date(now + 60_000).toISOString();
    const cr = await create({
      title: 'later',
      changes: [flagChange('seeded', { enabled: true })],
      scheduledAt: at,
    });
    await approve(cr.id);
    const other = await create({
      title: 'sooner',
      changes: [flagChange('seeded', { description: 'moved' })],
    });
    await approve(other.id);
    await json(await admin('POST', `${PROD}/change-requests/${other.id}/apply`), 200);
    const revision = await revisionOf();

    now += 60_000;
    await expect.poll(async () => (await read(cr.id)).state).toBe('failed');
    const failed = await read(cr.id);
    expect(failed.failure).toMatch(/flag "seeded" is at version/);
    expect(await revisionOf()).toBe(revision);
    expect(await flagOf('seeded')).toMatchObject({ enabled: false });
    await expect.poll(() => eventsOf(cr.id)).toContain('change_request.failed');

    // Rebased (its time passed: no longer scheduled), approved again and rescheduled, it applies.
    const rebased = await json<ChangeRequest>(
      await admin('PATCH', `${PROD}/change-requests/${cr.id}`, { rebase: true }),
      200,
    );
    expect(rebased).toMatchObject({ state: 'open' });
    expect(rebased.failure).toBeUndefined();
    expect(rebased.scheduledAt).toBeUndefined();
    expect((await approve(cr.id)).state).toBe('approved');
    const rescheduled = await json<ChangeRequest>(
      await admin('POST', `${PROD}/change-requests/${cr.id}/schedule`, {
        at: new Date(now - 1000).toISOString(),
      }),
      200,
    );
    expect(['scheduled', 'applied']).toContain(rescheduled.state);
    await expect.poll(async () => (await read(cr.id)).state).toBe('applied');
    expect(await flagOf('seeded')).toMatchObject({ enabled: true });
  });

  it('schedules in an environment without approvals, and applies now on request', async () => {
    await t.api('POST', '/flags', { key: 'stage-flag', type: 'boolean' }, KEYS.acmeStageFull);
    const cr = await create(
      {
        title: 'stage at noon',
        changes: [flagChange('stage-flag', { enabled: true })],
        scheduledAt: new Date(now + 86_400_000).toISOString(),
      },
      admin,
      STAGE,
    );
    expect(cr).toMatchObject({ state: 'scheduled', approvals: { required: 0, received: 0 } });
    const applied = await json<ChangeRequest>(
      await admin('POST', `${STAGE}/change-requests/${cr.id}/apply`),
      200,
    );
    expect(applied.state).toBe('applied');
    expect(await flagOf('stage-flag', STAGE)).toMatchObject({ enabled: true });
  });
});

describe('a scheduled change across a restart', () => {
  it('is applied when the server starts again after its time, late, and says so', async () => {
    const store =
      TEST_STORE === 'postgres'
        ? { databaseUrl: await freshDatabase() }
        : { dataDir: await mkdtemp(join(tmpdir(), 'flagwire-cr-restart-')) };
    let clock = START;
    const options = { ...store, changeRequests: { now: () => clock, pollMs: 20 } };
    const first = await startTestServer(options);
    const call = peopleDriver(first.server.url, first.server.adminToken!).admin;
    const cr = await json<ChangeRequest>(
      await call('POST', `${STAGE}/change-requests`, {
        title: 'while down',
        changes: [{ kind: 'flag', key: 'down', action: 'create', body: { type: 'boolean' } }],
        scheduledAt: new Date(clock + 3_600_000).toISOString(),
      }),
      201,
    );
    expect(cr.state).toBe('scheduled');
    await first.close();

    clock += 2 * 3_600_000;
    const second = await startTestServer(options);
    try {
      const again = peopleDriver(second.server.url, second.server.adminToken!).admin;
      const read = async () =>
        json<ChangeRequest>(await again('GET', `${STAGE}/change-requests/${cr.id}`), 200);
      await expect.poll(async () => (await read()).state).toBe('applied');
      expect(await read()).toMatchObject({
        late: true,
        scheduledAt: cr.scheduledAt,
        appliedAt: new Date(clock).toISOString(),
      });
      expect((await again('GET', `${STAGE}/flags/down`)).status).toBe(200);
    } finally {
      await second.close();
    }
  });
});
