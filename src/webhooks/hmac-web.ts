/**
 * HMAC-SHA256 (RFC 2104) in plain JavaScript over the SHA-256 of `sha256.ts`: the webhook
 * signature outside Node. Same signature as `hmac-node.ts`, which the Node build uses instead.
 */
import {
  SHA256_BLOCK_BYTES,
  SHA256_DIGEST_BYTES,
  sha256,
  sha256Blocks,
  sha256Final,
  sha256Init,
  sha256Write,
} from './sha256.js';

const IPAD = 0x36;
const OPAD = 0x5c;
/** `key ^ ipad`, then `key ^ opad`; wiped after use. */
const PAD = /* @__PURE__ */ new Uint8Array(SHA256_BLOCK_BYTES);
/** The inner digest; wiped after use. */
const INNER = /* @__PURE__ */ new Uint8Array(SHA256_DIGEST_BYTES);
/** Two lowercase hex digits of each byte value. */
const HEX = /* @__PURE__ */ Array.from({ length: 256 }, (_, i) => (i < 16 ? '0' : '') + i.toString(16));

/**
 * HMAC-SHA256 of `message` keyed with `key`, as 64 lowercase hex digits. Both arrays are read
 * as the bytes they hold (a subarray only its own view).
 *
 * @example
 * hmacSha256Hex(utf8("It's a Secret to Everybody"), utf8('Hello, World!'));
 * // '757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17'
 */
export function hmacSha256Hex(key: Uint8Array, message: Uint8Array): string {
  // A key longer than a block is replaced by its digest; a shorter one is padded with zeros.
  const k = key.length > SHA256_BLOCK_BYTES ? sha256(key) : key;
  const n = k.length;
  const pad = PAD;
  for (let i = 0; i < SHA256_BLOCK_BYTES; i++) pad[i] = (i < n ? k[i]! : 0) ^ IPAD;
  const inner = sha256Init();
  sha256Blocks(inner, pad, 0, SHA256_BLOCK_BYTES);
  for (let i = 0; i < SHA256_BLOCK_BYTES; i++) pad[i]! ^= IPAD ^ OPAD;
  const outer = sha256Init();
  sha256Blocks(outer, pad, 0, SHA256_BLOCK_BYTES);
  pad.fill(0);

  sha256Final(inner, message, SHA256_BLOCK_BYTES);
  sha256Write(inner, INNER);
  sha256Final(outer, INNER, SHA256_BLOCK_BYTES);
  INNER.fill(0);

  let hex = '';
  for (let i = 0; i < 8; i++) {
    const word = outer[i]!;
    hex += HEX[word >>> 24]! + HEX[(word >>> 16) & 0xff]! + HEX[(word >>> 8) & 0xff]! + HEX[word & 0xff]!;
  }
  return hex;
}
