/** The error `constructEvent` throws when a delivery cannot be trusted or understood. */
import { FlagwireError } from '../errors.js';

/** Why `constructEvent` rejected a delivery. Stable: branch on it, not on the message. */
export type WebhookVerificationErrorCode =
  | 'missing_header'
  | 'malformed_header'
  | 'payload_not_raw'
  | 'signature_mismatch'
  | 'invalid_json'
  | 'invalid_event'
  | 'timestamp_too_old'
  | 'timestamp_too_new'
  | 'empty_secret';

/**
 * A webhook delivery failed verification. Answer it with a 400 (`empty_secret` is a
 * configuration error of the receiver: a 500). The message says what to fix and never
 * contains the secret or the expected signature.
 */
export class WebhookVerificationError extends FlagwireError {
  override readonly name: string = 'WebhookVerificationError';
  declare readonly code: WebhookVerificationErrorCode;

  constructor(code: WebhookVerificationErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(code, message, options);
  }
}
