/**
 * Local evaluation (`docs/protocol.md` §6), the one implementation: the SDK client's
 * `isEnabled`/`isEnabledDetail` (so `flagwire/testing` and both OpenFeature providers, which
 * evaluate through a client) and the reference server's OFREP endpoints. `isEnabled` is the hot
 * path: one `Map` lookup, and for a rollout one murmur3 over the user key (allocation-free for
 * ASCII keys).
 */
import { bucketAfter } from './bucketing.js';
import type { Murmur3Prefix } from './murmur3.js';
import { attributeOf } from './targeting/attributes.js';
import type { EvaluationDetail, SdkFlag, User } from './types.js';

/**
 * A rollout's decision for a user (`docs/protocol.md` §6, `isInRollout`): the user's bucket
 * (1 to 100) when the bucket decides; 0 when the percentage alone does (at 100 % or more
 * everyone is in, at 0 or less, or NaN, no one); -1 when the user has no key (out). `prefix` is
 * the flag's `murmur3Prefix(flagKey + ':')`.
 */
function bucketFor(percentage: number, user: User | undefined, prefix: Murmur3Prefix | undefined): number {
  if (!(percentage > 0 && percentage < 100)) return 0;
  // An own `key` only (`docs/protocol.md` §12.2), as targeting reads it.
  const key = attributeOf(user, 'key');
  return typeof key === 'string' && key !== '' ? bucketAfter(prefix!, key) : -1;
}

/** The boolean answer; `flag` undefined gives `defaultValue`. `prefix`: see `bucketFor`. */
export function evaluateFlag(
  flag: SdkFlag | undefined,
  user: User | undefined,
  defaultValue: boolean,
  prefix: Murmur3Prefix | undefined,
): boolean {
  if (flag === undefined) return defaultValue;
  if (!flag.enabled) return false;
  if (flag.type !== 'rollout') return true;
  const percentage = flag.percentage ?? 0;
  const bucket = bucketFor(percentage, user, prefix);
  return bucket ? bucket > 0 && bucket <= percentage : percentage >= 100;
}

/**
 * The answer with its reason (`flag` undefined: `FLAG_NOT_FOUND`, or `NOT_READY` when nothing is
 * loaded). `prefix`: see `bucketFor`.
 */
export function evaluateDetail(
  flag: SdkFlag | undefined,
  user: User | undefined,
  defaultValue: boolean,
  loaded: boolean,
  prefix: Murmur3Prefix | undefined,
): EvaluationDetail {
  if (flag === undefined) return { value: defaultValue, reason: loaded ? 'FLAG_NOT_FOUND' : 'NOT_READY' };
  const { enabled, version } = flag;
  if (!enabled) return { value: false, reason: 'OFF', version };
  if (flag.type !== 'rollout') return { value: true, reason: 'ON', version };
  const percentage = flag.percentage ?? 0;
  const bucket = bucketFor(percentage, user, prefix);
  if (bucket < 0) return { value: false, reason: 'MISSING_USER_KEY', version };
  const value = bucket ? bucket <= percentage : percentage >= 100;
  const reason = value ? 'ROLLOUT_IN' : 'ROLLOUT_OUT';
  return bucket ? { value, reason, bucket, version } : { value, reason, version };
}
