/**
 * A user's attributes as clauses and splits read them (`docs/protocol.md` §12.2): `key` (the
 * user key; a string user is only a key), `$now` (the evaluation time, unless the user sets it),
 * a top-level attribute, or a JSON pointer `/a/b` into nested objects.
 */
import type { User } from '../types.js';

/** An attribute, compiled: a top-level name, or the unescaped segments of a JSON pointer. */
export type AttributePath = string | readonly string[];

/** Compiles `attribute` (`/a/b` is a pointer; `~1` is `/`, `~0` is `~`). */
export function attributePath(attribute: string): AttributePath {
  if (attribute[0] !== '/') return attribute;
  return attribute
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The value of `path` for `user`; `undefined` when absent. */
export function attributeOf(user: User | undefined, path: AttributePath): unknown {
  if (typeof path === 'string') {
    if (path === 'key') return typeof user === 'string' ? user : user?.key;
    const value = typeof user === 'object' && user !== null ? user[path] : undefined;
    return value === undefined && path === '$now' ? Date.now() : value;
  }
  let value: unknown = user;
  for (let i = 0; i < path.length; i++) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[path[i]!];
  }
  return value;
}
