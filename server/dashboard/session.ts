/**
 * The admin credential (`docs/protocol.md` §10.2): the admin token, compared in constant time,
 * and sessions: `<expiry seconds>.<HMAC-SHA256 of the expiry>` keyed with a secret derived from
 * the token, so a session survives a restart and ends when the token changes. The cookie is
 * HttpOnly and SameSite=Strict; state-changing requests it authenticates must also come from
 * the server's own origin (CSRF).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const SESSION_COOKIE = 'flagwire_admin';
const SESSION_SECONDS = 7 * 24 * 3600;

const sha256 = (text: string): Buffer => createHash('sha256').update(text).digest();

export class AdminAuth {
  readonly #tokenDigest: Buffer;
  readonly #sessionKey: Buffer;

  constructor(token: string) {
    this.#tokenDigest = sha256(token);
    this.#sessionKey = sha256(`flagwire-admin-session\0${token}`);
  }

  /** Whether `presented` is the admin token; the time taken does not depend on how much matches. */
  isToken(presented: unknown): boolean {
    return typeof presented === 'string' && timingSafeEqual(sha256(presented), this.#tokenDigest);
  }

  /** A new session cookie's `Set-Cookie` value. */
  newSessionCookie(nowMs = Date.now()): string {
    const expires = Math.floor(nowMs / 1000) + SESSION_SECONDS;
    const value = `${expires}.${this.#mac(String(expires))}`;
    return `${SESSION_COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${SESSION_SECONDS}`;
  }

  static clearCookie(): string {
    return `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`;
  }

  /** How the request is authenticated: by the session cookie, by the token as a bearer, or not. */
  authenticate(req: IncomingMessage, nowMs = Date.now()): 'cookie' | 'bearer' | undefined {
    const bearer = /^bearer[ \t]+([^ \t]+)[ \t]*$/i.exec(req.headers.authorization ?? '');
    if (bearer && this.isToken(bearer[1])) return 'bearer';
    const session = cookieValue(req.headers.cookie, SESSION_COOKIE);
    if (session !== undefined && this.#validSession(session, nowMs)) return 'cookie';
    return undefined;
  }

  #validSession(value: string, nowMs: number): boolean {
    const dot = value.indexOf('.');
    if (dot <= 0) return false;
    const expires = value.slice(0, dot);
    if (!/^\d{1,12}$/.test(expires) || Number(expires) * 1000 <= nowMs) return false;
    const presented = Buffer.from(value.slice(dot + 1));
    const expected = Buffer.from(this.#mac(expires));
    return presented.length === expected.length && timingSafeEqual(presented, expected);
  }

  #mac(text: string): string {
    return createHmac('sha256', this.#sessionKey).update(text).digest('base64url');
  }
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Whether the request's `Origin` is this server's own (scheme aside, the `Host` it was sent to). */
export function isSameOrigin(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  const host = req.headers.host;
  if (!origin || !host || origin === 'null') return false;
  try {
    return new URL(origin).host === host.toLowerCase();
  } catch {
    return false;
  }
}
