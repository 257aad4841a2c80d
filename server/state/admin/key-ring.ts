/**
 * The key ring: API-key authentication (`docs/protocol.md` §2), in the state layer because the
 * admin service keeps it in step with the keys it creates and revokes; the HTTP front asks it who
 * a request is. Presented keys are hashed (SHA-256)
 * and looked up by digest, then compared with `timingSafeEqual`, so the time taken does
 * not depend on how much of a key matches. Keys are never logged. Keys come and go while the
 * server runs (the dashboard creates and revokes them, §10.3): a revoked grant is refused at
 * once, also on connections that authenticated with it before.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { API_KEY_PATTERN } from '../../../src/core/limits.js';
import { apiKeyActor } from '../kernel/actors.js';
import type { Access, Actor, Environment } from '../kernel/model.js';

/** Where an accepted key comes from (`docs/protocol.md` §10.3). */
export type KeySource = 'config' | 'generated' | 'dashboard';

export interface Grant {
  env: Environment;
  access: Access;
  /** `key_` + 16 hex characters of the key's digest: stable, and reveals nothing usable. */
  id: string;
  source: KeySource;
  /** Who the history names for changes made with this key. */
  actor: Actor;
  /** The key's name, when it was given one (keys made in the dashboard). */
  name?: string | null;
  createdAt: string | null;
  /** Set when the key is revoked; a revoked grant opens nothing. */
  revoked: boolean;
  /**
   * Its writes skip the environment's approvals (`docs/protocol.md` §2; `../../http/approvals.ts`):
   * a `full` key given `bypassApprovals`; absent or false, they do not.
   */
  bypassApprovals?: boolean;
}

const BEARER = /^bearer[ \t]+([^ \t]+)[ \t]*$/i;

/** The credential of an `Authorization: Bearer ...` header, or `undefined` when it is not one. */
export function bearerOf(header: string | undefined): string | undefined {
  return header === undefined ? undefined : BEARER.exec(header)?.[1];
}

export const keyDigest = (key: string): Buffer => createHash('sha256').update(key).digest();
export const keyIdOf = (digest: Buffer): string => `key_${digest.toString('hex').slice(0, 16)}`;
export const keyHint = (key: string): string => `fw_live_…${key.slice(-4)}`;

/** A grant for a key whose value the server knows (config and generated keys). */
export function grantOfKey(
  env: Environment,
  key: string,
  access: Access,
  source: KeySource,
  bypassApprovals = false,
): { digest: Buffer; grant: Grant } {
  const digest = keyDigest(key);
  const grant: Grant = {
    env,
    access,
    id: keyIdOf(digest),
    source,
    actor: apiKeyActor(keyIdOf(digest), keyHint(key)),
    createdAt: null,
    revoked: false,
    bypassApprovals,
  };
  return { digest, grant };
}

export class KeyRing {
  readonly #byDigest = new Map<string, { grant: Grant; digest: Buffer }>();

  constructor(entries: Iterable<{ digest: Buffer; grant: Grant }> = []) {
    for (const entry of entries) this.add(entry.digest, entry.grant);
  }

  add(digest: Buffer, grant: Grant): void {
    this.#byDigest.set(digest.toString('base64'), { grant, digest });
  }

  /** Revokes a grant: refused from now on, on every connection. */
  revoke(grant: Grant): void {
    grant.revoked = true;
    for (const [id, entry] of this.#byDigest) if (entry.grant === grant) this.#byDigest.delete(id);
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
    if (hit !== undefined && hit.header === header && !hit.grant.revoked) return hit.grant;
    const grant = this.authenticate(header);
    if (grant) this.#bySocket.set(socket, { header, grant });
    return grant;
  }

  /** The grant of the `Authorization` header's key, or `undefined` (→ 401). */
  authenticate(header: string | undefined): Grant | undefined {
    const key = bearerOf(header);
    if (key === undefined || !API_KEY_PATTERN.test(key)) return undefined;
    const presented = keyDigest(key);
    const entry = this.#byDigest.get(presented.toString('base64'));
    if (!entry || !timingSafeEqual(entry.digest, presented)) return undefined;
    return entry.grant;
  }
}
