/**
 * MurmurHash3 x86 32-bit (Austin Appleby, SMHasher `MurmurHash3_x86_32`) over the UTF-8
 * bytes of a JavaScript string. Pure and runtime-neutral (no `node:` import, no `Buffer`):
 * the SDK evaluates it on every `isEnabled` call, allocating nothing for ASCII keys.
 *
 * ASCII is hashed straight from the string; from its first other character on, the string is
 * encoded by WHATWG `TextEncoder`: surrogate pairs become one 4-byte sequence, and a lone
 * surrogate becomes U+FFFD (`EF BF BD`). Golden values: `test/vectors/bucketing.json`.
 */

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

/** Scrambles the 4-byte little-endian block `k`. */
function mix(k: number): number {
  k = Math.imul(k, C1);
  return Math.imul((k << 15) | (k >>> 17), C2);
}

/** One body round: mixes the block `k` into the state `h`. */
function round(h: number, k: number): number {
  h ^= mix(k);
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** The state a partial {@link hash} leaves: module scratch, so that no object is allocated. */
let H = 0;
let K = 0;
let SHIFT = 0;
let LENGTH = 0;
/** Made on first use: nothing runs when the module loads. */
let encoder: TextEncoder | undefined;

/**
 * Hashes the UTF-8 bytes of `text`, continuing from the state `h, k, shift, length` (a fresh
 * hash: `seed, 0, 0, 0`). With a `modulus`, returns the hash (unsigned) modulo `modulus`;
 * without, leaves the state in `H, K, SHIFT, LENGTH` to continue from.
 */
function hash(
  text: string,
  h: number,
  k: number, // pending bytes of the current block, little-endian
  shift: number, // bits pending in `k`: 0, 8, 16 or 24
  length: number, // total bytes hashed
  modulus?: number,
): number {
  h |= 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x7f) {
      // Not ASCII (rare in keys): the rest as `TextEncoder` encodes it, one byte at a time.
      encoder ??= new TextEncoder();
      for (const byte of encoder.encode(text.slice(i))) {
        k |= byte << shift;
        length++;
        shift += 8;
        if (shift === 32) {
          h = round(h, k);
          k = shift = 0;
        }
      }
      break;
    }
    k |= c << shift;
    length++;
    shift += 8;
    if (shift === 32) {
      h = round(h, k);
      k = shift = 0;
    }
  }
  if (!modulus) {
    H = h;
    K = k;
    SHIFT = shift;
    LENGTH = length;
    return 0;
  }
  // Tail: the 1..3 pending bytes.
  if (shift !== 0) h ^= mix(k);
  // Finalization mix (fmix32).
  h ^= length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  // Reduced here: `hash` is too large to inline, and an unsigned result >= 2^31 would be boxed
  // as a heap number on its way out; a bucket (modulo 100 or 100,000) is a small integer.
  return (h >>> 0) % modulus;
}

/**
 * MurmurHash3 x86 32-bit of the UTF-8 bytes of `text`.
 *
 * @param text - Hashed as UTF-8; a lone surrogate counts as U+FFFD, as `TextEncoder` encodes it.
 * @param seed - 32-bit seed; defaults to 0, the seed of rollout bucketing.
 * @returns The hash as an unsigned 32-bit integer (0 to 4,294,967,295).
 * @example
 * murmur3('hello'); // 613153351
 */
export function murmur3(text: string, seed = 0): number {
  return hash(text, seed, 0, 0, 0, 2 ** 32);
}

/**
 * MurmurHash3 x86 32-bit, seed 0, of the UTF-8 bytes of `flagKey + ':' + userKey`,
 * computed without building the joined string: for ASCII keys, evaluation allocates nothing.
 *
 * @param flagKey - The flag key, the part before `:`.
 * @param userKey - The user key, the part after `:`.
 * @returns The same unsigned 32-bit integer as `murmur3(flagKey + ':' + userKey)`.
 */
export function murmur3Pair(flagKey: string, userKey: string): number {
  hash(flagKey, 0, 0, 0, 0);
  hash(':', H, K, SHIFT, LENGTH);
  return hash(userKey, H, K, SHIFT, LENGTH, 2 ** 32);
}

/** The state of a seed-0 hash after some bytes, to continue with {@link murmur3Continue}. */
export interface Murmur3Prefix {
  readonly h: number;
  readonly k: number;
  readonly shift: number;
  readonly length: number;
}

/**
 * The hash state after the UTF-8 bytes of `prefix` (e.g. `flagKey + ':'`), computed once
 * per flag so that evaluation hashes only the user key.
 */
export function murmur3Prefix(prefix: string): Murmur3Prefix {
  hash(prefix, 0, 0, 0, 0);
  return { h: H, k: K, shift: SHIFT, length: LENGTH };
}

/**
 * The same as `murmur3(prefixText + text) % modulus`, given `murmur3Prefix(prefixText)`.
 * Allocates nothing for ASCII `text` and a `modulus` up to 2^30 (a bucket).
 */
export function murmur3Continue(prefix: Murmur3Prefix, text: string, modulus = 2 ** 32): number {
  return hash(text, prefix.h, prefix.k, prefix.shift, prefix.length, modulus);
}
