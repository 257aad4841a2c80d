/**
 * MurmurHash3 x86 32-bit (Austin Appleby, SMHasher `MurmurHash3_x86_32`) over the UTF-8
 * bytes of a JavaScript string. Pure, allocation-free and runtime-neutral (no `node:`
 * import, no `TextEncoder`, no `Buffer`): the SDK evaluates it on every `isEnabled` call.
 *
 * The string is encoded to UTF-8 inside the hash loop, exactly as WHATWG `TextEncoder`
 * would: surrogate pairs become one 4-byte sequence, and a lone surrogate becomes U+FFFD
 * (`EF BF BD`). Golden values: `test/vectors/bucketing.json`.
 */

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;
/** The byte `:` that joins the two keys in {@link murmur3Pair}. */
const COLON = 0x3a;

/** One body round: mixes the 4-byte little-endian block `k` into the state `h`. */
function round(h: number, k: number): number {
  k = Math.imul(k, C1);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, C2);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/**
 * Hashes `first`, then (when `joined`) the byte `:` and `second`, as one UTF-8 byte stream,
 * continuing from the state `h, k, shift, length` (a fresh hash: `seed, 0, 0, 0`), and
 * finishes. A single loop over both strings keeps the whole state in locals.
 */
function hash(
  first: string,
  second: string,
  joined: boolean,
  h: number,
  k: number, // pending bytes of the current block, little-endian
  shift: number, // bits pending in `k`: 0, 8, 16 or 24
  length: number, // total bytes hashed
): number {
  h |= 0;
  let text = first;
  for (;;) {
    const n = text.length;
    let i = 0;
    while (i < n) {
      let c = text.charCodeAt(i);
      if (c < 0x80 && i + 3 < n) {
        // Fast path: four ASCII characters are four bytes, so `shift` is unchanged.
        const c1 = text.charCodeAt(i + 1);
        const c2 = text.charCodeAt(i + 2);
        const c3 = text.charCodeAt(i + 3);
        if ((c1 | c2 | c3) < 0x80) {
          const w = c | (c1 << 8) | (c2 << 16) | (c3 << 24);
          h = round(h, k | (w << shift));
          k = shift === 0 ? 0 : w >>> (32 - shift);
          i += 4;
          length += 4;
          continue;
        }
      }
      i++;
      // Encode one code point as `bytes` UTF-8 bytes packed little-endian in `w`.
      let w: number;
      let bytes: number;
      if (c < 0x80) {
        w = c;
        bytes = 1;
      } else if (c < 0x800) {
        w = 0xc0 | (c >>> 6) | ((0x80 | (c & 0x3f)) << 8);
        bytes = 2;
      } else {
        if (c >= 0xd800 && c <= 0xdfff) {
          const next = i < n ? text.charCodeAt(i) : 0;
          if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
            i++;
            c = ((c - 0xd800) << 10) + (next - 0xdc00) + 0x10000;
          } else {
            c = 0xfffd; // lone surrogate, as TextEncoder
          }
        }
        if (c < 0x10000) {
          w = 0xe0 | (c >>> 12) | ((0x80 | ((c >>> 6) & 0x3f)) << 8) | ((0x80 | (c & 0x3f)) << 16);
          bytes = 3;
        } else {
          w =
            0xf0 |
            (c >>> 18) |
            ((0x80 | ((c >>> 12) & 0x3f)) << 8) |
            ((0x80 | ((c >>> 6) & 0x3f)) << 16) |
            ((0x80 | (c & 0x3f)) << 24);
          bytes = 4;
        }
      }
      length += bytes;
      k |= w << shift;
      shift += bytes << 3;
      if (shift >= 32) {
        h = round(h, k);
        shift -= 32;
        // The bytes of `w` that did not fit in the finished block start the next one.
        k = shift === 0 ? 0 : w >>> ((bytes << 3) - shift);
      }
    }
    if (!joined) break;
    joined = false;
    length += 1;
    k |= COLON << shift;
    shift += 8;
    if (shift === 32) {
      h = round(h, k);
      k = 0;
      shift = 0;
    }
    text = second;
  }
  // Tail: the 1..3 pending bytes.
  if (shift !== 0) {
    k = Math.imul(k, C1);
    k = (k << 15) | (k >>> 17);
    h ^= Math.imul(k, C2);
  }
  // Finalization mix (fmix32).
  h ^= length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  // Signed: `hash` is too large to inline, and an unsigned result >= 2^31 would be boxed
  // as a heap number on its way out. The small callers below make it unsigned.
  return h;
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
  return hash(text, '', false, seed, 0, 0, 0) >>> 0;
}

/**
 * MurmurHash3 x86 32-bit, seed 0, of the UTF-8 bytes of `flagKey + ':' + userKey`,
 * computed without building the joined string: evaluation allocates nothing.
 *
 * @param flagKey - The flag key, the part before `:`.
 * @param userKey - The user key, the part after `:`.
 * @returns The same unsigned 32-bit integer as `murmur3(flagKey + ':' + userKey)`.
 */
export function murmur3Pair(flagKey: string, userKey: string): number {
  return hash(flagKey, userKey, true, 0, 0, 0, 0) >>> 0;
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
  let h = 0;
  let k = 0;
  let shift = 0;
  const bytes = new TextEncoder().encode(prefix);
  for (const byte of bytes) {
    k |= byte << shift;
    shift += 8;
    if (shift === 32) {
      h = round(h, k);
      k = 0;
      shift = 0;
    }
  }
  return { h, k, shift, length: bytes.length };
}

/** The same as `murmur3(prefixText + text)`, given `murmur3Prefix(prefixText)`. Allocates nothing. */
export function murmur3Continue(prefix: Murmur3Prefix, text: string): number {
  return hash(text, '', false, prefix.h, prefix.k, prefix.shift, prefix.length) >>> 0;
}
