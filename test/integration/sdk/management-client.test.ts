/** `createManagementClient()` against the real reference server, and its retry rules. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManagementClient, type FlagwireError } from '../../../src/index.js';
import { startReceiver } from '../../helpers/receiver.js';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ webhookRetryDelaysMs: [20] });
});
afterAll(() => t.close());

const admin = () => createManagementClient({ baseUrl: t.base, apiKey: KEYS.acmeProdFull });

describe('segments and targeting flags', () => {
  it('creates, reads, lists, updates and deletes segments, and a flag naming one keeps it from deletion', async () => {
    const m = admin();
    const made = await m.segments.create({ key: 'mc-seg', included: ['ann'] });
    expect(made).toMatchObject({
      key: 'mc-seg',
      description: null,
      included: ['ann'],
      excluded: [],
      rules: [],
    });
    expect(await m.segments.update('mc-seg', { excluded: ['bob'] })).toMatchObject({
      included: ['ann'],
      excluded: ['bob'],
    });
    expect(await m.segments.get('mc-seg')).toMatchObject({ excluded: ['bob'] });
    expect((await m.segments.list()).map((s) => s.key)).toContain('mc-seg');
    const flag = await m.flags.create({
      key: 'mc-colour',
      type: 'string',
      variants: { blue: 'blue', red: 'red' },
      rules: [{ clauses: [{ op: 'inSegment', values: ['mc-seg'] }], serve: { variant: 'blue' } }],
    });
    expect(flag).toMatchObject({ type: 'string', offVariant: 'blue', fallthrough: { variant: 'blue' } });
    const refused = (await m.segments.delete('mc-seg').catch((e: unknown) => e)) as FlagwireError;
    expect(refused).toMatchObject({ status: 409, code: 'CONFLICT' });
    await m.flags.delete('mc-colour');
    await expect(m.segments.delete('mc-seg')).resolves.toBeUndefined();
  });
});

describe('flags', () => {
  it('creates, reads, lists, updates and deletes', async () => {
    const m = admin();
    expect(await m.flags.create({ key: 'mc-1', type: 'rollout', percentage: 5 })).toEqual({
      key: 'mc-1',
      type: 'rollout',
      enabled: false,
      percentage: 5,
      description: null,
    });
    expect(await m.flags.update('mc-1', { enabled: true })).toMatchObject({ enabled: true });
    expect(await m.flags.get('mc-1')).toMatchObject({ enabled: true, percentage: 5 });
    expect((await m.flags.list()).map((f) => f.key)).toContain('mc-1');
    await expect(m.flags.delete('mc-1')).resolves.toBeUndefined();
  });

  it('rejects non-2xx answers with status, the service code and message, method and URL, never the key', async () => {
    const m = admin();
    const missing = (await m.flags.get('mc-missing').catch((e: unknown) => e)) as FlagwireError;
    expect(missing).toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
      method: 'GET',
      url: `${t.base}/flags/mc-missing`,
    });
    expect(missing.message).toContain('"mc-missing" not found');
    await m.flags.create({ key: 'mc-dup', type: 'boolean' });
    await expect(m.flags.create({ key: 'mc-dup', type: 'boolean' })).rejects.toMatchObject({
      status: 409,
      code: 'CONFLICT',
    });
    await expect(m.flags.create({ key: '-bad', type: 'boolean' })).rejects.toMatchObject({
      status: 400,
      code: 'VALIDATION_ERROR',
    });
    const readOnly = createManagementClient({ baseUrl: t.base, apiKey: KEYS.acmeProdRead });
    const forbidden = (await readOnly.flags.delete('mc-dup').catch((e: unknown) => e)) as FlagwireError;
    expect(forbidden).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect(`${forbidden.message} ${forbidden.url}`).not.toContain(KEYS.acmeProdRead);
  });
});

describe('webhooks', () => {
  it('manages webhooks and their deliveries, test events and rotation', async () => {
    const receiver = await startReceiver();
    try {
      const m = admin();
      const hook = await m.webhooks.create({ url: receiver.url, events: ['flag.updated'] });
      expect(hook.secret).toMatch(/^whsec_/);
      expect(await m.webhooks.update(hook.id, { events: ['flag.updated', 'flag.enabled'] })).toMatchObject({
        events: ['flag.updated', 'flag.enabled'],
      });
      expect((await m.webhooks.list()).map((w) => w.id)).toContain(hook.id);
      await m.webhooks.test(hook.id);
      await receiver.next();
      await expect.poll(async () => (await m.webhooks.deliveries(hook.id))[0]?.status).toBe('succeeded');
      const [delivery] = await m.webhooks.deliveries(hook.id);
      expect(delivery).toMatchObject({ type: 'webhook.test', flag: 'flagwire-test', segment: null });
      expect(delivery!.attemptLog).toEqual([
        expect.objectContaining({
          attempt: 1,
          statusCode: 200,
          error: null,
          request: expect.stringContaining(delivery!.eventId),
        }),
      ]);
      expect(await m.webhooks.deliveries(hook.id, { status: 'failed' })).toEqual([]);
      expect(await m.webhooks.deliveries(hook.id, { status: 'succeeded' })).toHaveLength(1);
      expect(await m.webhooks.deliveries(hook.id, { flag: 'no-such-flag' })).toEqual([]);
      expect(await m.webhooks.deliveries(hook.id, { flag: 'flagwire-test' })).toHaveLength(1);
      expect(await m.webhooks.redeliver(hook.id, delivery!.id)).toMatchObject({ eventId: delivery!.eventId });
      const rotated = await m.webhooks.rotateSecret(hook.id);
      expect(rotated.secret).not.toBe(hook.secret);
      await m.webhooks.delete(hook.id);
      await expect(m.webhooks.get(hook.id)).rejects.toMatchObject({ status: 404 });
    } finally {
      await receiver.close();
    }
  });
});

describe('retries and cancellation', () => {
  it('retries a GET on 503 honouring Retry-After, and never retries a POST', async () => {
    const seen: string[] = [];
    const flaky = (status: number) =>
      (async (input: RequestInfo | URL, init?: RequestInit) => {
        seen.push(init?.method ?? 'GET');
        if (seen.length === 1) return new Response('{}', { status, headers: { 'retry-after': '0' } });
        return fetch(input, init);
      }) as typeof fetch;
    const m = createManagementClient({ baseUrl: t.base, apiKey: KEYS.acmeProdFull, fetch: flaky(503) });
    expect(Array.isArray(await m.flags.list())).toBe(true);
    expect(seen).toEqual(['GET', 'GET']);
    seen.length = 0;
    const post = createManagementClient({ baseUrl: t.base, apiKey: KEYS.acmeProdFull, fetch: flaky(503) });
    await expect(post.flags.create({ key: 'mc-once', type: 'boolean' })).rejects.toMatchObject({
      status: 503,
    });
    expect(seen).toEqual(['POST']);
  });

  it('rejects with ABORTED when the signal fires, and TIMEOUT after timeoutMs', async () => {
    const hanging = ((_: RequestInfo | URL, init?: RequestInit) =>
      new Promise((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
      })) as typeof fetch;
    const m = createManagementClient({
      baseUrl: t.base,
      apiKey: KEYS.acmeProdFull,
      fetch: hanging,
      retries: 0,
    });
    const controller = new AbortController();
    const pending = m.flags.list({ signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'ABORTED' });
    const slow = createManagementClient({
      baseUrl: t.base,
      apiKey: KEYS.acmeProdFull,
      fetch: hanging,
      timeoutMs: 20,
      retries: 0,
    });
    await expect(slow.flags.list()).rejects.toMatchObject({ code: 'TIMEOUT' });
  });

  it('throws at once for a missing key or a bad URL', () => {
    expect(() => createManagementClient({ baseUrl: t.base, apiKey: '' })).toThrow(/apiKey/);
    expect(() => createManagementClient({ baseUrl: 'nope', apiKey: 'k' })).toThrow(/baseUrl/);
  });
});
