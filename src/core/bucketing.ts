/**
 * Rollout bucketing (`docs/protocol.md` §6; every SDK in every language must agree):
 * `bucket = murmur3_x86_32(utf8(flagKey + ":" + userKey), seed 0) % 100 + 1`, and a user is in
 * a rollout iff the flag is enabled and `bucket <= percentage`. The public helpers over the one
 * bucketing the evaluator uses (`targeting/split.ts`, `pointOf`: the bucket is `f / 1000 + 1`),
 * pure and side-effect free. Golden values: `test/vectors/bucketing.json`.
 */
import { type Murmur3Prefix, murmur3Prefix } from './murmur3.js';
import { pointOf } from './targeting/split.js';

/** The bucket of `userKey` for the hash state of `flagKey + ':'`. */
const bucketAt = (prefix: Murmur3Prefix, userKey: string): number =>
  Math.floor(pointOf(prefix, userKey) / 1000) + 1;

/**
 * The user's bucket for a flag, 1 to 100. Deterministic and the same in every SDK; independent
 * across flags because the flag key is part of the hashed input.
 *
 * @param flagKey - The flag's key.
 * @param userKey - The user's key; the empty string is hashed like any other string (see
 *   {@link isInRollout} for how a user without a key is treated).
 * @returns `murmur3_x86_32(utf8(flagKey + ":" + userKey), 0) % 100 + 1`.
 * @example
 * bucketOf('new-checkout', 'user-42'); // 75
 */
export function bucketOf(flagKey: string, userKey: string): number {
  return bucketAt(murmur3Prefix(`${flagKey}:`), userKey);
}

/**
 * Whether a user falls inside a rollout of `percentage` percent. The caller checks that the
 * flag is enabled first: a disabled flag includes no one.
 *
 * - `percentage >= 100` includes everyone, also a user without a key.
 * - `percentage <= 0` (or `NaN`) includes no one.
 * - Otherwise a user without a key is out, and a user with a key is in iff
 *   `bucketOf(flagKey, userKey) <= percentage`, so raising the percentage never removes anyone.
 *
 * A user has no key when `userKey` is `undefined`, `null`, the empty string, or (from untyped
 * JavaScript) not a string at all. The empty string counts as no key because it is what a blank
 * form field or a missing attribute coerced to a string produces; bucketing every such user into
 * the single bucket of `"flagKey:"` would put them all in or all out together.
 *
 * @param flagKey - The flag's key.
 * @param userKey - The user's key, if any.
 * @param percentage - The rollout percentage, normally an integer 0..100.
 * @param prefix - Optionally `murmur3Prefix(flagKey + ':')`, precomputed, so that only the
 *   user key is hashed; the result is the same.
 * @returns `true` if the user is in the rollout.
 */
export function isInRollout(
  flagKey: string,
  userKey: string | undefined | null,
  percentage: number,
  prefix?: Murmur3Prefix,
): boolean {
  if (percentage >= 100) return true;
  if (!(percentage > 0)) return false;
  if (typeof userKey !== 'string' || userKey === '') return false;
  return bucketAt(prefix ?? murmur3Prefix(`${flagKey}:`), userKey) <= percentage;
}
