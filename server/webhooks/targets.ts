/**
 * Which addresses a webhook may be delivered to (`docs/protocol.md` §8.4): with the policy
 * `public`, none that is loopback, link-local (cloud metadata at 169.254.169.254 included),
 * private, shared (CGNAT), multicast, reserved or for documentation, in IPv4 or IPv6 (and IPv4
 * inside IPv6: mapped, NAT64). Checked on the URL when a webhook is saved, resolving its host,
 * and again on the address each delivery connects to, so a name that later resolves elsewhere
 * (DNS rebinding) is refused too. `any` (the default, for local development and tests) allows all.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { lookup as lookupAll } from 'node:dns/promises';
import { isIP } from 'node:net';
import { type IpRange, inRange, parseIp, parseRange } from '../../src/core/targeting/values.js';

export type WebhookTargets = 'any' | 'public';

const NOT_PUBLIC: IpRange[] = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
  '::/128',
  '::1/128',
  '64:ff9b::/96',
  '64:ff9b:1::/48',
  '100::/64',
  '2001::/23',
  '2001:db8::/32',
  '2002::/16',
  'fc00::/7',
  'fe80::/10',
  'ff00::/8',
].map((range) => parseRange(range)!);

const groups = new Uint16Array(8);

/** Whether `address` (an IP literal) is a public unicast address; anything unparsable is not. */
export function isPublicAddress(address: string): boolean {
  const family = parseIp(address.replace(/^\[|\]$/g, ''), groups);
  if (family === 0) return false;
  return !NOT_PUBLIC.some((range) => inRange(family, groups, range));
}

/** The host of `url`, an IPv6 address without its brackets. */
const hostOf = (url: string): string => new URL(url).hostname.replace(/^\[|\]$/g, '');

/**
 * Why `url`, when its host is an address, may not be a target under `public`; `undefined` when
 * it may, or when its host is a name (a name is checked on what it resolves to).
 */
export function addressProblem(url: string): string | undefined {
  const host = hostOf(url);
  return isIP(host) && !isPublicAddress(host) ? `${host} is not a public address` : undefined;
}

/** Why `url` may not be a webhook target under `public`, or `undefined` when it may. */
export async function targetProblem(url: string): Promise<string | undefined> {
  const host = hostOf(url);
  if (isIP(host)) return addressProblem(url);
  let addresses: LookupAddress[];
  try {
    addresses = await lookupAll(host, { all: true, verbatim: true });
  } catch {
    // Not resolvable now: each delivery checks the address it connects to.
    return undefined;
  }
  const inside = addresses.find((a) => !isPublicAddress(a.address));
  return inside ? `${host} resolves to ${inside.address}, which is not a public address` : undefined;
}

/**
 * A `lookup` for the delivery's connections under `public`: answers only public addresses, and
 * fails the connection when the name resolves to none.
 */
export const publicLookup: typeof dnsLookup = ((
  hostname: string,
  options: object,
  callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const allowed = (addresses as LookupAddress[]).filter((a) => isPublicAddress(a.address));
    if (allowed.length === 0) {
      const refused = Object.assign(
        new Error(
          `${hostname} resolves to ${(addresses as LookupAddress[])[0]?.address ?? 'nothing'}, which is not a public address (webhookTargets "public")`,
        ),
        { code: 'ENOTPUBLIC' },
      );
      return callback(refused, '', 0);
    }
    if ((options as { all?: boolean }).all) return callback(null, allowed);
    return callback(null, allowed[0]!.address, allowed[0]!.family);
  });
}) as typeof dnsLookup;
