/**
 * SHA-256 (FIPS 180-4) over bytes, in plain JavaScript: no `Buffer`, no `crypto.subtle`, no
 * `node:` import, so it runs synchronously in browsers, Deno, Bun and edge workers. It backs
 * the webhook HMAC outside Node (`hmac-web.ts`); on Node, `node:crypto` does the work.
 *
 * The state is eight 32-bit words in an `Int32Array`. {@link sha256Blocks} absorbs whole
 * 64-byte blocks, {@link sha256Final} absorbs the rest of a message and its padding, so HMAC
 * can hash `key ^ ipad || message` without copying the message next to the pad.
 */

/** Bytes in one SHA-256 block. */
export const SHA256_BLOCK_BYTES = 64;
/** Bytes in a SHA-256 digest. */
export const SHA256_DIGEST_BYTES = 32;

/** Round constants: the first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
const K = /* @__PURE__ */ new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

/** Initial hash value: the first 32 bits of the fractional parts of the square roots of the first 8 primes. */
const IV = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

/** Message schedule, reused by every block (hashing is synchronous, so nothing interleaves). */
const W = /* @__PURE__ */ new Int32Array(64);
/** The last one or two blocks of a message: its tail bytes, `0x80`, zeros and the bit length. */
const TAIL = /* @__PURE__ */ new Uint8Array(128); // two blocks

/** A fresh state holding the initial hash value. */
export function sha256Init(): Int32Array {
  return Int32Array.from(IV);
}

/**
 * Absorbs the whole blocks of `data[offset, offset + length)` into `state`: `length` is
 * rounded down to a multiple of 64, and the number of bytes absorbed is returned.
 */
export function sha256Blocks(state: Int32Array, data: Uint8Array, offset: number, length: number): number {
  const w = W;
  const k = K;
  let h0 = state[0]!;
  let h1 = state[1]!;
  let h2 = state[2]!;
  let h3 = state[3]!;
  let h4 = state[4]!;
  let h5 = state[5]!;
  let h6 = state[6]!;
  let h7 = state[7]!;
  let pos = offset;
  const end = offset + (length - (length % SHA256_BLOCK_BYTES));
  while (pos < end) {
    for (let i = 0; i < 16; i++, pos += 4) {
      w[i] = (data[pos]! << 24) | (data[pos + 1]! << 16) | (data[pos + 2]! << 8) | data[pos + 3]!;
    }
    for (let i = 16; i < 64; i++) {
      const x = w[i - 15]!;
      const y = w[i - 2]!;
      const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
      const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
      w[i] = (s1 + w[i - 7]! + s0 + w[i - 16]!) | 0;
    }
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    let f = h5;
    let g = h6;
    let h = h7;
    for (let i = 0; i < 64; i++) {
      const t1 =
        (h +
          (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) +
          (g ^ (e & (f ^ g))) +
          k[i]! +
          w[i]!) |
        0;
      const t2 =
        ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) +
          ((a & b) | (c & (a | b)))) |
        0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
    h5 = (h5 + f) | 0;
    h6 = (h6 + g) | 0;
    h7 = (h7 + h) | 0;
  }
  state[0] = h0;
  state[1] = h1;
  state[2] = h2;
  state[3] = h3;
  state[4] = h4;
  state[5] = h5;
  state[6] = h6;
  state[7] = h7;
  return end - offset;
}

/**
 * Absorbs `data` (all of its bytes, honouring `byteOffset`/`byteLength`) and the padding into
 * `state`, which had absorbed `prefixLength` bytes before (a multiple of 64). Afterwards
 * `state` holds the digest as eight big-endian words.
 */
export function sha256Final(state: Int32Array, data: Uint8Array, prefixLength = 0): void {
  const length = data.length;
  const done = sha256Blocks(state, data, 0, length);
  const rest = length - done;
  const tail = TAIL;
  tail.set(data.subarray(done), 0);
  tail[rest] = 0x80;
  // One block if the 0x80 byte and the 8-byte length fit after the rest, else two.
  const tailLength = rest < SHA256_BLOCK_BYTES - 8 ? SHA256_BLOCK_BYTES : 2 * SHA256_BLOCK_BYTES;
  tail.fill(0, rest + 1, tailLength - 8);
  const bits = (prefixLength + length) * 8;
  const high = Math.floor(bits / 0x100000000);
  const low = bits >>> 0;
  tail[tailLength - 8] = high >>> 24;
  tail[tailLength - 7] = high >>> 16;
  tail[tailLength - 6] = high >>> 8;
  tail[tailLength - 5] = high;
  tail[tailLength - 4] = low >>> 24;
  tail[tailLength - 3] = low >>> 16;
  tail[tailLength - 2] = low >>> 8;
  tail[tailLength - 1] = low;
  sha256Blocks(state, tail, 0, tailLength);
  // The tail may hold message bytes (an HMAC key block); leave nothing behind.
  tail.fill(0);
}

/** Writes the digest held in `state` as 32 big-endian bytes into `out` at `offset`. */
export function sha256Write(state: Int32Array, out: Uint8Array, offset = 0): void {
  for (let i = 0; i < 8; i++) {
    const word = state[i]!;
    const o = offset + i * 4;
    out[o] = word >>> 24;
    out[o + 1] = word >>> 16;
    out[o + 2] = word >>> 8;
    out[o + 3] = word;
  }
}

/**
 * SHA-256 of the bytes `data` holds (a subarray hashes only its own view).
 *
 * @returns The 32-byte digest.
 * @example
 * sha256(new TextEncoder().encode('abc')); // ba7816bf 8f01cfea ... f20015ad
 */
export function sha256(data: Uint8Array): Uint8Array {
  const state = sha256Init();
  sha256Final(state, data);
  const out = new Uint8Array(SHA256_DIGEST_BYTES);
  sha256Write(state, out);
  return out;
}
