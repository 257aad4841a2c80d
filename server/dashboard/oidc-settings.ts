/**
 * Single sign-on's settings (`docs/protocol.md` §10.6), and the rule an issuer's URL must follow:
 * `https://`, or `http://` on a loopback address only (tests, local development). Read by the
 * options, the command line and the relying party (`./oidc.ts`).
 */
import type { Role } from '../state/kernel/model.js';

/** Single sign-on's settings, as the options resolve them (`../options.ts`). */
export interface OidcSettings {
  /** As given, without a trailing slash. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  defaultRole: Role;
  /** Lower case, no duplicates; empty: any domain. */
  allowedDomains: readonly string[];
}

/** Whether `hostname` (as `URL.hostname` gives it) is a loopback address: `127.0.0.0/8`, `::1`, `localhost`. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * What is wrong with `issuer` as an OpenID Connect issuer, or `undefined` when nothing is: an
 * `https://` URL, or `http://` on a loopback address; no query, fragment or credentials.
 */
export function issuerProblem(issuer: string): string | undefined {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an https:// URL';
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname))
    return 'must be https:// (http:// is accepted on a loopback address only: 127.0.0.1, ::1, localhost)';
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '')
    return 'must have no credentials, query or fragment';
  return undefined;
}
