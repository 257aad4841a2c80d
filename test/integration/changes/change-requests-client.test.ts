/**
 * The management client's change requests (`docs/protocol.md` §10.7) against a real server:
 * pointed at an environment of the admin API with a personal access token, it proposes, reviews,
 * applies, rebases, schedules and withdraws; refusals reach the caller as `FlagwireError`s with
 * the service's code, a stale request's `conflicts` included; and a direct write where approvals
 * are needed is `APPROVAL_REQUIRED`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedApiKey } from '../../../src/core/admin-wire.js';
import {
  createManagementClient,
  FlagwireError,
  isChangeConflict,
  isFlagwireError,
  type ManagementClient,
} from '../../../src/index.js';
import { peopleDriver, type Send, uniqueEmail } from '../../helpers/people.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const ENV = '/environments/acme/production';

let t: TestServer;
let admin: Send;
/** The author's client and a reviewer's, each by a personal access token of an acme editor. */
let author: ManagementClient;
let reviewer: ManagementClient;
/** An `/api/v1` client whose key bypasses approvals: moves flags under the requests. */
let automation: ManagementClient;

/** What `promise` rejected with (it must reject). */
async function refusal(promise: Promise<unknown>): Promise<FlagwireError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(isFlagwireError(error), String(error)).toBe(true);
  return error as FlagwireError;
}

beforeAll(async () => {
  t = await startTestServer();
  const people = peopleDriver(t.server.url, t.server.adminToken!);
  admin = people.admin;
  const at = async (prefix: string) => {
    const member = await people.join({
      email: uniqueEmail(prefix),
      role: 'viewer',
      projects: { acme: 'editor' },
    });
    const { token } = await people.token(member, `${prefix} script`);
    return createManagementClient({ baseUrl: `${t.server.url}/admin/api${ENV}`, apiKey: token });
  };
  [author, reviewer] = [await at('author'), await at('reviewer')];

  const key = await admin('POST', `${ENV}/keys`, { access: 'full', bypassApprovals: true });
  expect(key.status).toBe(201);
  automation = createManagementClient({ baseUrl: t.base, apiKey: ((await key.json()) as CreatedApiKey).key });
  await automation.flags.create({ key: 'checkout', type: 'boolean' });
  await automation.flags.create({ key: 'banner', type: 'boolean' });

  const approvals = await admin('PATCH', ENV, { approvals: 1 });
  expect(approvals.status, await approvals.text()).toBe(200);
}, 30_000);
afterAll(async () => {
  await t?.close();
});

describe('the management client: change requests', () => {
  it('refuses direct writes where approvals are needed with APPROVAL_REQUIRED', async () => {
    const direct = await refusal(author.flags.update('checkout', { enabled: true }));
    expect(direct.code).toBe('APPROVAL_REQUIRED');
    expect(direct.status).toBe(403);
    expect(direct.message).toContain('change request');
    const byKey = createManagementClient({ baseUrl: t.base, apiKey: t.fullKey });
    expect((await refusal(byKey.flags.delete('checkout'))).code).toBe('APPROVAL_REQUIRED');
    expect((await refusal(author.flags.create({ key: 'direct', type: 'boolean' }))).code).toBe(
      'APPROVAL_REQUIRED',
    );
    // A plain refusal stays FORBIDDEN.
    const readOnly = createManagementClient({ baseUrl: t.base, apiKey: t.readKey });
    expect((await refusal(readOnly.flags.update('checkout', { enabled: true }))).code).toBe('FORBIDDEN');
  });

  it('proposes, lists by state, is reviewed by another member only, and applies', async () => {
    const created = await author.changeRequests.create({
      title: 'Add the new-nav flag',
      description: 'for the redesign',
      changes: [{ kind: 'flag', key: 'new-nav', action: 'create', body: { type: 'boolean' } }],
    });
    expect(created).toMatchObject({
      id: expect.stringMatching(/^cr_[0-9a-f]{16}$/),
      title: 'Add the new-nav flag',
      state: 'open',
      author: { type: 'token', name: 'author script' },
      approvals: { required: 1, received: 0 },
    });

    const { version } = await author.flags.read('checkout');
    const proposed = await author.changeRequests.proposeFlagUpdate(
      'checkout',
      { enabled: true },
      { title: 'Turn checkout on' },
    );
    expect(proposed.state).toBe('open');
    expect(proposed.changes).toEqual([
      { kind: 'flag', key: 'checkout', action: 'update', body: { enabled: true }, baseVersion: version },
    ]);

    const open = await reviewer.changeRequests.list({ state: 'open' });
    expect(open.map((cr) => cr.id)).toEqual([proposed.id, created.id]);
    expect(await reviewer.changeRequests.list({ state: 'applied' })).toEqual([]);
    expect((await reviewer.changeRequests.list()).length).toBeGreaterThanOrEqual(2);
    const read = await reviewer.changeRequests.get(proposed.id);
    expect(read.preview).toEqual([
      expect.objectContaining({ kind: 'flag', key: 'checkout', action: 'update' }),
    ]);

    const own = await refusal(author.changeRequests.approve(proposed.id));
    expect(own.code).toBe('FORBIDDEN');
    expect(own.status).toBe(403);

    // Applying before the approvals: APPROVAL_REQUIRED.
    expect((await refusal(author.changeRequests.apply(proposed.id))).code).toBe('APPROVAL_REQUIRED');

    const approved = await reviewer.changeRequests.approve(proposed.id, 'looks right');
    expect(approved.state).toBe('approved');
    expect(approved.approvals.received).toBe(1);
    expect(approved.reviews).toEqual([
      expect.objectContaining({
        decision: 'approve',
        comment: 'looks right',
        actor: expect.objectContaining({ name: 'reviewer script' }),
      }),
    ]);

    const applied = await author.changeRequests.apply(proposed.id);
    expect(applied.state).toBe('applied');
    expect(applied.appliedAt).toEqual(expect.any(String));
    expect((await author.flags.get('checkout')).enabled).toBe(true);
    expect((await author.changeRequests.list({ state: 'applied' })).map((cr) => cr.id)).toEqual([
      proposed.id,
    ]);

    const rejected = await reviewer.changeRequests.reject(created.id, 'not yet');
    expect(rejected.state).toBe('rejected');
    expect(rejected.reviews).toEqual([expect.objectContaining({ decision: 'reject', comment: 'not yet' })]);
  });

  it('rejects a stale request with CONFLICT and its conflicts; rebased and approved again, it applies', async () => {
    const proposed = await author.changeRequests.proposeFlagUpdate(
      'banner',
      { description: 'the spring banner' },
      { title: 'Describe the banner' },
    );
    const base = proposed.changes[0]!.baseVersion!;
    await reviewer.changeRequests.approve(proposed.id);

    // The flag moves under the request (a key that bypasses approvals).
    await automation.flags.update('banner', { enabled: true });
    const { version: current } = await author.flags.read('banner');
    expect(current).toBeGreaterThan(base);

    const stale = await refusal(author.changeRequests.apply(proposed.id));
    expect(stale).toBeInstanceOf(FlagwireError);
    expect(stale.code).toBe('CONFLICT');
    expect(stale.status).toBe(409);
    expect(isChangeConflict(stale)).toBe(true);
    if (!isChangeConflict(stale)) throw stale;
    expect(stale.conflicts).toEqual([
      { kind: 'flag', key: 'banner', baseVersion: base, currentVersion: current },
    ]);
    expect((await author.flags.get('banner')).description).toBeNull();
    // Another refusal is not a change conflict.
    expect(isChangeConflict(await refusal(author.changeRequests.approve(proposed.id)))).toBe(false);

    const rebased = await author.changeRequests.rebase(proposed.id);
    expect(rebased.state).toBe('open');
    expect(rebased.reviews).toEqual([]);
    expect(rebased.changes[0]!.baseVersion).toBe(current);
    expect((await reviewer.changeRequests.approve(proposed.id)).state).toBe('approved');
    expect((await reviewer.changeRequests.apply(proposed.id)).state).toBe('applied');
    const banner = await author.flags.get('banner');
    expect(banner).toMatchObject({ enabled: true, description: 'the spring banner' });
  });

  it('updates, schedules and withdraws', async () => {
    const inAYear = new Date(Date.now() + 365 * 24 * 3600_000);
    const proposed = await author.changeRequests.proposeFlagUpdate(
      'checkout',
      { enabled: false },
      { title: 'Checkout off', scheduledAt: inAYear },
    );
    expect(proposed.scheduledAt).toBe(inAYear.toISOString());

    const updated = await author.changeRequests.update(proposed.id, { title: 'Checkout off for the sale' });
    expect(updated.title).toBe('Checkout off for the sale');
    // Only its author changes or withdraws it.
    expect((await refusal(reviewer.changeRequests.update(proposed.id, { title: 'mine' }))).code).toBe(
      'FORBIDDEN',
    );
    expect((await refusal(reviewer.changeRequests.withdraw(proposed.id))).code).toBe('FORBIDDEN');

    expect((await reviewer.changeRequests.approve(proposed.id)).state).toBe('scheduled');
    const later = new Date(inAYear.getTime() + 3600_000);
    const moved = await author.changeRequests.schedule(proposed.id, later);
    expect(moved).toMatchObject({ state: 'scheduled', scheduledAt: later.toISOString() });
    const asText = await author.changeRequests.schedule(proposed.id, inAYear.toISOString());
    expect(asText.scheduledAt).toBe(inAYear.toISOString());
    expect((await author.changeRequests.list({ state: 'scheduled' })).map((cr) => cr.id)).toEqual([
      proposed.id,
    ]);

    const withdrawn = await author.changeRequests.withdraw(proposed.id);
    expect(withdrawn.state).toBe('withdrawn');
    expect((await author.changeRequests.get(proposed.id)).state).toBe('withdrawn');
    expect((await author.changeRequests.list({ state: 'withdrawn' })).map((cr) => cr.id)).toEqual([
      proposed.id,
    ]);
    expect((await author.flags.get('checkout')).enabled).toBe(true);
    // Closed: withdrawing again is a CONFLICT without conflicts.
    const again = await refusal(author.changeRequests.withdraw(proposed.id));
    expect(again.code).toBe('CONFLICT');
    expect(isChangeConflict(again)).toBe(false);

    expect((await refusal(author.changeRequests.get('cr_0000000000000000'))).code).toBe('NOT_FOUND');
  });
});
