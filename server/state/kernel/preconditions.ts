/**
 * Optimistic concurrency (`docs/protocol.md` §3.3): a write that names the version it was made
 * against (`If-Match`, a change request's `baseVersion`) is refused when the resource moved,
 * decided under the write's lock against the state every instance committed.
 */
import { ApiError } from '../../errors.js';

/** The `ETag` of a flag or segment at `version`: the number in quotes, a strong validator. */
export const etagOf = (version: number): string => `"${version}"`;

/** What a write expects of its target: any current version (`*`), or one of these. */
export type Expected = '*' | readonly number[];

/** An answer with the version of what it shows, for its `ETag`. */
export interface Versioned<T> {
  body: T;
  version: number;
}

/**
 * Throws `412 PRECONDITION_FAILED` with the current representation when `expected` is given and
 * `version` is not one it names; nothing when no precondition was given.
 */
export function requireVersion(
  expected: Expected | undefined,
  kind: 'flag' | 'segment',
  key: string,
  version: number,
  current: () => unknown,
): void {
  if (expected === undefined || expected === '*' || expected.includes(version)) return;
  const asked = expected.map(etagOf).join(', ');
  throw new ApiError(
    412,
    'PRECONDITION_FAILED',
    `${kind} ${JSON.stringify(key)} changed: it is at version ${version}, the request was made against ${asked}; read it again, merge, and retry`,
    { etag: etagOf(version) },
    { current: current() },
  );
}
