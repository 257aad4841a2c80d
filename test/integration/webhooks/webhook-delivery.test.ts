/**
 * Webhook delivery end to end (`docs/protocol.md` §8): a real server, a real receiver on
 * loopback, signatures checked over the exact bytes received.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { constructEvent } from '../../../src/index.js';
import { startCli } from '../../helpers/cli.js';
import { type Answer, type Received, startReceiver } from '../../helpers/receiver.js';
import { startTestServer, type TestServer, type TestServerOptions } from '../../helpers/server.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function setUp(
  answer?: (r: Received, i: number) => Answer,
  options: TestServerOptions = {},
  events = ['flag.enabled', 'flag.disabled', 'flag.updated'],
) {
  const receiver = await startReceiver(answer);
  cleanups.push(() => receiver.close());
  const t = await startTestServer({ webhookRetryDelaysMs: [20, 20], webhookTimeoutMs: 300, ...options });
  cleanups.push(() => t.close());
  const res = await t.api('POST', '/webhooks', { url: receiver.url, events });
  const hook = (await res.json()) as { id: string; secret: string };
  return { t, receiver, hook };
}

const signatureOf = (secret: string, raw: Buffer) =>
  `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;

async function deliveries(t: TestServer, id: string) {
  return (await (await t.api('GET', `/webhooks/${id}/deliveries`)).json()) as Array<Record<string, unknown>>;
}

describe('webhook delivery', () => {
  it('a receiver that never answers holds at most webhookConcurrencyPerWebhook slots: the other webhooks are served meanwhile', async () => {
    // No attempt can time out during the test: whatever the healthy receiver gets, it gets
    // while the hanging one still holds its requests open.
    const { t, receiver: hanging } = await setUp(() => 'hang', {
      webhookConcurrency: 4,
      webhookConcurrencyPerWebhook: 2,
      webhookTimeoutMs: 120_000,
    });
    const healthy = await startReceiver();
    cleanups.push(() => healthy.close());
    await t.api('POST', '/webhooks', { url: healthy.url, events: ['flag.updated'] });
    for (let i = 0; i < 6; i++) await t.api('POST', '/flags', { key: `hog-${i}`, type: 'boolean' });
    const got = new Set<string>();
    for (let i = 0; i < 6; i++)
      got.add((((await healthy.next()).json.data.flag ?? {}) as { key?: string }).key ?? '');
    expect(got).toEqual(new Set(['hog-0', 'hog-1', 'hog-2', 'hog-3', 'hog-4', 'hog-5']));
    expect(hanging.received.length).toBe(2);
  });

  it('sends one signed event per change, with the contract envelope and headers', async () => {
    const { t, receiver, hook } = await setUp();
    await t.api('POST', '/flags', { key: 'wh-flag', type: 'rollout', percentage: 10 });
    const created = await receiver.next();
    expect(created.headers['content-type']).toBe('application/json');
    expect(created.headers['x-flagwire-signature']).toBe(signatureOf(hook.secret, created.raw));
    expect(created.headers['x-flagwire-event']).toBe('flag.updated');
    expect(created.headers['x-flagwire-delivery']).toBe(created.json.delivery.id);
    expect(Object.keys(created.json)).toEqual([
      'id',
      'type',
      'createdAt',
      'webhookId',
      'project',
      'environment',
      'delivery',
      'data',
    ]);
    expect(created.json).toMatchObject({
      type: 'flag.updated',
      webhookId: hook.id,
      project: 'acme',
      environment: 'production',
      delivery: { attempt: 1 },
      data: {
        action: 'created',
        flag: { key: 'wh-flag', type: 'rollout', enabled: false, percentage: 10, description: null },
      },
    });
    expect(created.json.id).toMatch(/^evt_/);
    expect(created.json.delivery.id).toMatch(/^dlv_/);
    expect(Number.isInteger(created.json.delivery.sentAt)).toBe(true);

    await t.api('PATCH', '/flags/wh-flag', { enabled: true, percentage: 30 });
    const enabled = await receiver.next();
    expect(enabled.json).toMatchObject({
      type: 'flag.enabled',
      data: {
        action: 'updated',
        flag: { enabled: true, percentage: 30 },
        previous: { enabled: false, percentage: 10 },
      },
    });
    await t.api('PATCH', '/flags/wh-flag', { enabled: true });
    await t.api('PATCH', '/flags/wh-flag', { description: 'now described' });
    const described = await receiver.next();
    expect(described.json).toMatchObject({ type: 'flag.updated', data: { previous: { description: null } } });
    await t.api('PATCH', '/flags/wh-flag', { enabled: false });
    expect((await receiver.next()).json).toMatchObject({
      type: 'flag.disabled',
      data: { previous: { enabled: true } },
    });
    await t.api('DELETE', '/flags/wh-flag');
    const deleted = await receiver.next();
    expect(deleted.json).toMatchObject({
      type: 'flag.updated',
      data: { action: 'deleted', flag: { key: 'wh-flag' } },
    });
    // Five changes, five events: the no-op PATCH sent nothing.
    expect(receiver.received).toHaveLength(5);
    // Every event passes the SDK's receiver-side verification as received.
    for (const r of receiver.received) {
      expect(constructEvent(r.raw, r.headers as Record<string, string>, hook.secret).id).toBe(r.json.id);
    }
    expect(new Set(receiver.received.map((r) => r.json.id)).size).toBe(5);
  });

  it('delivers only to active webhooks subscribed to the kind', async () => {
    const { t, receiver, hook } = await setUp(undefined, {}, ['flag.enabled']);
    const other = await (
      await t.api('POST', '/webhooks', { url: receiver.url, events: ['flag.updated'] })
    ).json();
    await t.api('PATCH', `/webhooks/${other.id}`, { active: false });
    await t.api('POST', '/flags', { key: 'filtered', type: 'boolean' });
    await t.api('PATCH', '/flags/filtered', { enabled: true });
    const got = await receiver.next();
    expect(got.json).toMatchObject({ type: 'flag.enabled', webhookId: hook.id });
    expect(await deliveries(t, other.id)).toEqual([]);
    expect((await deliveries(t, hook.id)).map((d) => d.type)).toEqual(['flag.enabled']);
  });

  it('retries with the same event id and a fresh signature until a 2xx', async () => {
    const { t, receiver, hook } = await setUp((_, i) => (i < 2 ? 500 : 204));
    await t.api('POST', '/flags', { key: 'retried', type: 'boolean' });
    const attempts = [await receiver.next(), await receiver.next(), await receiver.next()];
    expect(attempts.map((a) => a.json.delivery.attempt)).toEqual([1, 2, 3]);
    expect(new Set(attempts.map((a) => a.json.id)).size).toBe(1);
    expect(new Set(attempts.map((a) => a.json.delivery.id)).size).toBe(1);
    for (const a of attempts) expect(a.headers['x-flagwire-signature']).toBe(signatureOf(hook.secret, a.raw));
    expect(new Set(attempts.map((a) => a.headers['x-flagwire-signature'])).size).toBe(3);
    await expect
      .poll(async () => (await deliveries(t, hook.id))[0])
      .toMatchObject({
        status: 'succeeded',
        attempts: 3,
        lastStatusCode: 204,
        nextAttemptAt: null,
      });
  });

  it('fails a delivery when the schedule runs out, without following redirects', async () => {
    const { t, receiver, hook } = await setUp(() => 302);
    await t.api('POST', '/flags', { key: 'redirected', type: 'boolean' });
    await receiver.next();
    await receiver.next();
    await receiver.next();
    await expect
      .poll(async () => (await deliveries(t, hook.id))[0])
      .toMatchObject({
        status: 'failed',
        attempts: 3,
        lastStatusCode: 302,
      });
    expect(receiver.received).toHaveLength(3);
  });

  it('deactivates the webhook on 410 Gone', async () => {
    const { t, receiver, hook } = await setUp(() => 410);
    await t.api('POST', '/flags', { key: 'gone', type: 'boolean' });
    await receiver.next();
    await expect
      .poll(async () => (await (await t.api('GET', `/webhooks/${hook.id}`)).json()).active)
      .toBe(false);
    expect((await deliveries(t, hook.id))[0]).toMatchObject({
      status: 'failed',
      attempts: 1,
      lastStatusCode: 410,
    });
  });

  it('retries a receiver that hangs past the timeout', async () => {
    const { t, receiver, hook } = await setUp((_, i) => (i === 0 ? 'hang' : 200));
    await t.api('POST', '/flags', { key: 'slow', type: 'boolean' });
    const first = await receiver.next();
    const second = await receiver.next();
    expect(second.json.id).toBe(first.json.id);
    expect(second.json.delivery.attempt).toBe(2);
    await expect.poll(async () => (await deliveries(t, hook.id))[0]?.status).toBe('succeeded');
  });

  it('redelivers an event with the same event id as a new delivery', async () => {
    const { t, receiver, hook } = await setUp();
    await t.api('POST', '/flags', { key: 'again', type: 'boolean' });
    const original = await receiver.next();
    const [listed] = await deliveries(t, hook.id);
    const res = await t.api('POST', `/webhooks/${hook.id}/deliveries/${listed!.id}/redeliver`);
    expect(res.status).toBe(202);
    const again = await receiver.next();
    expect(again.json.id).toBe(original.json.id);
    expect(again.json.delivery.id).not.toBe(original.json.delivery.id);
    expect(again.json.delivery.attempt).toBe(1);
    expect((await t.api('POST', `/webhooks/${hook.id}/deliveries/dlv_nope/redeliver`)).status).toBe(404);
  });

  it('sends a signed test event on request', async () => {
    const { t, receiver, hook } = await setUp();
    const res = await t.api('POST', `/webhooks/${hook.id}/test`);
    expect(res.status).toBe(202);
    const test = await receiver.next();
    expect(test.json).toMatchObject({ type: 'webhook.test', webhookId: hook.id, data: { action: 'test' } });
    expect(test.headers['x-flagwire-signature']).toBe(signatureOf(hook.secret, test.raw));
    expect(constructEvent(test.body, test.headers as Record<string, string>, hook.secret).type).toBe(
      'webhook.test',
    );
  });

  it('keeps signing with the old secret during the grace period after a rotation', async () => {
    const { t, receiver, hook } = await setUp();
    const rotated = (await (await t.api('POST', `/webhooks/${hook.id}/rotate-secret`)).json()) as Record<
      string,
      string
    >;
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(hook.secret);
    expect(Date.parse(rotated.previousSecretExpiresAt!)).toBeGreaterThan(Date.now());
    await t.api('POST', '/flags', { key: 'rotating', type: 'boolean' });
    const got = await receiver.next();
    expect(got.headers['x-flagwire-signature']).toBe(signatureOf(hook.secret, got.raw));
    // A receiver holding both secrets accepts it.
    expect(
      constructEvent(got.raw, got.headers as Record<string, string>, [rotated.secret!, hook.secret]).id,
    ).toBe(got.json.id);
    expect(JSON.stringify(await (await t.api('GET', `/webhooks/${hook.id}`)).json())).not.toContain('whsec_');
  });

  it('signs with the new secret once the grace period is over', async () => {
    const { t, receiver, hook } = await setUp(undefined, { webhookSecretGraceMs: 1 });
    const rotated = (await (await t.api('POST', `/webhooks/${hook.id}/rotate-secret`)).json()) as Record<
      string,
      string
    >;
    await expect.poll(() => Date.now() > Date.parse(rotated.previousSecretExpiresAt!)).toBe(true);
    await t.api('POST', '/flags', { key: 'rotated', type: 'boolean' });
    const got = await receiver.next();
    expect(got.headers['x-flagwire-signature']).toBe(signatureOf(rotated.secret!, got.raw));
  });
});

describe('webhook delivery durability', () => {
  it('delivers a pending event after the server is killed with SIGKILL mid-delivery', async () => {
    const receiver = await startReceiver((_, i) => (i === 0 ? 'hang' : 200));
    cleanups.push(() => receiver.close());
    const dataDir = mkdtempSync(join(tmpdir(), 'flagwire-wh-'));
    const args = ['--data', dataDir, '--webhook-retry-delays', '50,50', '--webhook-timeout', '60000'];
    const first = await startCli(args);
    const headers = { authorization: `Bearer ${first.fullKey}`, 'content-type': 'application/json' };
    const hook = await (
      await fetch(`${first.url}/api/v1/webhooks`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ url: receiver.url, events: ['flag.updated'] }),
      })
    ).json();
    const created = await fetch(`${first.url}/api/v1/flags`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ key: 'survivor', type: 'boolean' }),
    });
    expect(created.status).toBe(201);
    const during = await receiver.next();
    first.child.kill('SIGKILL');
    await first.exited;
    const second = await startCli(args);
    cleanups.push(async () => {
      second.child.kill('SIGTERM');
      await second.exited;
    });
    const after = await receiver.next();
    expect(after.json.id).toBe(during.json.id);
    expect(after.json.delivery.id).toBe(during.json.delivery.id);
    expect(after.headers['x-flagwire-signature']).toBe(signatureOf(hook.secret, after.raw));
  });
});
