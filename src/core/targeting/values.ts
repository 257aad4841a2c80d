/**
 * Reading clause values and user attributes as numbers, times, versions and IP addresses
 * (`docs/protocol.md` §12.2). A clause's values are parsed once, when the flag is compiled; a
 * user's text attribute once per distinct text (`./memo.ts`).
 */
import { memoized } from './memo.js';

const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
/** An RFC 3339 date-time; no hour 24 (ECMAScript's `24:00:00`), which `Date.parse` takes. */
const RFC3339 = /^\d{4}-\d\d-\d\d[Tt ](?:[01]\d|2[0-3]):\d\d:\d\d(?:\.\d+)?(?:[Zz]|[+-]\d\d:\d\d)$/;
/**
 * SemVer 2.0.0 with `minor` and `patch` optional: numbers without leading zeros; pre-release
 * identifiers (captured) and build identifiers (ignored), numeric ones without leading zeros.
 */
const SEMVER =
  /^(0|[1-9]\d*)(?:\.(0|[1-9]\d*)(?:\.(0|[1-9]\d*))?)?(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][\dA-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][\dA-Za-z-]*))*))?(?:\+(?:0|[1-9]\d*|\d*[A-Za-z-][\dA-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][\dA-Za-z-]*))*)?$/;
/** A decimal byte, 0 to 255, without leading zeros. */
const IPV4 =
  /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

const HEX_GROUP = /^[\da-f]{1,4}$/i;
const DIGITS = /^\d+$/;

const numberOf = memoized((text) => (JSON_NUMBER.test(text) ? +text : NaN));
/**
 * An RFC 3339 date-time as epoch milliseconds; `NaN` for one that does not exist. `Date.parse`
 * refuses a month 13, minute or second 60 (no leap seconds) or an offset past 23:59, but takes
 * hour 24 (refused by `RFC3339`) and may roll a day past the month's over into the next month
 * (February 30 is March 2 in V8): the date alone must read back as the day written.
 */
const timeOf = memoized((text) =>
  RFC3339.test(text) && new Date(text.slice(0, 10)).getUTCDate() === +text.slice(8, 10)
    ? Date.parse(text.replace(/[t ]/, 'T'))
    : NaN,
);

/** A number as it is, a string as `read` reads it; `NaN` for anything else. */
const numeric =
  (read: (text: string) => number) =>
  (value: unknown): number =>
    typeof value === 'number' ? value : typeof value === 'string' ? read(value) : NaN;

/** A number, or a string in JSON number syntax, as a number; `NaN` for anything else. */
export const toNumber = numeric(numberOf);

/** Epoch milliseconds, or an RFC 3339 date-time with an offset, as epoch milliseconds; `NaN` else. */
export const toTime = numeric(timeOf);

/** The lowercase of a text (case-insensitive clauses), memoized. */
export const lowercase = memoized((text) => text.toLowerCase());

/** A user's address: its family and groups, or `null`; memoized. */
export const addressOf = memoized((text) => {
  const groups = new Uint16Array(8);
  const family = parseIp(text, groups);
  return family ? { family, groups } : null;
});

/** A SemVer 2.0.0 version: `major.minor.patch` (padded with zeros) and its pre-release part. */
export interface Version {
  major: number;
  minor: number;
  patch: number;
  /** The pre-release identifiers as written (`rc.1`), or `''` for a release. */
  pre: string;
  /** `pre` split at its dots, set by {@link parseVersion}: comparing allocates nothing. */
  ids?: readonly string[];
}

/**
 * Parses `text` into `out`: `1`, `1.2`, `1.2.3`, with an optional `-pre.release` and `+build`
 * (ignored). A leading `v` or anything else invalid answers `false`. Numbers past 2^53 - 1 are
 * versions (refused as operands when saved, `validate-clauses.ts`): against an operand, whose
 * numbers are at most 2^53 - 1, they still compare exactly, as they round to 2^53 or more.
 */
export function parseVersion(text: unknown, out: Version): boolean {
  const m = typeof text === 'string' && SEMVER.exec(text);
  if (!m) return false;
  out.major = +m[1]!;
  out.minor = +(m[2] ?? 0);
  out.patch = +(m[3] ?? 0);
  out.pre = m[4] ?? '';
  out.ids = out.pre.split('.');
  return true;
}

/** `text` as a version (`null`: not one), memoized: evaluation does not parse it again. */
export const versionOf = memoized((text): Version | null => {
  const version: Version = { major: 0, minor: 0, patch: 0, pre: '' };
  return parseVersion(text, version) ? version : null;
});

/** SemVer precedence of `a` against `b` (both from {@link parseVersion}): negative, zero or positive. */
export function compareVersions(a: Version, b: Version): number {
  const core = a.major - b.major || a.minor - b.minor || a.patch - b.patch;
  if (core || a.pre === b.pre) return core;
  if (!a.pre || !b.pre) return a.pre ? -1 : 1;
  const x = a.ids!;
  const y = b.ids!;
  for (let i = 0; i < x.length && i < y.length; i++) {
    const p = x[i]!;
    const q = y[i]!;
    if (p === q) continue;
    const pn = DIGITS.test(p);
    const qn = DIGITS.test(q);
    return pn && qn ? +p - +q : pn ? -1 : qn ? 1 : p < q ? -1 : 1;
  }
  return x.length - y.length;
}

/**
 * Parses an IPv4 or IPv6 address into eight 16-bit groups (IPv4, and IPv4-mapped IPv6
 * `::ffff:a.b.c.d`, in groups 6 and 7). Answers 4, 6, or 0 when it is not an address.
 */
export function parseIp(text: string, out: Uint16Array): 0 | 4 | 6 {
  out.fill(0);
  // A dotted quad, alone or as the last 32 bits of IPv6: hexadecimal groups `0:0` until read.
  const colon = text.lastIndexOf(':');
  const quad = text.slice(colon + 1);
  const v4 = quad.includes('.');
  if (colon < 0) return v4 && ipv4(quad, out) ? 4 : 0;
  const [head, tail, more] = (v4 ? `${text.slice(0, colon + 1)}0:0` : text).split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const gap = 8 - left.length - right.length;
  if (more !== undefined || (tail === undefined ? gap : gap < 1)) return 0;
  const groups = [...left, ...Array(gap).fill('0'), ...right];
  for (let i = 0; i < 8; i++) {
    if (!HEX_GROUP.test(groups[i]!)) return 0;
    out[i] = Number.parseInt(groups[i]!, 16);
  }
  if (v4 && !ipv4(quad, out)) return 0;
  return !(out[0]! | out[1]! | out[2]! | out[3]! | out[4]!) && out[5] === 0xffff ? 4 : 6;
}

/** Reads a dotted quad into groups 6 and 7. */
function ipv4(text: string, out: Uint16Array): boolean {
  const m = IPV4.exec(text);
  if (m) {
    out[6] = (+m[1]! << 8) | +m[2]!;
    out[7] = (+m[3]! << 8) | +m[4]!;
  }
  return !!m;
}

/** An address range: its family, first groups and how many leading bits count. */
export interface IpRange {
  family: 4 | 6;
  groups: Uint16Array;
  bits: number;
}

/** Parses `a.b.c.d`, `a.b.c.d/n`, an IPv6 address or `addr/n`; `undefined` when invalid. */
export function parseRange(text: unknown): IpRange | undefined {
  if (typeof text !== 'string') return undefined;
  const slash = text.indexOf('/');
  const groups = new Uint16Array(8);
  const family = parseIp(slash < 0 ? text : text.slice(0, slash), groups);
  const max = family === 4 ? 32 : 128;
  const suffix = text.slice(slash + 1);
  const bits = slash < 0 ? max : /^(?:0|[1-9]\d{0,2})$/.test(suffix) ? +suffix : 999;
  return family && bits <= max ? { family, groups, bits } : undefined;
}

/** Whether the address parsed into `groups` (of `family`) lies in `range`. */
export function inRange(family: 4 | 6, groups: Uint16Array, range: IpRange): boolean {
  if (family !== range.family) return false;
  let bits = range.bits;
  for (let i = family === 4 ? 6 : 0; bits > 0; i++, bits -= 16) {
    const mask = bits >= 16 ? 0xffff : (0xffff << (16 - bits)) & 0xffff;
    if ((groups[i]! & mask) !== (range.groups[i]! & mask)) return false;
  }
  return true;
}
