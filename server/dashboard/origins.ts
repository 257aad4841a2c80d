/**
 * The server's own origins, against which the admin API checks a request's `Origin` (CSRF,
 * `docs/protocol.md` §10.2): scheme, host and port, never taken from the request (its `Host` is
 * whatever the client wrote). With a public URL (`--public-url`), that origin only. Without
 * one, the origins the server listens on: `http://HOST:PORT`; for a loopback listener also
 * `http://localhost:PORT`, `http://127.0.0.1:PORT` and `http://[::1]:PORT`; for a wildcard
 * listener (`0.0.0.0`, `::`) those loopback origins only, with a start-up warning to set a
 * public URL, since which name people reach it by is not the server's to know.
 */
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** `url`'s origin (`scheme://host[:port]`, the default port left out), or `undefined` when it is not one. */
export function originOf(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const bare =
    (parsed.protocol === 'http:' || parsed.protocol === 'https:') &&
    parsed.username === '' &&
    parsed.password === '' &&
    parsed.pathname === '/' &&
    parsed.search === '' &&
    parsed.hash === '';
  return bare ? parsed.origin : undefined;
}

const isLoopback = (address: string): boolean =>
  address === '::1' || /^(::ffff:)?127\./.test(address) || address === 'localhost';
const isWildcard = (address: string): boolean =>
  address === '0.0.0.0' || address === '::' || address === '::ffff:0.0.0.0';

export class OwnOrigins {
  readonly #publicOrigin: string | undefined;
  #origins: ReadonlySet<string>;
  /** The origin of the address the server listens on, as it prints its URL. */
  #listening: string | undefined;

  /** `publicUrl`: the origin people reach the server at (already checked by the options). */
  constructor(publicUrl: string | undefined) {
    this.#publicOrigin = publicUrl === undefined ? undefined : originOf(publicUrl);
    this.#origins = new Set(this.#publicOrigin === undefined ? [] : [this.#publicOrigin]);
  }

  /**
   * Learns the address the server listens on (no request comes before); answers a warning for
   * the start-up log when the origins had to be guessed (a wildcard listener, no public URL).
   */
  listening(address: AddressInfo): string | undefined {
    if (this.#publicOrigin !== undefined) return undefined;
    const port = address.port;
    const loopback = [`http://localhost:${port}`, `http://127.0.0.1:${port}`, `http://[::1]:${port}`];
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    const own = originOf(`http://${host}:${port}`);
    this.#listening = isWildcard(address.address) ? originOf(loopback[0]!) : own;
    if (isWildcard(address.address)) {
      this.#origins = new Set(loopback.map((o) => originOf(o)!));
      return (
        `listening on every interface (${address.address}) without a public URL: the dashboard takes ` +
        `sign-ins and changes only from ${loopback.join(', ')}; set --public-url (FLAGWIRE_PUBLIC_URL, ` +
        'startServer({ publicUrl })) to the address people open it at'
      );
    }
    const origins = isLoopback(address.address) ? loopback : [];
    this.#origins = new Set([...origins, ...(own === undefined ? [] : [own])].map((o) => originOf(o)!));
    return undefined;
  }

  /** The accepted origins, for messages and tests. */
  get list(): readonly string[] {
    return [...this.#origins];
  }

  /**
   * The origin a link sent to a person starts with (an invitation): the public URL; else the
   * request's own `Origin` when it is one of the server's; else the first the server answers at.
   */
  linkOrigin(req: IncomingMessage): string {
    if (this.#publicOrigin !== undefined) return this.#publicOrigin;
    if (this.matches(req)) return originOf(req.headers.origin as string)!;
    return this.#listening ?? [...this.#origins][0] ?? 'http://localhost';
  }

  /** Whether the request's `Origin` is one of the server's own: same scheme, host and port. */
  matches(req: IncomingMessage): boolean {
    const header = req.headers.origin;
    if (typeof header !== 'string' || header === 'null') return false;
    const origin = originOf(header);
    return origin !== undefined && this.#origins.has(origin);
  }
}
