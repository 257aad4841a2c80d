/**
 * Variants editable on a live flag (`docs/protocol.md` §12.1, issue 38): `PATCH` with `variants`
 * replaces the map (add, change a value, remove); removing a variant still in use is refused,
 * `409 CONFLICT` naming each user, unless the same patch moves them; values keep the flag's type;
 * the change is in the history, reaches a connected SDK client, and a webhook's `previous`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type FlagwireClient } from '../../../src/index.js';
import { expectError } from '../../helpers/assert.js';
import { startReceiver } from '../../helpers/receiver.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { nextChange } from '../../helpers/wait.js';

let t: TestServer;
const clients: FlagwireClient[] = [];
beforeAll(async () => {
  t = await startTestServer({ config: undefined });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await t.close();
});

const json = async <T = Record<string, unknown>>(res: Response | Promise<Response>) =>
  (await (await res).json()) as T;

async function patchOk(key: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await t.api('PATCH', `/flags/${key}`, body);
  const answer = await json(res);
  expect(res.status, JSON.stringify(answer)).toBe(200);
  return answer;
}

async function history(flag: string) {
  const res = await fetch(`${t.server.url}/admin/api/environments/default/development/history?flag=${flag}`, {
    headers: { authorization: `Bearer ${t.server.adminToken}` },
  });
  return (await res.json()) as Array<{
    action: string;
    changes: Array<{ field: string; from: unknown; to: unknown }>;
  }>;
}

describe('editing the variants of a live flag', () => {
  it('adds a variant and targets it; changes a value, which a connected SDK client sees', async () => {
    const created = await t.api('POST', '/flags', {
      key: 'color',
      type: 'string',
      variants: { red: '#f00', green: '#0f0' },
      fallthrough: { variant: 'green' },
    });
    expect(created.status).toBe(201);
    await patchOk('color', { enabled: true });
    const sdk = createClient({ baseUrl: t.base, apiKey: t.fullKey, logger: false });
    clients.push(sdk);
    await sdk.ready({ timeoutMs: 10_000 });
    expect(sdk.getString('color', 'vip', 'none')).toBe('#0f0');

    let changed = nextChange(sdk, 'color');
    const added = await patchOk('color', {
      variants: { red: '#f00', green: '#0f0', purple: '#808' },
      targets: [{ variant: 'purple', keys: ['vip'] }],
    });
    expect(added.variants).toEqual({ red: '#f00', green: '#0f0', purple: '#808' });
    await changed;
    expect(sdk.getString('color', 'vip', 'none')).toBe('#808');
    expect(sdk.getString('color', 'someone', 'none')).toBe('#0f0');

    changed = nextChange(sdk, 'color');
    await patchOk('color', { variants: { red: '#f00', green: '#0f0', purple: '#a0a' } });
    await changed;
    expect(sdk.getString('color', 'vip', 'none')).toBe('#a0a');

    const [entry] = await history('color');
    expect(entry).toMatchObject({
      action: 'updated',
      changes: [
        {
          field: 'variants',
          from: { red: '#f00', green: '#0f0', purple: '#808' },
          to: { red: '#f00', green: '#0f0', purple: '#a0a' },
        },
      ],
    });
  });

  it('removes a variant nothing uses; the same map again commits nothing', async () => {
    await t.api('POST', '/flags', { key: 'size', type: 'number', variants: { s: 1, m: 2, l: 3 } });
    const before = await json(t.api('GET', '/flags/size'));
    const after = await patchOk('size', { variants: { s: 1, m: 2 } });
    expect(after.variants).toEqual({ s: 1, m: 2 });
    expect((await history('size'))[0]!.changes).toEqual([
      { field: 'variants', from: { s: 1, m: 2, l: 3 }, to: { s: 1, m: 2 } },
    ]);
    expect(before.offVariant).toBe('s');
    const entries = (await history('size')).length;
    await patchOk('size', { variants: { s: 1, m: 2 } });
    expect((await history('size')).length).toBe(entries);
  });

  it('refuses removing a used variant, 409 naming every user; moving them in the same patch is accepted', async () => {
    await t.api('POST', '/flags', {
      key: 'theme',
      type: 'string',
      variants: { light: 'l', dark: 'd', purple: 'p' },
      offVariant: 'purple',
      fallthrough: { variant: 'purple' },
      targets: [{ variant: 'purple', keys: ['u1'] }],
      rules: [
        { id: 'r_first', clauses: [], serve: { variant: 'light' } },
        { id: 'r_abc', clauses: [], serve: { variant: 'purple' } },
        {
          id: 'r_def',
          clauses: [],
          serve: {
            split: [
              { variant: 'dark', weight: 50_000 },
              { variant: 'purple', weight: 50_000 },
            ],
          },
        },
      ],
    });
    await t.api('POST', '/flags', {
      key: 'x',
      type: 'boolean',
      prerequisites: [{ flag: 'theme', variants: ['purple'] }],
    });
    const message = await expectError(
      await t.api('PATCH', '/flags/theme', { variants: { light: 'l', dark: 'd' } }),
      409,
      'CONFLICT',
    );
    expect(message).toContain(
      'variant "purple" is used by: the off variant, the fallthrough, rule "r_abc" (rule 2), the split of rule "r_def" (rule 3), the targets, the prerequisite of flag "x"',
    );
    // Nothing was written.
    expect((await json(t.api('GET', '/flags/theme'))).variants).toEqual({
      light: 'l',
      dark: 'd',
      purple: 'p',
    });

    // Moving the flag's own users is not enough while another flag's prerequisite names it.
    const moved = {
      variants: { light: 'l', dark: 'd' },
      offVariant: 'dark',
      fallthrough: { variant: 'light' },
      targets: [{ variant: 'dark', keys: ['u1'] }],
      rules: [
        { id: 'r_first', clauses: [], serve: { variant: 'light' } },
        { id: 'r_abc', clauses: [], serve: { variant: 'dark' } },
        { id: 'r_def', clauses: [], serve: { variant: 'dark' } },
      ],
    };
    expect(await expectError(await t.api('PATCH', '/flags/theme', moved), 409, 'CONFLICT')).toContain(
      'variant "purple" is used by: the prerequisite of flag "x"',
    );
    await patchOk('x', { prerequisites: [{ flag: 'theme', variants: ['dark'] }] });
    const after = await patchOk('theme', moved);
    expect(after).toMatchObject({ variants: { light: 'l', dark: 'd' }, offVariant: 'dark' });
  });

  it('answers 400 naming the path for a variant the patch itself names but removes', async () => {
    await t.api('POST', '/flags', { key: 'mood', type: 'string', variants: { a: 'a', b: 'b' } });
    expect(
      await expectError(
        await t.api('PATCH', '/flags/mood', { variants: { a: 'a' }, fallthrough: { variant: 'b' } }),
        400,
        'VALIDATION_ERROR',
      ),
    ).toContain('fallthrough.variant');
  });

  it('keeps a default off variant and fallthrough where they were when the first variant changes', async () => {
    await t.api('POST', '/flags', { key: 'order', type: 'string', variants: { a: 'A', b: 'B' } });
    // Removing the first variant: it is the default off variant and fallthrough.
    expect(
      await expectError(await t.api('PATCH', '/flags/order', { variants: { b: 'B' } }), 409, 'CONFLICT'),
    ).toContain('variant "a" is used by: the off variant, the fallthrough');
    // A new order keeps them on `a`.
    const reordered = await patchOk('order', { variants: { b: 'B', a: 'A' } });
    expect(reordered).toMatchObject({ offVariant: 'a', fallthrough: { variant: 'a' } });
  });

  it('refuses values of another type, and variants on boolean and rollout flags', async () => {
    await t.api('POST', '/flags', { key: 'count', type: 'number', variants: { one: 1 } });
    expect(
      await expectError(
        await t.api('PATCH', '/flags/count', { variants: { one: 'x' } }),
        400,
        'VALIDATION_ERROR',
      ),
    ).toContain('variants.one: must be a number');
    await t.api('POST', '/flags', { key: 'cfg', type: 'json', variants: { a: { x: 1 } } });
    expect(
      await expectError(
        await t.api('PATCH', '/flags/cfg', { variants: { a: [1] } }),
        400,
        'VALIDATION_ERROR',
      ),
    ).toContain('variants.a: must be a JSON object');
    expect(
      await expectError(await t.api('PATCH', '/flags/count', { variants: {} }), 400, 'VALIDATION_ERROR'),
    ).toContain('variants');
    await t.api('POST', '/flags', { key: 'gate', type: 'boolean' });
    expect(
      await expectError(
        await t.api('PATCH', '/flags/gate', { variants: { on: true, off: false } }),
        400,
        'VALIDATION_ERROR',
      ),
    ).toContain('"variants" is not allowed on boolean flags');
  });

  it("sends the old variants in a webhook's previous", async () => {
    const receiver = await startReceiver();
    try {
      await t.api('POST', '/flags', { key: 'hooked', type: 'string', variants: { a: 'A' } });
      await t.api('POST', '/webhooks', { url: receiver.url, events: ['flag.updated'] });
      await patchOk('hooked', { variants: { a: 'A', b: 'B' } });
      const updated = await receiver.next();
      expect(updated.json.type).toBe('flag.updated');
      expect(updated.json.data).toMatchObject({
        action: 'updated',
        flag: { key: 'hooked', variants: { a: 'A', b: 'B' } },
        previous: { variants: { a: 'A' } },
      });
    } finally {
      await receiver.close();
    }
  });
});
