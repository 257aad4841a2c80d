/**
 * Byte limits of what an environment stores (`docs/protocol.md` §3.4): a flag, a segment, and
 * all of an environment's flags and segments together, as JSON. Checked when a write is
 * planned, before anything is acknowledged, so no environment grows past what its snapshot and
 * its answers can hold. A stored object never changes (a write makes a new one), so its size is
 * measured once.
 */
import { validationError } from '../../errors.js';
import { jsonBytes } from '../kernel/json-bytes.js';
import type { Environment, StoredFlag, StoredSegment } from '../kernel/model.js';

/** The limits, in bytes of JSON. */
export const SIZE_LIMITS = {
  flag: 1024 * 1024,
  segment: 4 * 1024 * 1024,
  environment: 64 * 1024 * 1024,
} as const;

const mib = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;

/**
 * Refuses (`400 VALIDATION_ERROR`) a flag or segment over its own limit, or that would make its
 * environment's flags and segments together larger than theirs.
 */
export function checkSize(
  env: Environment,
  kind: 'flag' | 'segment',
  after: StoredFlag | StoredSegment,
): void {
  const own = jsonBytes(after);
  const limit = SIZE_LIMITS[kind];
  if (own > limit)
    throw validationError(
      `${kind} ${JSON.stringify(after.key)} would be ${mib(own)} of JSON, more than the ${mib(limit)} a ${kind} may be`,
    );
  let total = own;
  for (const flag of env.flags.values())
    if (kind !== 'flag' || flag.key !== after.key) total += jsonBytes(flag);
  for (const segment of env.segments.values())
    if (kind !== 'segment' || segment.key !== after.key) total += jsonBytes(segment);
  if (total > SIZE_LIMITS.environment)
    throw validationError(
      `the environment's flags and segments would be ${mib(total)} of JSON, more than the ${mib(SIZE_LIMITS.environment)} an environment may hold; delete or trim some first`,
    );
}
