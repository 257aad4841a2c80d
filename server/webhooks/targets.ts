/**
 * Which hosts a webhook may be delivered to (`docs/protocol.md` §8.4): with the policy `public`,
 * no address that is not public unicast (`./public-address.ts`: every spelling, IPv4 inside IPv6
 * included) and no special-use name (`localhost`, `*.localhost`, `*.local`, `*.internal`,
 * `*.home.arpa`). A name is compared, and resolved, without the trailing dot that roots it.
 * Checked on the URL when a webhook is saved, resolving its host, and again on the address each
 * delivery connects to, so a name that later resolves elsewhere (DNS rebinding) is refused too.
 * `any` (the default, for local development and tests) allows all.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { lookup as lookupAll } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isPublicAddress } from './public-address.js';

export { isPublicAddress } from './public-address.js';

export type WebhookTargets = 'any' | 'public';

/**
 * Domains whose names never name a public host (§8.4): loopback (RFC 6761 §6.3), multicast DNS
 * on the link (RFC 6762), ICANN's private-use `internal`, home networks (RFC 8375).
 */
const SPECIAL_USE = ['localhost', 'local', 'internal', 'home.arpa'];

/** A URL's hostname without the brackets of an IPv6 address. */
const unbracketed = (host: string): string =>
  host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;

/** A name as it is compared and resolved: lower case, without the trailing dot of the root. */
const canonicalName = (name: string): string => name.toLowerCase().replace(/\.$/, '');

/**
 * Why `host` (a URL's hostname, or a name about to be looked up) is not a target under `public`
 * whatever it resolves to; `undefined` for a public address, or for a name to resolve.
 */
function hostProblem(host: string): string | undefined {
  const bare = unbracketed(host);
  const name = canonicalName(bare);
  const address = isIP(bare) ? bare : isIP(name) ? name : undefined;
  if (address !== undefined)
    return isPublicAddress(address) ? undefined : `${address} is not a public address`;
  // An empty label (`localhost..`, `.localhost`): no DNS name, whatever a resolver makes of it.
  if (name.split('.').includes('')) return `${host} is not a valid host name, so not a public address`;
  const domain = SPECIAL_USE.find((d) => name === d || name.endsWith(`.${d}`));
  return domain ? `${name} is a special-use name (${domain}), not a public address` : undefined;
}

/** Whether `host` is an IP address (which is never looked up). */
const isAddress = (host: string): boolean => isIP(unbracketed(host)) !== 0;

/**
 * Why `url` may not be a target under `public` without resolving anything: its host is an
 * address that is not public, or a name that cannot be; `undefined` when it may, or when its
 * host is a name to check on what it resolves to.
 */
export function addressProblem(url: string): string | undefined {
  return hostProblem(new URL(url).hostname);
}

/** Why `url` may not be a webhook target under `public`, or `undefined` when it may. */
export async function targetProblem(url: string): Promise<string | undefined> {
  const host = new URL(url).hostname;
  const problem = hostProblem(host);
  if (problem || isAddress(host)) return problem;
  const name = canonicalName(host);
  let addresses: LookupAddress[];
  try {
    addresses = await lookupAll(name, { all: true, verbatim: true });
  } catch {
    // Not resolvable now: each delivery checks the address it connects to.
    return undefined;
  }
  const inside = addresses.find((a) => !isPublicAddress(a.address));
  return inside ? `${name} resolves to ${inside.address}, which is not a public address` : undefined;
}

/** The error a connection under `public` fails with. */
const refusal = (message: string): NodeJS.ErrnoException =>
  Object.assign(new Error(`${message} (webhookTargets "public")`), { code: 'ENOTPUBLIC' });

/**
 * A `lookup` for the delivery's connections under `public`: answers only public addresses, and
 * fails the connection when the name cannot be public or resolves to no public address.
 */
export const publicLookup: typeof dnsLookup = ((
  hostname: string,
  options: object,
  callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
) => {
  const problem = hostProblem(hostname);
  if (problem) return callback(refusal(problem), '', 0);
  const name = canonicalName(unbracketed(hostname));
  dnsLookup(name, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const allowed = (addresses as LookupAddress[]).filter((a) => isPublicAddress(a.address));
    if (allowed.length === 0) {
      const first = (addresses as LookupAddress[])[0]?.address ?? 'nothing';
      return callback(refusal(`${name} resolves to ${first}, which is not a public address`), '', 0);
    }
    if ((options as { all?: boolean }).all) return callback(null, allowed);
    return callback(null, allowed[0]!.address, allowed[0]!.family);
  });
}) as typeof dnsLookup;
