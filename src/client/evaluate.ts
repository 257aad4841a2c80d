/**
 * Local evaluation (`docs/protocol.md` §6). `isEnabled` is the hot path: one `Map` lookup,
 * and for a rollout one allocation-free murmur3 over the two keys.
 */
import { bucketOf, isInRollout } from '../core/bucketing.js';
import type { Murmur3Prefix } from '../core/murmur3.js';
import type { SdkFlag } from '../core/types.js';
import type { EvaluationDetail, User } from './types.js';

/** The user's key, or `undefined` when there is none (`''` counts as none). */
function keyOf(user: User | undefined): string | undefined {
  const key = typeof user === 'string' ? user : user?.key;
  return typeof key === 'string' && key.length > 0 ? key : undefined;
}

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
  if (!flag.enabled) return { value: false, reason: 'OFF', version };
  if (flag.type !== 'rollout') return { value: true, reason: 'ON', version };
  const percentage = flag.percentage ?? 0;
  if (percentage >= 100) return { value: true, reason: 'ROLLOUT_IN', version };
  if (percentage <= 0) return { value: false, reason: 'ROLLOUT_OUT', version };
  const key = keyOf(user);
  if (key === undefined) return { value: false, reason: 'MISSING_USER_KEY', version };
  const bucket = bucketOf(flagKey, key);
  return bucket <= percentage
    ? { value: true, reason: 'ROLLOUT_IN', bucket, version }
    : { value: false, reason: 'ROLLOUT_OUT', bucket, version };
}
