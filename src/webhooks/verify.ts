/**
 * Receiver side of webhooks: `verifySignature` and `constructEvent` over an injected
 * HMAC-SHA256, so that Node binds `node:crypto` and every other runtime the pure-JS one.
 *
 * Scheme (the contract's `Webhooks` section): `X-Flagwire-Signature: sha256=<hex>`, the
 * lowercase hex HMAC-SHA256 of the exact body bytes, keyed with the UTF-8 bytes of the whole
 * secret (`whsec_` included). The comparison decodes both signatures to 32 bytes and folds
 * every byte difference into one accumulator: it takes the same time wherever they differ.
 */
import { checkEnvelope } from './envelope.js';
import {
  EMPTY_SECRET,
  INVALID_JSON,
  invalidEvent,
  MISSING_HEADER,
  malformedHeader,
  notRaw,
  outsideTolerance,
  signatureMismatch,
  UNREADABLE_HEADER,
} from './messages.js';
import type {
  ConstructEventOptions,
  HeadersOrSignature,
  HmacSha256Hex,
  RawBody,
  WebhookEvent,
} from './types.js';
import { decodeUtf8, utf8 } from './utf8.js';
import { WebhookVerificationError } from './webhook-verification-error.js';

/** `verifySignature` and `constructEvent` bound to one HMAC implementation. */
export interface WebhookVerifier {
  /**
   * Whether `signatureHeader` is the signature of `rawBody` under `secret`. Constant-time;
   * `false`, never an exception, for a missing or malformed header, an empty secret, or a
   * body that is not raw (a parsed object).
   */
  verifySignature(rawBody: RawBody, signatureHeader: string | null | undefined, secret: string): boolean;
  /**
   * Verifies a delivery, parses it, checks its shape and that `delivery.sentAt` lies within
   * `toleranceSeconds` of `now`, and returns the typed event.
   *
   * @throws WebhookVerificationError with a stable `code` when it cannot be trusted.
   */
  constructEvent(
    rawBody: RawBody,
    headersOrSignature: HeadersOrSignature,
    secret: string | readonly string[],
    options?: ConstructEventOptions,
  ): WebhookEvent;
}

const HEADER = 'x-flagwire-signature';
const PREFIX = 'sha256=';
const SIGNATURE_PATTERN = /^sha256=[0-9a-f]{64}$/;
const SIGNATURE_BYTES = 32;
const DEFAULT_TOLERANCE_SECONDS = 300;

/** Value of a lowercase or uppercase hex digit, without a branch. */
const hexDigit = (c: number): number => (c & 0xf) + 9 * (c >>> 6);

/** The 32 bytes of a header that matched {@link SIGNATURE_PATTERN}. */
function decodeSignature(header: string): Uint8Array {
  const bytes = new Uint8Array(SIGNATURE_BYTES);
  for (let i = 0, j = PREFIX.length; i < SIGNATURE_BYTES; i++, j += 2) {
    bytes[i] = (hexDigit(header.charCodeAt(j)) << 4) | hexDigit(header.charCodeAt(j + 1));
  }
  return bytes;
}

/** Whether the hex HMAC of `body` under `key` is `given`, comparing all 32 bytes every time. */
function matches(hmac: HmacSha256Hex, key: Uint8Array, body: Uint8Array, given: Uint8Array): boolean {
  const expected = hmac(key, body);
  if (expected.length !== 2 * SIGNATURE_BYTES) return false;
  let diff = 0;
  for (let i = 0; i < SIGNATURE_BYTES; i++) {
    const byte = (hexDigit(expected.charCodeAt(2 * i)) << 4) | hexDigit(expected.charCodeAt(2 * i + 1));
    diff |= byte ^ given[i]!;
  }
  return diff === 0;
}

/** The bytes a raw body holds (a view: only its own range), or `undefined` for anything else. */
function bodyBytes(rawBody: unknown): Uint8Array | undefined {
  if (typeof rawBody === 'string') return utf8(rawBody);
  if (ArrayBuffer.isView(rawBody))
    return new Uint8Array(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  // `instanceof` fails across realms (iframes, vm contexts); the brand check does not.
  const tag = Object.prototype.toString.call(rawBody);
  if (tag === '[object ArrayBuffer]' || tag === '[object SharedArrayBuffer]') {
    return new Uint8Array(rawBody as ArrayBuffer);
  }
  return undefined;
}

/** A header value as Node gives it (a string, or an array for a repeated header) to one string. */
const firstValue = (value: unknown): string | undefined =>
  typeof value === 'string'
    ? value
    : Array.isArray(value) && typeof value[0] === 'string'
      ? value[0]
      : undefined;

/** The signature header out of a `Headers`-like object, a header record, or the value itself. */
function signatureHeader(source: unknown): string | undefined {
  if (typeof source === 'string') return source;
  if (typeof source !== 'object' || source === null) return undefined;
  const get: unknown = (source as { get?: unknown }).get;
  if (typeof get === 'function') {
    // `Headers.get` and Express's `req.get` ignore case; a `Map` does not.
    return firstValue(get.call(source, HEADER) ?? get.call(source, 'X-Flagwire-Signature'));
  }
  const record = source as Record<string, unknown>;
  if (record[HEADER] !== undefined) return firstValue(record[HEADER]);
  for (const name of Object.keys(record)) {
    if (name.toLowerCase() === HEADER) return firstValue(record[name]);
  }
  return undefined;
}

/** Throws the `WebhookVerificationError` of `code`. */
function fail(code: WebhookVerificationError['code'], message: string, cause?: unknown): never {
  throw new WebhookVerificationError(code, message, cause === undefined ? {} : { cause });
}

/** `verifySignature` over `hmacSha256Hex`: see {@link WebhookVerifier.verifySignature}. */
export function verifySignatureWith(
  hmacSha256Hex: HmacSha256Hex,
  rawBody: RawBody,
  signatureHeader: string | null | undefined,
  secret: string,
): boolean {
  try {
    if (typeof secret !== 'string' || secret.length === 0) return false;
    if (typeof signatureHeader !== 'string' || !SIGNATURE_PATTERN.test(signatureHeader)) return false;
    const body = bodyBytes(rawBody);
    if (body === undefined) return false;
    return matches(hmacSha256Hex, utf8(secret), body, decodeSignature(signatureHeader));
  } catch {
    // A hostile value (a throwing getter, a revoked proxy, a detached buffer) is no signature.
    return false;
  }
}

/** `constructEvent` over `hmacSha256Hex`: see {@link WebhookVerifier.constructEvent}. */
export function constructEventWith(
  hmacSha256Hex: HmacSha256Hex,
  rawBody: RawBody,
  headersOrSignature: HeadersOrSignature,
  secret: string | readonly string[],
  options: ConstructEventOptions = {},
): WebhookEvent {
  const toleranceSeconds = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = options.now ?? Date.now();
  if (typeof toleranceSeconds !== 'number' || !(toleranceSeconds >= 0)) {
    throw new TypeError('constructEvent: options.toleranceSeconds must be a number of seconds >= 0');
  }
  if (typeof now !== 'number' || !Number.isFinite(now)) {
    throw new TypeError('constructEvent: options.now must be a time in epoch milliseconds, like Date.now()');
  }

  let secrets: string[] = [];
  try {
    // Rotation: every non-empty secret is tried; an unset one (`process.env.OLD ?? ''`) is skipped.
    const candidates: readonly unknown[] = Array.isArray(secret) ? secret : [secret];
    secrets = candidates.filter((s): s is string => typeof s === 'string' && s.length > 0);
  } catch {
    // A hostile secret list counts as no secret.
  }
  if (secrets.length === 0) {
    fail('empty_secret', EMPTY_SECRET);
  }

  let body: Uint8Array | undefined;
  try {
    body = bodyBytes(rawBody);
  } catch (error) {
    fail('payload_not_raw', notRaw(rawBody, true), error);
  }
  if (body === undefined) {
    fail('payload_not_raw', notRaw(rawBody, false));
  }

  let header: string | undefined;
  try {
    header = signatureHeader(headersOrSignature);
  } catch (error) {
    fail('missing_header', UNREADABLE_HEADER, error);
  }
  if (header === undefined || header.length === 0) {
    fail('missing_header', MISSING_HEADER);
  }
  if (!SIGNATURE_PATTERN.test(header)) {
    fail('malformed_header', malformedHeader(header));
  }

  const given = decodeSignature(header);
  let matched = false;
  // Every secret is tried, so the time taken does not say which one matched.
  for (const s of secrets) matched = matches(hmacSha256Hex, utf8(s), body, given) || matched;
  if (!matched) fail('signature_mismatch', signatureMismatch(secrets, rawBody));

  let parsed: unknown;
  try {
    // A leading byte order mark is ignored, as RFC 8259 §8.1 allows (TextDecoder drops it too).
    const text = typeof rawBody === 'string' ? rawBody.replace(/^\uFEFF/, '') : decodeUtf8(body);
    parsed = JSON.parse(text);
  } catch (error) {
    fail('invalid_json', INVALID_JSON, error);
  }
  const problem = checkEnvelope(parsed);
  if (problem !== undefined) {
    fail('invalid_event', invalidEvent(problem));
  }
  const event = parsed as WebhookEvent;

  // Both ways: a sender's clock ahead of ours is as suspect as a replay.
  const age = now - event.delivery.sentAt * 1000;
  if (Math.abs(age) > toleranceSeconds * 1000) {
    fail(age > 0 ? 'timestamp_too_old' : 'timestamp_too_new', outsideTolerance(age, toleranceSeconds));
  }
  return event;
}

/**
 * `verifySignature` and `constructEvent` bound to `hmacSha256Hex`.
 *
 * @example
 * import { hmacSha256Hex } from './hmac-node.js';
 * const { verifySignature, constructEvent } = createVerifier(hmacSha256Hex);
 */
export function createVerifier(hmacSha256Hex: HmacSha256Hex): WebhookVerifier {
  return {
    verifySignature: (rawBody, signatureHeader, secret) =>
      verifySignatureWith(hmacSha256Hex, rawBody, signatureHeader, secret),
    constructEvent: (rawBody, headersOrSignature, secret, options) =>
      constructEventWith(hmacSha256Hex, rawBody, headersOrSignature, secret, options),
  };
}
