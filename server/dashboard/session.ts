/**
 * The admin credential (`docs/protocol.md` §10.2): the admin token, compared in constant time,
 * and sessions: `<expiry seconds>.<id>.<HMAC-SHA256 of both>` keyed with a secret derived from
 * the token, so a session survives a restart and ends when the token changes. The id is random;
 * signing out ends it on the server (`../state/admin/sessions.ts`), so a copy of the cookie stops
 * working too. The cookie is HttpOnly and SameSite=Strict; state-changing requests it
 * authenticates must also come from the server's own origin (CSRF, `./origins.ts`).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { bearerOf } from '../state/admin/key-ring.js';

export const SESSION_COOKIE = 'flagwire_admin';
/** How long a session lasts: a week. */
export const SESSION_SECONDS = 7 * 24 * 3600;

/** A session as its cookie names it: signed with this server's token. */
export interface Session {
  /** 22 characters of base64url (16 random bytes). */
  id: string;
  /** Epoch seconds. */
  expires: number;
  /**
   * Signed with the people key (a person's session, `../state/people/`), not the admin token's:
   * changing the admin token ends its own sessions, not people's.
   */
  person?: boolean;
}

/** Whether a session was ended on the server (`SessionService.isEnded`). */
export type EndedCheck = (id: string, expires: number) => boolean;

/** A session kept on the server has an id of `u` and 22 characters; one from before accounts, 22 characters. */
const SESSION_FORM = /^(\d{1,12})\.(u?[A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

/** Whether a session id names a session kept on the server (`../state/people/`). */
export const isKeptSession = (id: string): boolean => id.length === 23 && id.startsWith('u');

const sha256 = (text: string): Buffer => createHash('sha256').update(text).digest();

export class AdminAuth {
  readonly #tokenDigest: Buffer;
  readonly #sessionKey: Buffer;
  readonly #peopleKey: Buffer;
  readonly #ended: EndedCheck;

  /** `ended` tells a session signed out on the server (none, without it). */
  /** `peopleSecret`: the server's own secret that people's session cookies are signed with. */
  constructor(token: string, ended: EndedCheck = () => false, peopleSecret = token) {
    this.#tokenDigest = sha256(token);
    this.#sessionKey = sha256(`flagwire-admin-session\0${token}`);
    this.#peopleKey = sha256(`flagwire-people-session\0${peopleSecret}`);
    this.#ended = ended;
  }

  /** Whether `presented` is the admin token; the time taken does not depend on how much matches. */
  isToken(presented: unknown): boolean {
    return typeof presented === 'string' && timingSafeEqual(sha256(presented), this.#tokenDigest);
  }

  /** The expiry (epoch seconds) of a session made at `nowMs`. */
  static expiryAt(nowMs = Date.now()): number {
    return Math.floor(nowMs / 1000) + SESSION_SECONDS;
  }

  /** A new session cookie's `Set-Cookie` value, with a new random id. */
  newSessionCookie(nowMs = Date.now()): string {
    return this.cookieOf(
      { id: randomBytes(16).toString('base64url'), expires: AdminAuth.expiryAt(nowMs) },
      nowMs,
    );
  }

  /** The `Set-Cookie` value naming `session` (one kept on the server: `../state/people/`). */
  cookieOf(session: Session, nowMs = Date.now()): string {
    const signed = `${session.expires}.${session.id}`;
    const value = `${signed}.${this.#mac(signed, session.person === true)}`;
    const maxAge = Math.max(0, session.expires - Math.floor(nowMs / 1000));
    return `${SESSION_COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAge}`;
  }

  static clearCookie(): string {
    return `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`;
  }

  /** Whether the request carries the admin token as a bearer. */
  isBearer(req: IncomingMessage): boolean {
    const bearer = bearerOf(req.headers.authorization);
    return bearer !== undefined && this.isToken(bearer);
  }

  /** The request's session cookie, when this server signed it and it has not expired (ended or not). */
  sessionOf(req: IncomingMessage, nowMs = Date.now()): Session | undefined {
    const value = cookieValue(req.headers.cookie, SESSION_COOKIE);
    const parts = value === undefined ? null : SESSION_FORM.exec(value);
    if (!parts) return undefined;
    const [, expires, id, mac] = parts as unknown as [string, string, string, string];
    if (Number(expires) * 1000 <= nowMs) return undefined;
    const presented = Buffer.from(mac);
    const signedBy = (person: boolean) => {
      const expected = Buffer.from(this.#mac(`${expires}.${id}`, person));
      return presented.length === expected.length && timingSafeEqual(presented, expected);
    };
    if (signedBy(false)) return { id, expires: Number(expires) };
    if (isKeptSession(id) && signedBy(true)) return { id, expires: Number(expires), person: true };
    return undefined;
  }

  /** How the request is authenticated: by a session not ended, by the token as a bearer, or not. */
  authenticate(req: IncomingMessage, nowMs = Date.now()): 'cookie' | 'bearer' | undefined {
    if (this.isBearer(req)) return 'bearer';
    const session = this.sessionOf(req, nowMs);
    if (session && !session.person && !this.#ended(session.id, session.expires)) return 'cookie';
    return undefined;
  }

  #mac(text: string, person = false): string {
    return createHmac('sha256', person ? this.#peopleKey : this.#sessionKey)
      .update(text)
      .digest('base64url');
  }
}

/** The value of cookie `name` in a `Cookie` header, if it has one. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
