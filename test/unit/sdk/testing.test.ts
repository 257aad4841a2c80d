/** `flagwire/testing`: the in-memory client and the signed webhook helpers. */
import { describe, expect, it } from 'vitest';
import { handleWebhook } from '../../../examples/webhook-receiver-fetch.js';
import { bucketOf, constructEvent, type FlagChange, type WebhookEvent } from '../../../src/index.js';
import {
  buildWebhookEvent,
  createSignedWebhookRequest,
  createTestClient,
  signWebhookBody,
} from '../../../src/testing/index.js';

describe('createTestClient', () => {
  it('evaluates with the real rules and is ready at once', async () => {
    const flags = createTestClient({
      flags: [
        { key: 'on', type: 'boolean', enabled: true, description: null },
        { key: 'roll', type: 'rollout', enabled: true, percentage: 40, description: 'r' },
      ],
    });
    await flags.ready();
    expect(flags.isEnabled('on')).toBe(true);
    for (let i = 0; i < 200; i++)
      expect(flags.isEnabled('roll', `u${i}`)).toBe(bucketOf('roll', `u${i}`) <= 40);
    expect(flags.isEnabled('missing', 'u', true)).toBe(true);
    expect(flags.isEnabledDetail('missing', 'u').reason).toBe('FLAG_NOT_FOUND');
    expect(flags.isEnabledDetail('roll', {}).reason).toBe('MISSING_USER_KEY');
    expect(Object.keys(flags.allFlags()).sort()).toEqual(['on', 'roll']);
  });

  it('emits change and change:<key> on set and remove, synchronously', () => {
    const flags = createTestClient();
    const all: FlagChange[] = [];
    const one: FlagChange[] = [];
    flags.on('change', (c) => all.push(c));
    flags.on('change:beta', (c) => one.push(c));
    flags.set({ key: 'beta', type: 'boolean', enabled: false, description: null });
    flags.set({ key: 'beta', type: 'boolean', enabled: true, description: null });
    expect(flags.isEnabled('beta')).toBe(true);
    flags.remove('beta');
    flags.remove('beta');
    expect(flags.isEnabled('beta')).toBe(false);
    expect(all.map((c) => [c.before?.enabled, c.after?.enabled])).toEqual([
      [undefined, false],
      [false, true],
      [true, undefined],
    ]);
    expect(one).toHaveLength(3);
  });
});

describe('signed webhook helpers', () => {
  const secret = 'whsec_testtesttesttesttesttesttesttesttest';

  it('builds requests that constructEvent accepts, with overrides', async () => {
    const request = createSignedWebhookRequest({
      secret,
      event: { type: 'flag.updated', data: { action: 'created' } },
    });
    const body = new Uint8Array(await request.arrayBuffer());
    const event = constructEvent(body, request.headers, secret);
    expect(event).toMatchObject({
      type: 'flag.updated',
      data: { action: 'created', flag: { key: 'example-flag' } },
    });
    expect(request.headers.get('x-flagwire-delivery')).toBe(event.delivery.id);
  });

  it('drives a receiver under test: accepted when signed, refused with another secret', async () => {
    const seen: WebhookEvent[] = [];
    const ok = await handleWebhook(createSignedWebhookRequest({ secret }), secret, (e) => {
      seen.push(e);
    });
    expect(ok.status).toBe(204);
    const bad = await handleWebhook(createSignedWebhookRequest({ secret: `${secret}x` }), secret, () => {});
    expect(bad.status).toBe(400);
    expect(seen).toHaveLength(1);
  });

  it('signs bodies like the server: a replayed old event is refused by the timestamp check', () => {
    const old = buildWebhookEvent({}, Date.now() - 3600_000);
    const body = JSON.stringify(old);
    expect(() => constructEvent(body, signWebhookBody(body, secret), secret)).toThrow(
      expect.objectContaining({ code: 'timestamp_too_old' }),
    );
  });
});
