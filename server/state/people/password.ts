/**
 * Passwords of the dashboard's people (`docs/protocol.md` §10.2, "people"): hashed with scrypt at
 * OWASP's parameters (N = 2^17, r = 8, p = 1, a 32-byte key, a 16-byte random salt) and kept as
 * one self-describing string, `scrypt$N=131072,r=8,p=1$<salt>$<hash>` (base64url, no padding).
 * Passwords are hashed in Unicode NFC, so the same characters typed on another system match.
 * The parameters travel with the hash, so raising them later still verifies every older hash;
 * `needsRehash` tells which to replace at the next sign-in. Hashing runs on libuv's pool (the
 * async `scrypt`, never the sync one): about 128 MiB and 0.2 to 1 s of one core each, off the
 * event loop. An unknown account costs the same work as a wrong password: `verifyPassword` with
 * no stored hash (or a damaged one) still runs one scrypt at the current parameters, so the time
 * of an answer does not tell which e-mail addresses have an account.
 */
import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: ScryptOptions,
) => Promise<Buffer>;

/** The parameters new hashes are made with (OWASP's scrypt recommendation). */
export const PASSWORD_PARAMS: Readonly<{
  N: number;
  r: number;
  p: number;
  keyLength: number;
  saltBytes: number;
}> = Object.freeze({ N: 2 ** 17, r: 8, p: 1, keyLength: 32, saltBytes: 16 });

/** Shortest and longest password accepted, in characters (Unicode code points). */
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 1024;

/**
 * Node's scrypt refuses more than 32 MiB by default; N = 2^17, r = 8 needs 128 * N * r = 128 MiB.
 * A stored hash whose parameters need more than half of this is refused as damaged rather than
 * run (one bad row must not take a gigabyte, or minutes, per sign-in).
 */
const MAX_MEMORY = 256 * 1024 * 1024;
const MAX_P = 16;

interface Parsed {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  hash: Buffer;
}

const FORM = /^scrypt\$N=(\d{1,10}),r=(\d{1,3}),p=(\d{1,3})\$([A-Za-z0-9_-]{11,88})\$([A-Za-z0-9_-]{22,88})$/;

/** Strict base64url: what decodes must encode back to the same text. */
function base64url(text: string): Buffer | undefined {
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : undefined;
}

/** A stored hash's parts, or `undefined` when it is not one this module can run. */
function parse(stored: string): Parsed | undefined {
  const match = FORM.exec(stored);
  if (!match) return undefined;
  const [N, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const salt = base64url(match[4]!);
  const hash = base64url(match[5]!);
  if (!salt || !hash || salt.length < 8 || hash.length < 16) return undefined;
  const powerOfTwo = N >= 2 && (N & (N - 1)) === 0;
  if (!powerOfTwo || r < 1 || p < 1 || p > MAX_P || 128 * N * r > MAX_MEMORY / 2) return undefined;
  return { N, r, p, salt, hash };
}

function derive(password: string, salt: Buffer, keyLength: number, N: number, r: number, p: number) {
  return scryptAsync(password.normalize('NFC'), salt, keyLength, { N, r, p, maxmem: MAX_MEMORY });
}

/** Stands in for a stored hash when there is none, so the work done is the same. */
const DUMMY_SALT = Buffer.alloc(PASSWORD_PARAMS.saltBytes, 0x5a);
const DUMMY_HASH = Buffer.alloc(PASSWORD_PARAMS.keyLength);

/** Characters as people count them (code points, so an emoji is one), not UTF-16 units. */
function characters(text: string): number {
  // Each code point is one or two UTF-16 units: no need to walk a string far too long.
  if (text.length > 2 * MAX_PASSWORD_LENGTH) return text.length;
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** Why `password` cannot be set, or `undefined` when it can. */
export function passwordProblem(password: unknown): string | undefined {
  if (typeof password !== 'string') return 'must be a string';
  const length = characters(password);
  if (length < MIN_PASSWORD_LENGTH) return `must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (length > MAX_PASSWORD_LENGTH) return `must be at most ${MAX_PASSWORD_LENGTH} characters`;
  return undefined;
}

/**
 * The stored form of a new password, with a fresh salt. Throws a `RangeError` for a password
 * `passwordProblem` refuses: check it first to answer the person.
 */
export async function hashPassword(password: string): Promise<string> {
  const problem = passwordProblem(password);
  if (problem) throw new RangeError(`password ${problem}`);
  const { N, r, p, keyLength, saltBytes } = PASSWORD_PARAMS;
  const salt = randomBytes(saltBytes);
  const hash = await derive(password, salt, keyLength, N, r, p);
  return `scrypt$N=${N},r=${r},p=${p}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

/**
 * Whether `password` is the one `stored` was made from, in constant time, at the parameters
 * `stored` names. With no stored hash (an unknown account) or a damaged one it runs one scrypt
 * at the current parameters all the same, and answers false.
 */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parsed = typeof stored === 'string' ? parse(stored) : undefined;
  const given = typeof password === 'string' ? password : '';
  if (!parsed || given !== password) {
    const { N, r, p, keyLength } = PASSWORD_PARAMS;
    const key = await derive(given, DUMMY_SALT, keyLength, N, r, p);
    timingSafeEqual(key, DUMMY_HASH);
    return false;
  }
  const { N, r, p, salt, hash } = parsed;
  const key = await derive(password, salt, hash.length, N, r, p);
  return timingSafeEqual(key, hash);
}

/**
 * Whether `stored` was made with less than the current parameters (or cannot be read at all),
 * so that it should be replaced by `hashPassword` the next time the password is at hand.
 */
export function needsRehash(stored: string): boolean {
  const parsed = parse(stored);
  if (!parsed) return true;
  const current = PASSWORD_PARAMS;
  return (
    parsed.N < current.N ||
    parsed.r < current.r ||
    parsed.p < current.p ||
    parsed.hash.length < current.keyLength ||
    parsed.salt.length < current.saltBytes
  );
}
