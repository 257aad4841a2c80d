import { createHash } from 'node:crypto';

/**
 * The one `If-None-Match` check (RFC 9110 §13.1.2, weak comparison): whether the header names
 * `etag`, or is `*`. Tags compare without `W/` and without their quotes, so a client that drops
 * the quotes or marks the tag weak still gets its `304`. The SDK snapshot and OFREP's bulk
 * answer use it (`docs/protocol.md` §5.2, §11.3).
 */
export function ifNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const wanted = opaque(etag);
  return header.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === wanted);
}

const opaque = (tag: string): string => tag.trim().replace(/^W\//, '').replace(/^"|"$/g, '');

/** A strong ETag of content: 27 characters of its SHA-256, base64url, quoted (OFREP's bulk answer, the OpenAPI documents). */
export const contentEtag = (content: string | Buffer): string =>
  `"${createHash('sha256').update(content).digest('base64url').slice(0, 27)}"`;
