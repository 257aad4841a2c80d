/**
 * A user's attributes as clauses and splits read them (`docs/protocol.md` §12.2): `key` (the
 * user key; a string user is only a key), `$now` (the evaluation time, unless the user sets it),
 * a top-level attribute, or a JSON pointer `/a/b` into nested objects. Only own properties are
 * attributes: `constructor`, `__proto__` or `toString` is absent unless the user sets it.
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

/** `holder`'s own property `name`; `undefined` when absent, inherited, or `holder` is no object. */
const own = (holder: unknown, name: string): unknown =>
  typeof holder === 'object' && holder !== null && Object.hasOwn(holder, name)
    ? (holder as Record<string, unknown>)[name]
    : undefined;

/** The value of `path` for `user`; `undefined` when absent. */
export function attributeOf(user: User | undefined, path: AttributePath): unknown {
  if (typeof path === 'string') {
    const value = typeof user === 'string' && path === 'key' ? user : own(user, path);
    return value === undefined && path === '$now' ? Date.now() : value;
  }
  let value: unknown = user;
  for (let i = 0; i < path.length; i++) value = own(value, path[i]!);
  return value;
}
