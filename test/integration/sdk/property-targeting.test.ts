/**
 * Property (`docs/protocol.md` §12.4, §12.7): for generated flags, segments and users, the SDK's
 * local answer (a client that loaded them from the server with the targeting capability), OFREP's
 * remote answer and the test kit's are the same value, variant and reason (OFREP's in OpenFeature
 * terms). Generated flags are valid, so the server saves every one.
 */
import fc from 'fast-check';
import { afterAll, expect, it } from 'vitest';
import { createClient, type FlagDetail, type FlagwireClient, type JsonValue } from '../../../src/index.js';
import { createTestClient } from '../../../src/testing/index.js';
import { params } from '../../helpers/property-seed.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const COUNTRIES = ['NZ', 'AU', 'US', 'nz'];
const VERSIONS = ['1.0.0', '1.2.0', '2.0.0-beta.1', '2.0.0', '10.1'];

const userArb = fc.record(
  {
    key: fc.constantFrom('u1', 'u2', 'u3', 'ann', 'bob', 'zed', `k${'x'.repeat(3)}`),
    country: fc.constantFrom(...COUNTRIES),
    age: fc.integer({ min: 0, max: 90 }),
    version: fc.constantFrom(...VERSIONS),
    email: fc.constantFrom('a@example.com', 'b@test.org', 'C@EXAMPLE.COM'),
    tags: fc.array(fc.constantFrom('beta', 'vip', 'new'), { maxLength: 2 }),
  },
  { requiredKeys: [] },
);

/** A clause on the generated attributes (or the segments `s0`, `s1`). */
const clauseArb = (segments: boolean) =>
  fc
    .oneof(
      // At least one value: a clause without values is refused when saved (§12.2).
      fc.record({
        attribute: fc.constant('country'),
        op: fc.constant('in'),
        values: fc.subarray(COUNTRIES, { minLength: 1 }),
      }),
      fc.record({
        attribute: fc.constant('tags'),
        op: fc.constant('in'),
        values: fc.subarray(['beta', 'vip'], { minLength: 1 }),
      }),
      fc.record({
        attribute: fc.constant('email'),
        op: fc.constant('endsWith'),
        values: fc.constant(['example.com']),
      }),
      fc.record({
        attribute: fc.constant('email'),
        op: fc.constant('matches'),
        values: fc.constant(['^[a-c]@']),
      }),
      fc.record({
        attribute: fc.constant('age'),
        op: fc.constantFrom('lessThan', 'greaterThanOrEqual'),
        values: fc.tuple(fc.integer({ min: 0, max: 90 })).map((v) => [...v]),
      }),
      fc.record({
        attribute: fc.constant('version'),
        op: fc.constantFrom('semVerLessThan', 'semVerGreaterThanOrEqual'),
        values: fc.constantFrom(['1.2.0'], ['2.0.0']),
      }),
      fc.record({
        attribute: fc.constantFrom('age', 'plan'),
        op: fc.constant('exists'),
        values: fc.constant([]),
      }),
      ...(segments
        ? [fc.record({ op: fc.constant('inSegment'), values: fc.subarray(['s0', 's1'], { minLength: 1 }) })]
        : []),
    )
    .chain((clause) =>
      fc
        .record({ negate: fc.boolean(), caseInsensitive: fc.boolean() })
        .map((extra) => ({ ...clause, ...extra })),
    );

/** A split over `names` (and a `null` slice in rules), weights summing to 100000. */
const splitArb = (names: string[], rule: boolean) => {
  const slots: Array<string | null> = rule ? [...names, null] : names;
  return fc
    .array(fc.integer({ min: 0, max: 100 }), { minLength: slots.length, maxLength: slots.length })
    .map((raw) => {
      const total = raw.reduce((a, b) => a + b, 0);
      const weights = raw.map((w) => (total === 0 ? 0 : Math.floor((w * 100000) / total)));
      weights[0]! += 100000 - weights.reduce((a, b) => a + b, 0);
      return { split: slots.map((variant, i) => ({ variant, weight: weights[i]! })) };
    });
};

const serveArb = (names: string[], rule: boolean) =>
  fc.oneof(
    fc.constantFrom(...names).map((variant) => ({ variant })),
    splitArb(names, rule),
  );

const valueFlagArb = (key: string) =>
  fc.record({
    key: fc.constant(key),
    type: fc.constant('string' as const),
    enabled: fc.boolean(),
    variants: fc.constant({ a: 'A', b: 'B', c: 'C' }),
    offVariant: fc.constantFrom('a', 'b', 'c'),
    fallthrough: serveArb(['a', 'b', 'c'], false),
    targets: fc.constantFrom([], [{ variant: 'c', keys: ['zed'] }]),
    rules: fc.array(
      fc.record({
        clauses: fc.array(clauseArb(true), { maxLength: 3 }),
        serve: serveArb(['a', 'b', 'c'], true),
      }),
      { maxLength: 3 },
    ),
  });

const booleanFlagArb = (key: string) =>
  fc.record({
    key: fc.constant(key),
    type: fc.constant('boolean' as const),
    enabled: fc.boolean(),
    rules: fc.array(
      fc.record({
        clauses: fc.array(clauseArb(true), { maxLength: 2 }),
        serve: serveArb(['on', 'off'], true),
      }),
      { maxLength: 2 },
    ),
    prerequisites: fc.constantFrom([], [{ flag: 'f0', variants: ['a', 'b'] }]),
  });

const rolloutFlagArb = (key: string) =>
  fc.record({
    key: fc.constant(key),
    type: fc.constant('rollout' as const),
    enabled: fc.boolean(),
    percentage: fc.integer({ min: 0, max: 100 }),
    rules: fc.array(
      fc.record({
        clauses: fc.array(clauseArb(false), { maxLength: 2 }),
        serve: serveArb(['on', 'off'], true),
      }),
      {
        maxLength: 1,
      },
    ),
  });

const segmentArb = (key: string) =>
  fc.record({
    key: fc.constant(key),
    included: fc.subarray(['u1', 'ann']),
    excluded: fc.subarray(['u2', 'bob']),
    rules: fc.array(fc.record({ clauses: fc.array(clauseArb(false), { maxLength: 2 }) }), { maxLength: 2 }),
  });

const worldArb = fc.record({
  segments: fc.tuple(segmentArb('s0'), segmentArb('s1')),
  // Rules with ids, so the test kit names them as the server does.
  flags: fc
    .tuple(valueFlagArb('f0'), valueFlagArb('f1'), booleanFlagArb('g0'), rolloutFlagArb('r0'))
    .map((flags) =>
      flags.map((flag) => ({ ...flag, rules: flag.rules.map((rule, i) => ({ id: `rule-${i}`, ...rule })) })),
    ),
  users: fc.array(userArb, { minLength: 10, maxLength: 10 }),
});

const servers: TestServer[] = [];
const clients: FlagwireClient[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all(servers.map((s) => s.close()));
});

/**
 * OFREP's answer in the SDK's terms that all three share: value, variant, reason (OFREP has no
 * `DEFAULT`: a fixed fallthrough after targeting is `TARGETING_MATCH`, marked, §11.2).
 */
function viaOpenFeature(detail: FlagDetail<JsonValue>): Record<string, unknown> {
  if (detail.reason === 'MISSING_USER_KEY') return { errorCode: 'TARGETING_KEY_MISSING' };
  if (detail.static) return { value: detail.value, variant: detail.variant, reason: 'STATIC' };
  const reason = {
    TARGET_MATCH: 'TARGETING_MATCH',
    RULE_MATCH: 'TARGETING_MATCH',
    FALLTHROUGH: detail.split ? 'SPLIT' : 'TARGETING_MATCH',
    OFF: 'DISABLED',
    PREREQUISITE_FAILED: 'DISABLED',
    ON: 'STATIC',
    ROLLOUT_IN: 'SPLIT',
    ROLLOUT_OUT: 'SPLIT',
  }[detail.reason as string];
  if (detail.reason === 'FALLTHROUGH' && !detail.split)
    return { value: detail.value, variant: detail.variant, reason, metadata: { fallthrough: true } };
  return { value: detail.value, variant: detail.variant, reason };
}

it('the SDK, OFREP and the test kit answer every generated user alike', async () => {
  await fc.assert(
    fc.asyncProperty(worldArb, async ({ segments, flags, users }) => {
      const t = await startTestServer({ config: undefined, memory: true });
      servers.push(t);
      try {
        for (const segment of segments) expect((await t.api('POST', '/segments', segment)).status).toBe(201);
        for (const { enabled, ...flag } of flags) {
          const res = await t.api('POST', '/flags', flag);
          expect(res.status, await res.clone().text()).toBe(201);
          expect((await t.api('PATCH', `/flags/${flag.key}`, { enabled })).status).toBe(200);
        }
        const sdk = createClient({ baseUrl: t.base, apiKey: t.fullKey, stream: false, logger: false });
        clients.push(sdk);
        await sdk.ready({ timeoutMs: 10_000 });
        const kit = createTestClient({
          flags: flags.map((f) => ({ ...f, description: null }) as never),
          segments: segments as never,
        });
        for (const user of users)
          for (const flag of flags) {
            const fallback: JsonValue = flag.type === 'string' ? '-' : false;
            const local = sdk.getDetail(flag.key, user, fallback);
            const { version: _v, ...kitted } = kit.getDetail(flag.key, user, fallback);
            const { version: _l, ...localWithoutVersion } = local;
            expect(kitted, `${flag.key} for ${JSON.stringify(user)}`).toEqual(localWithoutVersion);
            const { key, ...attributes } = user;
            const res = await fetch(`${t.server.url}/ofrep/v1/evaluate/flags/${flag.key}`, {
              method: 'POST',
              headers: { authorization: `Bearer ${t.fullKey}`, 'content-type': 'application/json' },
              body: JSON.stringify({
                context: key === undefined ? attributes : { ...attributes, targetingKey: key },
              }),
            });
            const remote = (await res.json()) as Record<string, unknown>;
            expect(remote, `${flag.key} for ${JSON.stringify(user)}`).toMatchObject(viaOpenFeature(local));
          }
      } finally {
        await t.close();
      }
    }),
    params(40),
  );
});
