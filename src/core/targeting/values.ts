/**
 * Reading clause values and user attributes as numbers, times, versions and IP addresses
 * (`docs/protocol.md` §12.2). A clause's values are parsed once, when the flag is compiled; a
 * user's attribute on every evaluation, so these parse into module scratch instead of
 * allocating.
 */

const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const RFC3339 = /^\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d:\d\d(?:\.\d+)?(?:[Zz]|[+-]\d\d:\d\d)$/;

/** A number, or a string in JSON number syntax, as a number; `NaN` for anything else. */
export function toNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  return typeof value === 'string' && JSON_NUMBER.test(value) ? Number(value) : Number.NaN;
}

/** Epoch milliseconds, or an RFC 3339 date-time with an offset, as epoch milliseconds; `NaN` else. */
export function toTime(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string' || !RFC3339.test(value)) return Number.NaN;
  return Date.parse(value[10] === 'T' ? value : `${value.slice(0, 10)}T${value.slice(11)}`);
}

/** A SemVer 2.0.0 version: `major.minor.patch` (padded with zeros) and its pre-release part. */
export interface Version {
  major: number;
  minor: number;
  patch: number;
  /** The pre-release identifiers as written (`rc.1`), or `''` for a release. */
  pre: string;
}

/** Reads a digit run at `at` with no leading zero; answers its end, or -1. */
function digits(text: string, at: number): number {
  let end = at;
  while (end < text.length && (text.charCodeAt(end) - 48) >>> 0 < 10) end++;
  return end === at || (text.charCodeAt(at) === 48 && end - at > 1) ? -1 : end;
}

/** Whether `part` is dot-separated identifiers of `[0-9A-Za-z-]`, numeric ones without a leading zero. */
function identifiers(part: string): boolean {
  for (const id of part.split('.')) {
    if (!/^[0-9A-Za-z-]+$/.test(id) || (/^\d+$/.test(id) && id.length > 1 && id[0] === '0')) return false;
  }
  return true;
}

/**
 * Parses `text` into `out`: `1`, `1.2`, `1.2.3`, with an optional `-pre.release` and `+build`
 * (ignored). A leading `v` or anything else invalid answers `false`.
 */
export function parseVersion(text: unknown, out: Version): boolean {
  if (typeof text !== 'string') return false;
  const parts = [0, 0, 0];
  let at = 0;
  for (let i = 0; i < 3; i++) {
    const end = digits(text, at);
    if (end < 0) return false;
    parts[i] = Number(text.slice(at, end));
    at = end;
    if (text[at] !== '.') break;
    at++;
    if (i === 2) return false;
  }
  let pre = '';
  if (text[at] === '-') {
    const plus = text.indexOf('+', at);
    pre = text.slice(at + 1, plus < 0 ? text.length : plus);
    if (!identifiers(pre)) return false;
    at = plus < 0 ? text.length : plus;
  }
  if (at < text.length && (text[at] !== '+' || !identifiers(text.slice(at + 1)))) return false;
  out.major = parts[0]!;
  out.minor = parts[1]!;
  out.patch = parts[2]!;
  out.pre = pre;
  return true;
}

/** SemVer precedence of `a` against `b`: negative, zero or positive. */
export function compareVersions(a: Version, b: Version): number {
  const core = a.major - b.major || a.minor - b.minor || a.patch - b.patch;
  if (core || a.pre === b.pre) return core;
  if (!a.pre || !b.pre) return a.pre ? -1 : 1;
  const x = a.pre.split('.');
  const y = b.pre.split('.');
  for (let i = 0; i < x.length && i < y.length; i++) {
    const p = x[i]!;
    const q = y[i]!;
    if (p === q) continue;
    const pn = /^\d+$/.test(p);
    const qn = /^\d+$/.test(q);
    if (pn && qn) return Number(p) - Number(q);
    return pn ? -1 : qn ? 1 : p < q ? -1 : 1;
  }
  return x.length - y.length;
}

/**
 * Parses an IPv4 or IPv6 address into eight 16-bit groups (IPv4, and IPv4-mapped IPv6
 * `::ffff:a.b.c.d`, in groups 6 and 7). Answers 4, 6, or 0 when it is not an address.
 */
export function parseIp(text: string, out: Uint16Array): 0 | 4 | 6 {
  if (text.indexOf(':') < 0) return ipv4(text, out, 6) ? 4 : 0;
  out.fill(0);
  const gap = text.indexOf('::');
  if (gap !== text.lastIndexOf('::')) return 0;
  const head = gap < 0 ? text : text.slice(0, gap);
  const tail = gap < 0 ? '' : text.slice(gap + 2);
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const last = (right.length ? right : left).at(-1) ?? '';
  const v4 = last.indexOf('.') >= 0;
  const count = left.length + right.length + (v4 ? 1 : 0);
  if (gap < 0 ? count !== 8 : count > 7) return 0;
  const put = (groups: string[], at: number): boolean =>
    groups.every((group, i) => {
      if (v4 && groups === (right.length ? right : left) && i === groups.length - 1) return true;
      if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return false;
      out[at + i] = Number.parseInt(group, 16);
      return true;
    });
  if (!put(left, 0) || !put(right, 8 - right.length - (v4 ? 1 : 0))) return 0;
  if (v4 && !ipv4(last, out, 6)) return 0;
  const mapped = !(out[0]! | out[1]! | out[2]! | out[3]! | out[4]!) && out[5] === 0xffff;
  return mapped ? 4 : 6;
}

function ipv4(text: string, out: Uint16Array, at: number): boolean {
  const parts = text.split('.');
  if (parts.length !== 4) return false;
  const bytes = parts.map((p) => (/^(?:0|[1-9]\d{0,2})$/.test(p) ? Number(p) : 256));
  if (bytes.some((b) => b > 255)) return false;
  out[at] = (bytes[0]! << 8) | bytes[1]!;
  out[at + 1] = (bytes[2]! << 8) | bytes[3]!;
  return true;
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
  if (!family) return undefined;
  const max = family === 4 ? 32 : 128;
  const suffix = slash < 0 ? String(max) : text.slice(slash + 1);
  if (!/^(?:0|[1-9]\d{0,2})$/.test(suffix) || Number(suffix) > max) return undefined;
  return { family, groups, bits: Number(suffix) };
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
