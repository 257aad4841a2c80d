/**
 * Webhook receiver API, bound to the pure-JS HMAC (`hmac-web.ts`) that runs in every runtime.
 * The Node build binds `hmac-node.ts` (`node:crypto`) instead; both give the same results.
 */
import { hmacSha256Hex } from './hmac-web.js';
import type { ConstructEventOptions, HeadersOrSignature, RawBody, WebhookEvent } from './types.js';
import { constructEventWith, verifySignatureWith } from './verify.js';

/**
 * Whether `signatureHeader` (the `X-Flagwire-Signature` value, `sha256=<64 lowercase hex>`)
 * is the HMAC-SHA256 of `rawBody` under `secret`. Constant-time. Returns `false`, and never
 * throws, for a missing or malformed header, an empty secret, or a body that is not raw.
 *
 * @param rawBody - The body exactly as received: a string, or its bytes (`Uint8Array`, `Buffer`,
 *   `ArrayBuffer`). A parsed object never verifies.
 * @param signatureHeader - The `X-Flagwire-Signature` header value.
 * @param secret - The webhook's `whsec_...` secret, prefix included.
 * @example
 * if (!verifySignature(await request.text(), request.headers.get('x-flagwire-signature'), secret)) {
 *   return new Response('bad signature', { status: 400 });
 * }
 */
export function verifySignature(
  rawBody: RawBody,
  signatureHeader: string | null | undefined,
  secret: string,
): boolean {
  return verifySignatureWith(hmacSha256Hex, rawBody, signatureHeader, secret);
}

/**
 * Verifies a webhook delivery and returns its typed event: checks the signature (against any
 * of `secret` when it is a list, for rotation), parses the body, checks the event's shape and
 * that `delivery.sentAt` lies within `toleranceSeconds` of `now` either way (replay protection).
 *
 * @param rawBody - The body exactly as received: a string, or its bytes.
 * @param headersOrSignature - `request.headers` (a `Headers`), Node's `req.headers`, or the
 *   `X-Flagwire-Signature` value itself.
 * @param secret - The webhook's `whsec_...` secret, or several during a rotation.
 * @throws WebhookVerificationError with a stable `code`: `missing_header`, `malformed_header`,
 *   `payload_not_raw`, `signature_mismatch`, `invalid_json`, `invalid_event`,
 *   `timestamp_too_old`, `timestamp_too_new`, `empty_secret`.
 * @example
 * app.post('/webhooks/flagwire', express.raw({ type: 'application/json' }), (req, res) => {
 *   const event = constructEvent(req.body, req.headers, process.env.FLAGWIRE_WEBHOOK_SECRET!);
 *   if (event.type === 'flag.enabled') console.log(`${event.data.flag.key} is on`);
 *   res.sendStatus(204);
 * });
 */
export function constructEvent(
  rawBody: RawBody,
  headersOrSignature: HeadersOrSignature,
  secret: string | readonly string[],
  options?: ConstructEventOptions,
): WebhookEvent {
  return constructEventWith(hmacSha256Hex, rawBody, headersOrSignature, secret, options);
}

export type {
  ChangeRequestAction,
  ChangeRequestEvent,
  ChangeRequestEventData,
  ConstructEventOptions,
  FlagDisabledEvent,
  FlagEnabledEvent,
  FlagUpdatedEvent,
  HeadersOrSignature,
  RawBody,
  SegmentUpdatedEvent,
  WebhookAction,
  WebhookActor,
  WebhookChangeRequest,
  WebhookDelivery,
  WebhookEvent,
  WebhookEventBase,
  WebhookEventData,
  WebhookFlagPrevious,
  WebhookSegment,
  WebhookTestEvent,
} from './types.js';
export type { WebhookVerificationErrorCode } from './webhook-verification-error.js';
export { WebhookVerificationError } from './webhook-verification-error.js';
