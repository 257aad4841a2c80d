/**
 * HMAC-SHA256 through `node:crypto`: the webhook signature on Node (selected by the package's
 * `node` export condition). Same signature as `hmac-web.ts`, the pure-JS one used elsewhere.
 */
import { createHmac } from 'node:crypto';

/**
 * HMAC-SHA256 of `message` keyed with `key`, as 64 lowercase hex digits. Both arrays are read
 * as the bytes they hold (a subarray only its own view).
 */
export function hmacSha256Hex(key: Uint8Array, message: Uint8Array): string {
  return createHmac('sha256', key).update(message).digest('hex');
}
