/** UTF-8 through the WHATWG `TextEncoder` / `TextDecoder`, present in every supported runtime. */

const encoder = /* @__PURE__ */ new TextEncoder();
const decoder = /* @__PURE__ */ new TextDecoder('utf-8', { fatal: true });

/** The UTF-8 bytes of `text`; a lone surrogate becomes U+FFFD (`EF BF BD`). */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/**
 * The text of UTF-8 `bytes`, without a leading byte order mark.
 *
 * @throws TypeError when `bytes` is not valid UTF-8.
 */
export function decodeUtf8(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}
