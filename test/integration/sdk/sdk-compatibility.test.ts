/**
 * The SDK as it was built before targeting (`test/fixtures/sdk-before-targeting`: commit 331e008's
 * `dist/index.node.js`, which sends no `X-Flagwire-Capabilities`) against today's server
 * (`docs/protocol.md` §12.6): it stays ready, evaluates today's flags as before, gets its default
 * for every flag that uses targeting, and a segment change costs it no snapshot reload.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bucketOf } from '../../../src/index.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

/** The old SDK's client, as much of it as this test uses. */
interface OldClient {
  ready(options?: { timeoutMs?: number }): Promise<void>;
  isEnabled(key: string, user?: unknown, defaultValue?: boolean): boolean;
  isEnabledDetail(key: string, user?: unknown, defaultValue?: boolean): { value: boolean; reason: string };
  allFlags(): Record<string, unknown>;
  on(event: string, listener: (change: { key: string }) => void): () => void;
  status(): { state: string; revision: number | undefined };
  close(): Promise<void>;
}
type CreateOldClient = (options: Record<string, unknown>) => OldClient;

let t: TestServer;
let createOldClient: CreateOldClient;
beforeAll(async () => {
  const fixture = new URL('../../fixtures/sdk-before-targeting/index.js', import.meta.url).href;
  ({ createClient: createOldClient } = (await import(fixture)) as { createClient: CreateOldClient });
  t = await startTestServer({ config: undefined });
});
afterAll(() => t.close());

it("today's built SDK stays ready, evaluates plain flags as before, defaults on targeting flags, reloads nothing for a segment", async () => {
  const { api } = t;
  const made = [
    await api('POST', '/flags', { key: 'plain-on', type: 'boolean' }),
    await api('POST', '/flags', { key: 'plain-roll', type: 'rollout', percentage: 30 }),
    await api('POST', '/segments', { key: 'beta', included: ['u1'] }),
    await api('POST', '/flags', {
      key: 'ruled',
      type: 'boolean',
      rules: [{ clauses: [{ op: 'inSegment', values: ['beta'] }], serve: { variant: 'on' } }],
    }),
    await api('POST', '/flags', { key: 'colour', type: 'string', variants: { red: 'red', blue: 'blue' } }),
  ];
  for (const res of made) expect(res.status, await res.clone().text()).toBe(201);
  for (const key of ['plain-on', 'plain-roll', 'ruled', 'colour'])
    expect((await api('PATCH', `/flags/${key}`, { enabled: true })).status).toBe(200);

  const requested: string[] = [];
  const counting: typeof fetch = (input, init) => {
    requested.push(new URL(input instanceof Request ? input.url : String(input)).pathname);
    return fetch(input, init);
  };
  const client = createOldClient({ baseUrl: t.base, apiKey: t.readKey, logger: false, fetch: counting });
  try {
    await client.ready({ timeoutMs: 10_000 });
    expect(Object.keys(client.allFlags()).sort()).toEqual(['plain-on', 'plain-roll']);
    expect(client.isEnabled('plain-on', 'u')).toBe(true);
    for (let i = 0; i < 100; i++)
      expect(client.isEnabled('plain-roll', `u${i}`)).toBe(bucketOf('plain-roll', `u${i}`) <= 30);
    expect(client.isEnabled('ruled', 'u1', true)).toBe(true);
    expect(client.isEnabled('ruled', 'u1', false)).toBe(false);
    expect(client.isEnabledDetail('colour', 'u').reason).toBe('FLAG_NOT_FOUND');

    // A segment change, then a plain flag's: the client applies the second without a reload.
    const changed: string[] = [];
    client.on('change', (change) => changed.push(change.key));
    const seen = new Promise<void>((resolve) => client.on('change:plain-on', () => resolve()));
    expect((await api('PATCH', '/segments/beta', { included: ['u1', 'u2'] })).status).toBe(200);
    expect((await api('PATCH', '/flags/plain-on', { enabled: false })).status).toBe(200);
    await seen;
    expect(client.isEnabled('plain-on', 'u')).toBe(false);
    expect(changed).toEqual(['plain-on']);
    expect(requested.filter((path) => path.endsWith('/sdk/flags'))).toHaveLength(1);
    expect(client.status().state).toBe('connected');

    // A plain flag that gains targeting leaves it (as a deletion), and comes back when it loses it.
    const gone = new Promise<void>((resolve) => client.on('change:plain-roll', () => resolve()));
    const rules = [{ clauses: [{ attribute: 'plan', op: 'in', values: ['pro'] }], serve: { variant: 'on' } }];
    expect((await api('PATCH', '/flags/plain-roll', { rules })).status).toBe(200);
    await gone;
    expect(client.isEnabled('plain-roll', 'u', true)).toBe(true);
    const back = new Promise<void>((resolve) => client.on('change:plain-roll', () => resolve()));
    expect((await api('PATCH', '/flags/plain-roll', { rules: null })).status).toBe(200);
    await back;
    for (let i = 0; i < 100; i++)
      expect(client.isEnabled('plain-roll', `u${i}`)).toBe(bucketOf('plain-roll', `u${i}`) <= 30);
    expect(requested.filter((path) => path.endsWith('/sdk/flags'))).toHaveLength(1);
  } finally {
    await client.close();
  }
});
