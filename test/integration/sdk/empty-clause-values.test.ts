/**
 * A clause without values (`docs/protocol.md` §12.2): refused when saved for every operator but
 * `exists` (`server-targeting.test.ts`), while a flag stored before that rule keeps loading, and
 * the SDK and OFREP keep evaluating it as before: an empty list never holds, negated it always
 * does. Changing anything else of the flag works; saving its rules as they are is refused.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createClient, type FlagwireClient } from '../../../src/index.js';
import { expectError } from '../../helpers/assert.js';
import { rewriteStore } from '../../helpers/legacy-store.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const servers: TestServer[] = [];
const clients: FlagwireClient[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all(servers.map((s) => s.close()));
});

/** The flag's rules as stored: no save can make them any more. */
const RULES = [
  { id: 'older', clauses: [{ attribute: 'age', op: 'greaterThan', values: [] }], serve: { variant: 'on' } },
  {
    id: 'nz',
    clauses: [
      { attribute: 'country', op: 'in', values: [], negate: true },
      { attribute: 'country', op: 'in', values: ['NZ'] },
    ],
    serve: { variant: 'on' },
  },
];

/**
 * A server on a data directory holding the flag: created with stand-in values, whose text is
 * then replaced, in the journal and the snapshot alike, by empty lists.
 */
async function serverWithLegacyFlag(): Promise<TestServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'flagwire-empty-values-'));
  const first = await startTestServer({ config: undefined, dataDir });
  const standIn = structuredClone(RULES);
  standIn[0]!.clauses[0]!.values = [987654321] as never;
  standIn[1]!.clauses[0]!.values = ['STAND_IN_EMPTY'] as never;
  const made = await first.api('POST', '/flags', {
    key: 'legacy',
    type: 'boolean',
    fallthrough: { variant: 'off' },
    rules: standIn,
  });
  expect(made.status).toBe(201);
  expect((await first.api('PATCH', '/flags/legacy', { enabled: true })).status).toBe(200);
  await first.close();
  expect(
    rewriteStore(dataDir, [
      ['[987654321]', '[]'],
      ['["STAND_IN_EMPTY"]', '[]'],
    ]),
  ).toBeGreaterThan(0);
  const t = await startTestServer({ config: undefined, dataDir });
  servers.push(t);
  return t;
}

const ofrep = async (t: TestServer, context: Record<string, unknown>) =>
  (await fetch(`${t.server.url}/ofrep/v1/evaluate/flags/legacy`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.fullKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ context }),
  }).then((res) => res.json())) as Record<string, unknown>;

describe('a flag stored with a clause without values, before they were refused', () => {
  it('loads and evaluates as before in the SDK and OFREP; other changes save, its rules do not', async () => {
    const t = await serverWithLegacyFlag();
    const stored = (await (await t.api('GET', '/flags/legacy')).json()) as { rules: unknown };
    expect(stored.rules).toEqual(RULES);
    const sdk = createClient({ baseUrl: t.base, apiKey: t.fullKey, stream: false, logger: false });
    clients.push(sdk);
    await sdk.ready({ timeoutMs: 10_000 });
    // "age more than" nothing never holds; "country not in" nothing always does.
    const nz = { key: 'u', age: 90, country: 'NZ' };
    const au = { key: 'v', age: 90, country: 'AU' };
    expect(sdk.getDetail('legacy', nz, false)).toMatchObject({
      value: true,
      reason: 'RULE_MATCH',
      ruleIndex: 1,
    });
    expect(sdk.getDetail('legacy', au, false)).toMatchObject({ value: false, reason: 'FALLTHROUGH' });
    expect(await ofrep(t, { targetingKey: 'u', age: 90, country: 'NZ' })).toMatchObject({
      value: true,
      reason: 'TARGETING_MATCH',
      metadata: expect.objectContaining({ ruleIndex: 1 }),
    });
    expect(await ofrep(t, { targetingKey: 'v', age: 90, country: 'AU' })).toMatchObject({ value: false });
    // Turning it off and on, or describing it, leaves the rules alone and saves.
    expect((await t.api('PATCH', '/flags/legacy', { enabled: false, description: 'old' })).status).toBe(200);
    // Its rules sent back as they are stored: a new write, refused naming the first empty list.
    const refused = await expectError(
      await t.api('PATCH', '/flags/legacy', { rules: RULES }),
      400,
      'VALIDATION_ERROR',
    );
    expect(refused).toContain('rules[0].clauses[0].values: greaterThan takes at least one value');
  });
});
