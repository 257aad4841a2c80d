/**
 * API-key authentication (`docs/protocol.md` §2). Presented keys are hashed (SHA-256)
 * and looked up by digest, then compared with `timingSafeEqual`, so the time taken does
 * not depend on how much of a key matches. Keys are never logged.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { API_KEY_PATTERN } from '../../src/core/limits.js';
import type { Access, Environment } from '../state/model.js';

export interface Grant {
  env: Environment;
  access: Access;
  key: string;
}

const BEARER = /^bearer[ \t]+([^ \t]+)[ \t]*$/i;

const digest = (key: string): Buffer => createHash('sha256').update(key).digest();

export class KeyRing {
  readonly #byDigest = new Map<string, { grant: Grant; digest: Buffer }>();

  constructor(grants: Iterable<Grant>) {
    for (const grant of grants) {
      const d = digest(grant.key);
      this.#byDigest.set(d.toString('base64'), { grant, digest: d });
    }
  }

  get grants(): Grant[] {
    return [...this.#byDigest.values()].map((entry) => entry.grant);
  }

  readonly #bySocket = new WeakMap<object, { header: string; grant: Grant }>();

  /**
   * `authenticate`, remembering the last accepted header per connection: a keep-alive client
   * sends the same header on every request. The comparison is with what this same connection
   * sent before, so its timing reveals nothing about any key.
   */
  authenticateOn(socket: object, header: string | undefined): Grant | undefined {
    if (header === undefined) return undefined;
    const hit = this.#bySocket.get(socket);
    if (hit !== undefined && hit.header === header) return hit.grant;
    const grant = this.authenticate(header);
    if (grant) this.#bySocket.set(socket, { header, grant });
    return grant;
  }

  /** The grant of the `Authorization` header's key, or `undefined` (→ 401). */
  authenticate(header: string | undefined): Grant | undefined {
    if (header === undefined) return undefined;
    const match = BEARER.exec(header);
    if (!match) return undefined;
    const key = match[1]!;
    if (!API_KEY_PATTERN.test(key)) return undefined;
    const presented = digest(key);
    const entry = this.#byDigest.get(presented.toString('base64'));
    if (!entry || !timingSafeEqual(entry.digest, presented)) return undefined;
    return entry.grant;
  }
}
