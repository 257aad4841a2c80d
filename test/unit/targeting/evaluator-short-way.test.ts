/**
 * One evaluator (`docs/protocol.md` §12.4): a plain flag's short way (`quickVariant`)
 * and a flag's compiled answer (`CompiledFlag.answer`: disabled, or nothing can vary) are the
 * same steps as the whole way, not a second engine. For random flags (boolean, rollout, string;
 * enabled or not; any whole percentage; fixed or split fallthroughs) and random users (keys
 * that are strings, empty, numbers, absent), the short way, the compiled answer and the whole
 * way give the same variant, reason and bucket, and `bucketOf` agrees with the bucket.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bucketOf } from '../../../src/core/bucketing.js';
import { type CompiledFlag, compileFlag, type FlagSource } from '../../../src/core/targeting/compile.js';
import { evaluateVariant, lastOutcome, type TargetingContext } from '../../../src/core/targeting/evaluate.js';
import type { User } from '../../../src/core/types.js';
import { check } from '../../helpers/property-seed.js';

const NONE: TargetingContext = { flag: () => undefined, segment: () => undefined };

const flagArb: fc.Arbitrary<FlagSource> = fc.oneof(
  fc.record({
    key: fc.string({ minLength: 1, maxLength: 12 }),
    type: fc.constant('boolean' as const),
    enabled: fc.boolean(),
  }),
  fc.record({
    key: fc.string({ minLength: 1, maxLength: 12 }),
    type: fc.constant('rollout' as const),
    enabled: fc.boolean(),
    percentage: fc.integer({ min: 0, max: 100 }),
  }),
  fc.record({
    key: fc.string({ minLength: 1, maxLength: 12 }),
    type: fc.constant('string' as const),
    enabled: fc.boolean(),
    variants: fc.constant({ a: 'A', b: 'B' }),
    fallthrough: fc.oneof(
      fc.constant(undefined),
      fc.constant({ variant: 'b' }),
      fc.constant({
        split: [
          { variant: 'a', weight: 40_000 },
          { variant: 'b', weight: 60_000 },
        ],
      }),
    ),
  }),
) as fc.Arbitrary<FlagSource>;

const userArb = fc.oneof(
  fc.constant(undefined),
  fc.record({ key: fc.oneof(fc.string(), fc.constant(''), fc.integer(), fc.constant(undefined)) }),
  fc.string(),
) as fc.Arbitrary<User | undefined>;

/** The same flag made to take the whole way: no short way, no compiled answer. */
const wholeWay = (flag: CompiledFlag): CompiledFlag => ({ ...flag, quick: false, answer: -1 });

const answerOf = (flag: CompiledFlag, user: User | undefined) => {
  const index = evaluateVariant(flag, user, NONE);
  return { index, reason: lastOutcome.reason, bucket: lastOutcome.bucket };
};

describe('the short way is the whole way', () => {
  it('gives the same variant, reason and bucket for every flag and user', () => {
    let short = 0;
    let answered = 0;
    check(
      fc.property(flagArb, fc.array(userArb, { minLength: 50, maxLength: 50 }), (source, users) => {
        const flag = compileFlag(source);
        if (flag.quick) short++;
        if (flag.answer >= 0) answered++;
        for (const user of users) {
          if (flag.answer >= 0)
            expect(answerOf(flag, user)).toEqual({
              index: flag.answer,
              reason: flag.answerReason,
              bucket: 0,
            });
          const got = answerOf(flag, user);
          expect(got).toEqual(answerOf(wholeWay(flag), user));
          const key = typeof user === 'string' ? user : user?.key;
          if (got.bucket > 0) expect(got.bucket).toBe(bucketOf(source.key, key as string));
        }
      }),
      1000,
    );
    // Both ways were taken, and compiled answers were given.
    expect(short).toBeGreaterThan(100);
    expect(answered).toBeGreaterThan(100);
  });
});
