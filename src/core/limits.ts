/**
 * Limits of the service API (`docs/protocol.md` §3). Pure constants shared by the
 * reference server's validation and the SDK's management client.
 */

/** A flag key: 1..128 characters, first alphanumeric, then alphanumerics, `.`, `_`, `-`. */
export const FLAG_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
export const FLAG_KEY_MAX_LENGTH = 128;
export const DESCRIPTION_MAX_LENGTH = 1000;
export const WEBHOOK_URL_MAX_LENGTH = 2048;
/** Largest request body the server reads, in bytes (1 MiB). */
export const MAX_BODY_BYTES = 1024 * 1024;
/** An API key: `fw_live_` followed by 32 characters of `[A-Za-z0-9]`. */
export const API_KEY_PATTERN = /^fw_live_[A-Za-z0-9]{32}$/;
/** The dashboard's admin token (`docs/protocol.md` §10.2): 16 to 256 printable characters, no spaces. */
export const ADMIN_TOKEN_PATTERN = /^[\x21-\x7e]{16,256}$/;
/** What a webhook may subscribe to (`docs/protocol.md` §8.1); `webhook.test` is sent on request only. */
export const WEBHOOK_EVENT_KINDS = [
  'flag.enabled',
  'flag.disabled',
  'flag.updated',
  'segment.updated',
  'change_request.created',
  'change_request.approved',
  'change_request.rejected',
  'change_request.scheduled',
  'change_request.applied',
  'change_request.failed',
] as const;
