/**
 * Passwords of the dashboard's people (`server/state/people/password.ts`): the stored form, what
 * verifies and what does not, old parameters, and that an unknown account costs the same scrypt
 * as a wrong password (shown by the parameters scrypt is called with, not by timing). Each real
 * scrypt at the current parameters takes most of a second here, so there are few of them.
 */
import { type ScryptOptions, scryptSync } from 'node:crypto';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  hashPassword,
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
  needsRehash,
  PASSWORD_PARAMS,
  passwordProblem,
  verifyPassword,
} from '../../../server/state/people/password.js';

/** The options of every scrypt the module runs, in order. */
const scryptCalls = vi.hoisted(() => [] as Array<ScryptOptions & { keylen: number }>);

vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  const scrypt = (...args: Parameters<typeof actual.scrypt>) => {
    const [, , keylen, options] = args;
    if (typeof options === 'object') scryptCalls.push({ ...options, keylen });
    return (actual.scrypt as (...a: unknown[]) => void)(...args);
  };
  return { ...actual, scrypt, default: { ...actual, scrypt } };
});

const PASSWORD = 'correct horse battery staple';

/** A stored hash made the way an older release would have, at lower parameters. */
function storedAt(password: string, N: number, r: number, p: number): string {
  const salt = Buffer.from('sixteen byte slt');
  const hash = scryptSync(password, salt, 32, { N, r, p });
  return `scrypt$N=${N},r=${r},p=${p}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

describe('hashPassword and verifyPassword', () => {
  let stored: string;
  let again: string;

  beforeAll(async () => {
    stored = await hashPassword(PASSWORD);
    again = await hashPassword(PASSWORD);
  });
  beforeEach(() => {
    scryptCalls.length = 0;
  });

  it('stores the parameters, a 16-byte salt and a 32-byte key', () => {
    expect(PASSWORD_PARAMS).toEqual({ N: 131072, r: 8, p: 1, keyLength: 32, saltBytes: 16 });
    const match = /^scrypt\$N=131072,r=8,p=1\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/.exec(stored);
    expect(match).not.toBeNull();
    expect(Buffer.from(match![1]!, 'base64url')).toHaveLength(16);
    expect(Buffer.from(match![2]!, 'base64url')).toHaveLength(32);
    expect(needsRehash(stored)).toBe(false);
  });

  it('verifies the right password, against either salt, and refuses a wrong one', async () => {
    expect(again.split('$')[2]).not.toBe(stored.split('$')[2]);
    expect(await verifyPassword(PASSWORD, stored)).toBe(true);
    expect(await verifyPassword(PASSWORD, again)).toBe(true);
    expect(await verifyPassword(`${PASSWORD}!`, stored)).toBe(false);
    expect(scryptCalls).toHaveLength(3);
    for (const call of scryptCalls) expect(call).toMatchObject({ N: 131072, r: 8, p: 1, keylen: 32 });
  });

  it('refuses without a stored hash, or with a damaged one, after the same scrypt as a real check', async () => {
    const damaged = [
      stored.replace('scrypt$', 'bcrypt$'),
      stored.replace('N=131072', 'N=131071'),
      stored.slice(0, -4),
      `${stored}$`,
      '',
    ];
    expect(await verifyPassword(PASSWORD, null)).toBe(false);
    expect(await verifyPassword(PASSWORD, damaged[0]!)).toBe(false);
    expect(scryptCalls).toEqual([
      expect.objectContaining({ N: 131072, r: 8, p: 1, keylen: 32 }),
      expect.objectContaining({ N: 131072, r: 8, p: 1, keylen: 32 }),
    ]);
    // The rest are told apart by parsing alone; each needs a rehash (it cannot even be checked).
    for (const text of damaged) expect(needsRehash(text)).toBe(true);
  });

  it('verifies a hash made at lower parameters, at those parameters, and asks for a rehash', async () => {
    const old = storedAt(PASSWORD, 2 ** 14, 8, 1);
    expect(await verifyPassword(PASSWORD, old)).toBe(true);
    expect(await verifyPassword('not the password', old)).toBe(false);
    expect(scryptCalls.map(({ N }) => N)).toEqual([2 ** 14, 2 ** 14]);
    expect(needsRehash(old)).toBe(true);
    const [, , salt, hash] = stored.split('$');
    expect(needsRehash(`scrypt$N=131072,r=4,p=1$${salt}$${hash}`)).toBe(true);
    expect(needsRehash(`scrypt$N=131072,r=8,p=1$${salt}$${hash!.slice(0, 22)}`)).toBe(true); // 16-byte key
  });

  it('refuses to hash a password passwordProblem refuses', async () => {
    await expect(hashPassword('too short')).rejects.toThrow(RangeError);
    expect(scryptCalls).toEqual([]);
  });
});

describe('passwordProblem', () => {
  it('counts characters as code points, between the bounds', () => {
    expect(MIN_PASSWORD_LENGTH).toBe(12);
    expect(MAX_PASSWORD_LENGTH).toBe(1024);
    expect(passwordProblem('a'.repeat(11))).toBe('must be at least 12 characters');
    expect(passwordProblem('a'.repeat(12))).toBeUndefined();
    // Six emoji are twelve UTF-16 units but six characters; twelve are enough.
    expect('🔑'.repeat(6)).toHaveLength(12);
    expect(passwordProblem('🔑'.repeat(6))).toBe('must be at least 12 characters');
    expect(passwordProblem('🔑'.repeat(12))).toBeUndefined();
    expect(passwordProblem('🔑'.repeat(1024))).toBeUndefined();
    expect(passwordProblem('a'.repeat(1024))).toBeUndefined();
    expect(passwordProblem('a'.repeat(1025))).toBe('must be at most 1024 characters');
    expect(passwordProblem('🔑'.repeat(1025))).toBe('must be at most 1024 characters');
  });

  it('refuses what is not a string', () => {
    for (const value of [undefined, null, 123456789012, ['a'.repeat(12)], { length: 12 }])
      expect(passwordProblem(value)).toBe('must be a string');
  });
});
