/**
 * Splits through the SDK's public interface (CONTRACT "Splits", `docs/protocol.md` §12.4): every
 * user lands in the slice the contract's formula names (checked against the `murmurhash` package,
 * an independent murmur3), the shares over 100,000 users are within four standard errors of the
 * weights, and a `rollout` flag given rules keeps the decision of every user no rule matches.
 */
import murmurhash from 'murmurhash';
import { expect, it } from 'vitest';
import type { Flag } from '../../../src/index.js';
import { createTestClient } from '../../../src/testing/index.js';

const WEIGHTS = { a: 20_000, b: 30_500, c: 49_500 };
const split = Object.entries(WEIGHTS).map(([variant, weight]) => ({ variant, weight }));

const flag = (fields: Record<string, unknown>): Flag =>
  ({
    key: 'colour',
    type: 'string',
    enabled: true,
    description: null,
    variants: { a: 'A', b: 'B', c: 'C' },
    offVariant: 'a',
    fallthrough: { split },
    ...fields,
  }) as Flag;

/** The contract's formula, computed independently: the slice whose running sum passes `f`. */
function sliceOf(salt: string, value: string): string {
  const r = murmurhash.v3(`${salt}:${value}`, 0) % 100_000;
  const f = (r % 100) * 1000 + Math.floor(r / 100);
  let sum = 0;
  for (const { variant, weight } of split) {
    sum += weight;
    if (sum > f) return variant;
  }
  throw new Error('weights do not sum to 100000');
}

it('serves every user the slice the formula names, by key, by salt and by bucketBy', () => {
  const client = createTestClient({
    flags: [
      flag({}),
      flag({ key: 'salted', salt: 'spring-sale' }),
      flag({ key: 'by-org', fallthrough: { split, bucketBy: ['org', 'key'], salt: 'orgs' } }),
    ],
  });
  for (let i = 0; i < 20_000; i++) {
    const key = `user-${i}`;
    expect(client.getString('colour', key, '-')).toBe(sliceOf('colour', key).toUpperCase());
    expect(client.getString('salted', key, '-')).toBe(sliceOf('spring-sale', key).toUpperCase());
    const org = i % 3 === 0 ? undefined : `org-${i % 97}`;
    expect(client.getString('by-org', { key, org }, '-')).toBe(sliceOf('orgs', org ?? key).toUpperCase());
  }
});

it("gives each slice its weight's share of 100,000 users, within four standard errors", () => {
  const client = createTestClient({ flags: [flag({})] });
  const n = 100_000;
  const counts: Record<string, number> = { A: 0, B: 0, C: 0 };
  for (let i = 0; i < n; i++) counts[client.getString('colour', `member-${i}`, '-')]! += 1;
  for (const [variant, weight] of Object.entries(WEIGHTS)) {
    const p = weight / 100_000;
    const se = Math.sqrt((p * (1 - p)) / n);
    expect(Math.abs(counts[variant.toUpperCase()]! / n - p), variant).toBeLessThanOrEqual(4 * se);
  }
});

it('keeps every decision of a rollout that gains rules for the users no rule matches', () => {
  const base = { key: 'launch', type: 'rollout', enabled: true, percentage: 37, description: null } as const;
  const plain = createTestClient({ flags: [base] });
  const ruled = createTestClient({
    flags: [
      {
        ...base,
        targets: [{ variant: 'on', keys: ['vip-1'] }],
        rules: [{ clauses: [{ attribute: 'country', op: 'in', values: ['NZ'] }], serve: { variant: 'off' } }],
      } as Flag,
    ],
  });
  let matched = 0;
  for (let i = 0; i < 20_000; i++) {
    const user = { key: `user-${i}`, country: i % 5 === 0 ? 'NZ' : 'AU' };
    if (user.country === 'NZ') {
      matched += 1;
      expect(ruled.isEnabled('launch', user, true)).toBe(false);
    } else {
      expect(ruled.isEnabled('launch', user)).toBe(plain.isEnabled('launch', user));
      expect(ruled.getDetail('launch', user, false).reason).toBe('FALLTHROUGH');
    }
  }
  expect(matched).toBe(4000);
  expect(ruled.getDetail('launch', { key: 'vip-1', country: 'NZ' }, false)).toMatchObject({
    value: true,
    reason: 'TARGET_MATCH',
  });
});
