/**
 * `ETag` and `If-Match` on flags and segments (`docs/protocol.md` §3.3): a resource's entity tag
 * is its version number in quotes, a strong validator.
 */
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../errors.js';
import type { Expected } from '../state/kernel/preconditions.js';

export { etagOf } from '../state/kernel/preconditions.js';

const TAG = /^"(0|[1-9][0-9]{0,15})"$/;

/**
 * The request's `If-Match` (`*` or a comma-separated list of entity tags); `undefined` without
 * one. A weak tag (`W/"3"`) never matches, as the header's strong comparison says; anything
 * else that is not a version tag is `400 VALIDATION_ERROR`.
 */
export function ifMatchOf(req: IncomingMessage): Expected | undefined {
  const header = req.headers['if-match'];
  if (header === undefined) return undefined;
  if (header.trim() === '*') return '*';
  const versions: number[] = [];
  for (const part of header.split(',')) {
    const tag = part.trim();
    if (tag.startsWith('W/"')) continue;
    const match = TAG.exec(tag);
    const version = match ? Number(match[1]) : Number.NaN;
    if (!Number.isSafeInteger(version))
      throw new ApiError(
        400,
        'VALIDATION_ERROR',
        `If-Match must be "*" or entity tags such as "12" (the version in ETag), got ${JSON.stringify(header.slice(0, 100))}`,
      );
    versions.push(version);
  }
  return versions;
}
