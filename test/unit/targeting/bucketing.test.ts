import { readFileSync } from 'node:fs';
import murmurhash from 'murmurhash';
import { describe, expect, it } from 'vitest';
import { bucketOf, isInRollout } from '../../../src/core/bucketing.js';
import { murmur3, murmur3Continue, murmur3Pair, murmur3Prefix } from '../../../src/core/murmur3.js';

interface Vector {
  flagKey: string;
  userKey: string;
  input: string;
  utf8: string;
  hash: number;
  bucket: number;
}

const { vectors } = JSON.parse(
  readFileSync(new URL('../../vectors/bucketing.json', import.meta.url), 'utf8'),
) as { vectors: Vector[] };

const encoder = new TextEncoder();

/** Straightforward SMHasher MurmurHash3_x86_32 over a byte array: the reference the fast one must match. */
function referenceMurmur3(bytes: Uint8Array, seed = 0): number {
  const rotl = (x: number, r: number): number => (x << r) | (x >>> (32 - r));
  const len = bytes.length;
  const nblocks = len >>> 2;
  let h1 = seed | 0;
  for (let i = 0; i < nblocks; i++) {
    const o = i * 4;
    let k1 = bytes[o]! | (bytes[o + 1]! << 8) | (bytes[o + 2]! << 16) | (bytes[o + 3]! << 24);
    k1 = Math.imul(rotl(Math.imul(k1, 0xcc9e2d51), 15), 0x1b873593);
    h1 = rotl(h1 ^ k1, 13);
    h1 = (Math.imul(h1, 5) + 0xe6546b64) | 0;
  }
  const tail = nblocks * 4;
  let k1 = 0;
  for (let j = (len & 3) - 1; j >= 0; j--) k1 ^= bytes[tail + j]! << (8 * j);
  if ((len & 3) !== 0) h1 ^= Math.imul(rotl(Math.imul(k1, 0xcc9e2d51), 15), 0x1b873593);
  h1 ^= len;
  h1 ^= h1 >>> 16;
  h1 = Math.imul(h1, 0x85ebca6b);
  h1 ^= h1 >>> 13;
  h1 = Math.imul(h1, 0xc2b2ae35);
  h1 ^= h1 >>> 16;
  return h1 >>> 0;
}

/** mulberry32: a tiny seeded PRNG, so the random cases are the same on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random string of 0..40 UTF-16 code units mixing every UTF-8 length and lone surrogates. */
function randomString(random: () => number): string {
  const int = (lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));
  const length = int(0, 40);
  let s = '';
  while (s.length < length) {
    const kind = random();
    if (kind < 0.35) s += String.fromCharCode(int(0x20, 0x7e));
    else if (kind < 0.45) s += String.fromCharCode(int(0, 0x7f));
    else if (kind < 0.55) s += String.fromCharCode(int(0x80, 0x7ff));
    else if (kind < 0.65) s += String.fromCharCode(int(0x800, 0xd7ff));
    else if (kind < 0.7) s += String.fromCharCode(int(0xe000, 0xffff));
    else if (kind < 0.82) s += String.fromCodePoint(int(0x10000, 0x10ffff));
    else if (kind < 0.9)
      s += String.fromCharCode(int(0xd800, 0xdbff)); // lone high (unless a low follows)
    else s += String.fromCharCode(int(0xdc00, 0xdfff)); // lone low (unless a high precedes)
  }
  return s;
}

describe('published vectors (test/vectors/bucketing.json)', () => {
  it('holds enough vectors, covering every tail length and multi-byte UTF-8', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(40);
    const lengths = new Set(vectors.map((v) => (v.utf8.length / 2) % 4));
    expect([...lengths].sort()).toEqual([0, 1, 2, 3]);
    expect(vectors.some((v) => /[\u{10000}-\u{10ffff}]/u.test(v.input))).toBe(true);
    expect(vectors.some((v) => v.hash > 0x7fffffff)).toBe(true);
  });

  it.each(vectors)('murmur3($input) = $hash', (v) => {
    expect(v.input).toBe(`${v.flagKey}:${v.userKey}`);
    expect(Buffer.from(encoder.encode(v.input)).toString('hex')).toBe(v.utf8);
    expect(referenceMurmur3(encoder.encode(v.input))).toBe(v.hash);
    expect(murmur3(v.input)).toBe(v.hash);
    expect(murmur3Pair(v.flagKey, v.userKey)).toBe(v.hash);
  });

  it.each(vectors)('bucketOf($flagKey, $userKey) = $bucket', (v) => {
    expect(v.bucket).toBe((v.hash % 100) + 1);
    expect(bucketOf(v.flagKey, v.userKey)).toBe(v.bucket);
  });
});

describe('murmur3', () => {
  it('gives the well-known check values', () => {
    expect(murmur3('')).toBe(0);
    expect(murmur3('hello')).toBe(613153351);
    expect(murmur3('The quick brown fox jumps over the lazy dog')).toBe(776992547);
    expect(murmur3('', 1)).toBe(1364076727);
    expect(murmur3('', 0xffffffff)).toBe(2180083513);
    expect(murmur3('Hello, world!', 0x9747b28c)).toBe(612912314);
  });

  it('encodes lone surrogates as U+FFFD, like TextEncoder', () => {
    const replacement = murmur3('new-checkout:\ufffd');
    expect(murmur3('new-checkout:\ud800')).toBe(replacement);
    expect(murmur3('new-checkout:\udfff')).toBe(replacement);
    expect(murmur3Pair('new-checkout', '\udbff')).toBe(replacement);
    expect(murmur3Pair('new-checkout', '\udc00')).toBe(replacement);
    // A high surrogate before the ':' never pairs with a low surrogate after it.
    expect(murmur3Pair('a\ud83d', '\ude00')).toBe(murmur3('a\ufffd:\ufffd'));
    // Reversed pair, and a high surrogate followed by a full pair.
    expect(murmur3('\ude00\ud83d')).toBe(murmur3('\ufffd\ufffd'));
    expect(murmur3('\ud800\ud83d\ude00')).toBe(murmur3('\ufffd\u{1f600}'));
  });

  it('agrees with TextEncoder + a byte-array reference on 2,000 random strings', () => {
    const random = prng(0x5eed);
    for (let n = 0; n < 2000; n++) {
      const flagKey = n % 4 === 0 ? randomString(random) : `flag-${n}`;
      const userKey = randomString(random);
      const joined = `${flagKey}:${userKey}`;
      const expected = referenceMurmur3(encoder.encode(joined));
      expect(murmur3(joined), JSON.stringify(joined)).toBe(expected);
      expect(murmur3Pair(flagKey, userKey), JSON.stringify(joined)).toBe(expected);
      const seed = Math.floor(random() * 4294967296);
      expect(murmur3(userKey, seed), JSON.stringify(userKey)).toBe(
        referenceMurmur3(encoder.encode(userKey), seed),
      );
    }
  });

  it('returns an unsigned 32-bit integer', () => {
    for (let n = 0; n < 1000; n++) {
      const h = murmur3Pair('flag', `user-${n}`);
      expect(Number.isInteger(h) && h >= 0 && h <= 0xffffffff).toBe(true);
    }
  });
});

describe('bucketOf distribution', () => {
  it('spreads 100,000 sequential keys evenly over the 100 buckets', () => {
    const users = 100_000;
    const counts = new Array<number>(101).fill(0);
    for (let n = 0; n < users; n++) {
      const bucket = bucketOf('new-checkout', `user-${n}`);
      counts[bucket] = (counts[bucket] ?? 0) + 1;
    }
    expect(counts[0]).toBe(0);
    const expected = users / 100;
    const sigma = Math.sqrt(users * 0.01 * 0.99);
    let chiSquare = 0;
    for (let bucket = 1; bucket <= 100; bucket++) {
      const count = counts[bucket] ?? 0;
      expect(Math.abs(count - expected), `bucket ${bucket}: ${count}`).toBeLessThan(5 * sigma);
      chiSquare += (count - expected) ** 2 / expected;
    }
    // 99 degrees of freedom: P(chi-square > 160) is about 1e-4.
    expect(chiSquare).toBeLessThan(160);
  });
});

describe('isInRollout', () => {
  const bucketOne = vectors.find((v) => v.bucket === 1 && v.userKey !== '');
  const bucketHundred = vectors.find((v) => v.bucket === 100 && v.userKey !== '');

  it('includes everyone at 100 %, also users without a key', () => {
    expect(bucketHundred).toBeDefined();
    expect(isInRollout(bucketHundred!.flagKey, bucketHundred!.userKey, 100)).toBe(true);
    expect(isInRollout('new-checkout', undefined, 100)).toBe(true);
    expect(isInRollout('new-checkout', null, 100)).toBe(true);
    expect(isInRollout('new-checkout', '', 100)).toBe(true);
    expect(isInRollout('new-checkout', 'user-42', 150)).toBe(true);
  });

  it('includes no one at 0 % (or below, or NaN)', () => {
    expect(bucketOne).toBeDefined();
    for (const percentage of [0, -1, -100, Number.NaN]) {
      expect(isInRollout(bucketOne!.flagKey, bucketOne!.userKey, percentage)).toBe(false);
      expect(isInRollout('new-checkout', undefined, percentage)).toBe(false);
    }
  });

  it('puts bucket 1 in at 1 % and bucket 100 out at 99 %', () => {
    expect(isInRollout(bucketOne!.flagKey, bucketOne!.userKey, 1)).toBe(true);
    expect(isInRollout(bucketHundred!.flagKey, bucketHundred!.userKey, 99)).toBe(false);
  });

  it('leaves a user without a key (undefined, null, empty string, not a string) out below 100 %', () => {
    for (const percentage of [1, 50, 99]) {
      expect(isInRollout('new-checkout', undefined, percentage)).toBe(false);
      expect(isInRollout('new-checkout', null, percentage)).toBe(false);
      expect(isInRollout('new-checkout', '', percentage)).toBe(false);
      expect(isInRollout('new-checkout', 42 as unknown as string, percentage)).toBe(false);
    }
  });

  it('follows the published buckets', () => {
    for (const v of vectors) {
      if (v.userKey === '') continue;
      expect(isInRollout(v.flagKey, v.userKey, v.bucket)).toBe(true);
      expect(isInRollout(v.flagKey, v.userKey, v.bucket - 1)).toBe(false);
    }
  });

  it('is monotonic: raising the percentage never removes a user (10,000 users x 0..100)', () => {
    const problems: string[] = [];
    for (let n = 0; n < 10_000; n++) {
      const userKey = `user-${n}`;
      const bucket = bucketOf('new-checkout', userKey);
      let wasIn = false;
      for (let percentage = 0; percentage <= 100; percentage++) {
        const isIn = isInRollout('new-checkout', userKey, percentage);
        if (wasIn && !isIn) problems.push(`${userKey} left the rollout at ${percentage} %`);
        if (isIn !== bucket <= percentage)
          problems.push(`${userKey} (bucket ${bucket}) wrong at ${percentage} %`);
        wasIn = isIn;
      }
      if (!wasIn) problems.push(`${userKey} out at 100 %`);
    }
    expect(problems).toEqual([]);
  });

  it('includes about the percentage asked for', () => {
    const users = 100_000;
    for (const percentage of [1, 10, 25, 50, 75, 99]) {
      let included = 0;
      for (let n = 0; n < users; n++) if (isInRollout('search-v2', `user-${n}`, percentage)) included++;
      const p = percentage / 100;
      const sigma = Math.sqrt(users * p * (1 - p));
      expect(Math.abs(included - users * p), `${percentage} %: ${included}`).toBeLessThan(5 * sigma);
    }
  });

  it('is independent across flags: 50 % of A and 50 % of B overlap on about 25 %', () => {
    const users = 100_000;
    const pairs: [string, string][] = [
      ['flag-a', 'flag-b'],
      ['new-checkout', 'new-checkout-v2'],
      ['dark-mode', 'search-v2'],
    ];
    for (const [a, b] of pairs) {
      let inA = 0;
      let inB = 0;
      let inBoth = 0;
      for (let n = 0; n < users; n++) {
        const userKey = `user-${n}`;
        const x = isInRollout(a, userKey, 50);
        const y = isInRollout(b, userKey, 50);
        if (x) inA++;
        if (y) inB++;
        if (x && y) inBoth++;
      }
      const bound = (p: number): number => 5 * Math.sqrt(users * p * (1 - p));
      expect(Math.abs(inA - users / 2), `${a}: ${inA}`).toBeLessThan(bound(0.5));
      expect(Math.abs(inB - users / 2), `${b}: ${inB}`).toBeLessThan(bound(0.5));
      expect(Math.abs(inBoth - users / 4), `${a} and ${b}: ${inBoth}`).toBeLessThan(bound(0.25));
    }
  });
});

describe('agreement with the murmurhash package', () => {
  it('gives the same hash as murmurhash.v3 (which hashes UTF-8 bytes) on every vector', () => {
    for (const v of vectors) expect(murmurhash.v3(v.input, 0), v.input).toBe(v.hash);
  });
});

describe('murmur3Prefix / murmur3Continue', () => {
  it('continues a precomputed flagKey + ":" state to the same hash on every vector', () => {
    for (const v of vectors) {
      expect(murmur3Continue(murmur3Prefix(`${v.flagKey}:`), v.userKey), v.input).toBe(v.hash);
    }
  });

  it('decides rollouts the same with and without the prefix', () => {
    const prefix = murmur3Prefix('checkout:');
    for (let i = 0; i < 2000; i++) {
      const user = `user-${i}-é`;
      for (const p of [1, 33, 50, 99]) {
        expect(isInRollout('checkout', user, p, prefix)).toBe(isInRollout('checkout', user, p));
      }
    }
  });
});
