/**
 * Whether an IP address is public unicast, whatever its spelling (`docs/protocol.md` §8.4).
 * IPv4 is public unless a special-purpose range holds it. IPv6 is public only inside global
 * unicast `2000::/3` (RFC 4291 §2.4) and outside its special-purpose parts: that one rule refuses
 * IPv4-compatible `::/96`, IPv4-translated `::ffff:0:0:0/96` (RFC 2765), site-local `fec0::/10`
 * (RFC 3879) and every other prefix not assigned for unicast. IPv4-mapped `::ffff:0:0/96` and the
 * NAT64 well-known prefix `64:ff9b::/96` (RFC 6052 §3.1) are judged by the IPv4 inside.
 */
import { isIP } from 'node:net';
import { type IpRange, inRange, parseIp, parseRange } from '../../src/core/targeting/values.js';

const ranges = (list: string[]): IpRange[] => list.map((range) => parseRange(range)!);

/** IPv4 that is not public unicast: IANA's special-purpose registry, multicast and reserved. */
const NOT_PUBLIC_V4 = ranges([
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
]);

/** The only IPv6 that can be public: global unicast. */
const GLOBAL_UNICAST = parseRange('2000::/3')!;

/**
 * Global unicast that is not public: IETF protocol assignments (Teredo `2001::/32` among them),
 * documentation (`2001:db8::/32`, `3fff::/20`, RFC 9637) and 6to4 (`2002::/16`), as a whole.
 */
const NOT_PUBLIC_V6 = ranges(['2001::/23', '2001:db8::/32', '2002::/16', '3fff::/20']);

/** NAT64's well-known prefix: never used for an IPv4 address that is not global (RFC 6052 §3.1). */
const NAT64 = parseRange('64:ff9b::/96')!;

const groups = new Uint16Array(8);

/** Whether the IPv4 address in groups 6 and 7 is public. */
const isPublicV4 = (): boolean => !NOT_PUBLIC_V4.some((range) => inRange(4, groups, range));

/**
 * Whether `text` (an IP address, IPv6 with or without brackets, any case) is public unicast.
 * Anything that is not an address in standard notation is not: a zone id (`fe80::1%eth0`)
 * scopes an address to one link, and forms only a URL parser reads as IPv4 (`127.1`,
 * `0x7f.1`, `2130706433`) must come through `new URL()` first.
 */
export function isPublicAddress(text: string): boolean {
  const address = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (address.includes('%') || isIP(address) === 0) return false;
  const family = parseIp(address, groups);
  if (family === 4) return isPublicV4();
  if (family !== 6) return false;
  if (inRange(6, groups, NAT64)) return isPublicV4();
  return inRange(6, groups, GLOBAL_UNICAST) && !NOT_PUBLIC_V6.some((range) => inRange(6, groups, range));
}
