/**
 * Local evaluation (`docs/protocol.md` §6). `isEnabled` is the hot path: one `Map` lookup,
 * and for a rollout one murmur3 over the user key (allocation-free for ASCII keys).
 */
import { bucketOf, isInRollout } from '../core/bucketing.js';
import type { Murmur3Prefix } from '../core/murmur3.js';
import type { SdkFlag } from '../core/types.js';
import type { EvaluationDetail, EvaluationReason, User } from './types.js';

/** The boolean answer; `flag` undefined gives `defaultValue`. */
export function evaluateFlag(
  flag: SdkFlag | undefined,
  flagKey: string,
  user: User | undefined,
  defaultValue: boolean,
  prefixes: ReadonlyMap<string, Murmur3Prefix>,
): boolean {
  if (flag === undefined) return defaultValue;
  if (!flag.enabled) return false;
  if (flag.type !== 'rollout') return true;
  const key = typeof user === 'string' ? user : user?.key;
  return isInRollout(flagKey, key, flag.percentage ?? 0, prefixes.get(flagKey));
}

/** The answer with its reason (`flag` undefined: `FLAG_NOT_FOUND`, or `NOT_READY` when nothing is loaded). */
export function evaluateDetail(
  flag: SdkFlag | undefined,
  flagKey: string,
  user: User | undefined,
  defaultValue: boolean,
  loaded: boolean,
): EvaluationDetail {
  if (flag === undefined) return { value: defaultValue, reason: loaded ? 'FLAG_NOT_FOUND' : 'NOT_READY' };
  const { version } = flag;
  const detail = (value: boolean, reason: EvaluationReason, bucket?: number): EvaluationDetail =>
    bucket ? { value, reason, bucket, version } : { value, reason, version };
  if (!flag.enabled) return detail(false, 'OFF');
  if (flag.type !== 'rollout') return detail(true, 'ON');
  const percentage = flag.percentage ?? 0;
  let bucket: number | undefined;
  // Between 0 and 100 % (or NaN), the user's bucket decides; without a key, the user is out.
  if (!(percentage >= 100 || percentage <= 0)) {
    const key = typeof user === 'string' ? user : user?.key;
    if (typeof key !== 'string' || key === '') return detail(false, 'MISSING_USER_KEY');
    bucket = bucketOf(flagKey, key);
  }
  const value = percentage >= 100 || bucket! <= percentage;
  return detail(value, value ? 'ROLLOUT_IN' : 'ROLLOUT_OUT', bucket);
}
