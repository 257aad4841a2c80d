/** The webhooks management API (`docs/protocol.md` §3.2). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../helpers/assert.js';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

interface CreatedHook {
  id: string;
  url: string;
  events: string[];
  secret: string;
  active: boolean;
}

async function create(body: unknown = { url: 'https://example.test/hook', events: ['flag.enabled'] }) {
  const res = await t.api('POST', '/webhooks', body);
  expect(res.status).toBe(201);
  return (await res.json()) as CreatedHook;
}

describe('POST /webhooks', () => {
  it('creates an active webhook and shows its secret once, without createdAt', async () => {
    const hook = await create({ url: 'http://127.0.0.1:9999/in', events: ['flag.enabled', 'flag.updated'] });
    expect(Object.keys(hook).sort()).toEqual(['active', 'events', 'id', 'secret', 'url']);
    expect(hook.id).toMatch(/^wh_[A-Za-z0-9]+$/);
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9_-]{32,}$/);
    expect(hook).toMatchObject({
      url: 'http://127.0.0.1:9999/in',
      events: ['flag.enabled', 'flag.updated'],
      active: true,
    });
  });

  it('gives every webhook its own id and secret', async () => {
    const [a, b] = await Promise.all([create(), create()]);
    expect(a!.id).not.toBe(b!.id);
    expect(a!.secret).not.toBe(b!.secret);
  });

  it.each([
    [{ events: ['flag.enabled'] }, 'url'],
    [{ url: 'not a url', events: ['flag.enabled'] }, 'url'],
    [{ url: '/relative', events: ['flag.enabled'] }, 'url'],
    [{ url: 'ftp://example.test/x', events: ['flag.enabled'] }, 'url'],
    [{ url: 'https://u:p@example.test/x', events: ['flag.enabled'] }, 'url'],
    [{ url: 42, events: ['flag.enabled'] }, 'url'],
    [{ url: `https://example.test/${'x'.repeat(2100)}`, events: ['flag.enabled'] }, 'url'],
    [{ url: 'https://example.test/' }, 'events'],
    [{ url: 'https://example.test/', events: [] }, 'events'],
    [{ url: 'https://example.test/', events: 'flag.enabled' }, 'events'],
    [{ url: 'https://example.test/', events: ['flag.created'] }, 'events'],
    [{ url: 'https://example.test/', events: ['flag.enabled', 'flag.enabled'] }, 'events'],
    [{ url: 'https://example.test/', events: ['flag.enabled'], secret: 'mine' }, 'secret'],
  ])('rejects %j naming "%s"', async (body, field) => {
    const message = await expectError(await t.api('POST', '/webhooks', body), 400, 'VALIDATION_ERROR');
    expect(message).toContain(`"${field}"`);
  });
});

describe('GET /webhooks and /webhooks/:id', () => {
  it('lists webhooks with id, url, events, active, createdAt and never the secret', async () => {
    const hook = await create();
    const list = (await (await t.api('GET', '/webhooks')).json()) as Array<Record<string, unknown>>;
    const listed = list.find((w) => w.id === hook.id)!;
    expect(Object.keys(listed).sort()).toEqual(['active', 'createdAt', 'events', 'id', 'url']);
    expect(new Date(listed.createdAt as string).toISOString()).toBe(listed.createdAt);
    expect(JSON.stringify(list)).not.toContain('whsec_');
    const one = await (await t.api('GET', `/webhooks/${hook.id}`)).json();
    expect(one).toEqual(listed);
  });

  it('answers 404 for an unknown webhook and for a webhook of another environment', async () => {
    const hook = await create();
    await expectError(await t.api('GET', '/webhooks/wh_nope'), 404, 'NOT_FOUND');
    await expectError(
      await t.api('GET', `/webhooks/${hook.id}`, undefined, KEYS.otherFull),
      404,
      'NOT_FOUND',
    );
    await expectError(
      await t.api('PATCH', `/webhooks/${hook.id}`, { active: false }, KEYS.otherFull),
      404,
      'NOT_FOUND',
    );
    await expectError(
      await t.api('DELETE', `/webhooks/${hook.id}`, undefined, KEYS.acmeStageFull),
      404,
      'NOT_FOUND',
    );
    const otherList = (await (
      await t.api('GET', '/webhooks', undefined, KEYS.otherFull)
    ).json()) as unknown[];
    expect(otherList).toEqual([]);
  });
});

describe('PATCH /webhooks/:id', () => {
  it('deactivates, reactivates and changes events and url, answering the webhook without its secret', async () => {
    const hook = await create();
    let res = await t.api('PATCH', `/webhooks/${hook.id}`, { active: false });
    expect(res.status).toBe(200);
    let body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['active', 'createdAt', 'events', 'id', 'url']);
    expect(body.active).toBe(false);
    res = await t.api('PATCH', `/webhooks/${hook.id}`, {
      active: true,
      events: ['flag.disabled'],
      url: 'https://example.test/v2',
    });
    body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ active: true, events: ['flag.disabled'], url: 'https://example.test/v2' });
    expect(await (await t.api('GET', `/webhooks/${hook.id}`)).json()).toEqual(body);
  });

  it.each([
    [{ active: 'no' }, 'active'],
    [{ events: [] }, 'events'],
    [{ url: 'mailto:x@example.test' }, 'url'],
    [{ secret: 'whsec_x' }, 'secret'],
    [{ id: 'wh_other' }, 'id'],
  ])('rejects %j naming "%s"', async (patch, field) => {
    const hook = await create();
    const message = await expectError(
      await t.api('PATCH', `/webhooks/${hook.id}`, patch),
      400,
      'VALIDATION_ERROR',
    );
    expect(message).toContain(`"${field}"`);
  });
});

describe('DELETE /webhooks/:id', () => {
  it('removes the webhook with 204 and no body', async () => {
    const hook = await create();
    const res = await t.api('DELETE', `/webhooks/${hook.id}`);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    await expectError(await t.api('GET', `/webhooks/${hook.id}`), 404, 'NOT_FOUND');
    await expectError(await t.api('DELETE', `/webhooks/${hook.id}`), 404, 'NOT_FOUND');
  });
});
