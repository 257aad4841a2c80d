/**
 * The types of `../schemas/webhooks.ts`, written by `npm run wire-types`: do not edit; change
 * the schema and run it again.
 */

/** Body of `POST /webhooks`. */
export interface CreateWebhookInput {
  /** An absolute http or https URL, without credentials. */
  url: string;
  events: WebhookEventKind[];
}

/** The answer to `POST /webhooks`: the only time the signing secret is shown. */
export interface CreatedWebhook {
  id: string;
  url: string;
  events: WebhookEventKind[];
  /** The signing secret (`docs/protocol.md` §8.2). */
  secret: string;
  active: boolean;
}

/** Where a delivery stands. */
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** The answer to `POST /webhooks/:id/rotate-secret`: the webhook and its new secret. */
export interface RotatedWebhook {
  id: string;
  url: string;
  events: WebhookEventKind[];
  active: boolean;
  /** ISO 8601 date and time, UTC */
  createdAt: string;
  /** The new signing secret. */
  secret: string;
  /** Until when deliveries are signed with the previous secret too (`docs/protocol.md` §8.2). */
  previousSecretExpiresAt: string;
}

/** Body of `PATCH /webhooks/:id`; every field optional. */
export interface UpdateWebhookInput {
  active?: boolean;
  events?: WebhookEventKind[];
  /** An absolute http or https URL, without credentials. */
  url?: string;
}

/** A webhook as `GET /webhooks` and `GET/PATCH /webhooks/:id` return it (never the secret). */
export interface Webhook {
  id: string;
  url: string;
  events: WebhookEventKind[];
  active: boolean;
  /** ISO 8601 date and time, UTC */
  createdAt: string;
}

/** One attempt of a delivery (`docs/protocol.md` §8.3). */
export interface WebhookDeliveryAttempt {
  attempt: number;
  /** When it was sent (the body's `delivery.sentAt`). */
  sentAt: string;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  /** The first KiB of the answer's body (UTF-8, cut on a character). */
  response: string | null;
  /** The exact body sent. */
  request: string;
}

/** A webhook delivery as `GET /webhooks/:id/deliveries` lists it (`docs/protocol.md` §8.3). */
export interface WebhookDeliveryRecord {
  id: string;
  eventId: string;
  type: string;
  /** The flag the event is about, else `null`. */
  flag: string | null;
  /** The segment the event is about, else `null`. */
  segment: string | null;
  /** Where a delivery stands. */
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  /** ISO 8601 date and time, UTC */
  createdAt: string;
  /** ISO 8601 date and time, UTC */
  updatedAt: string;
  /** Its attempts, the newest 20. */
  attemptLog: WebhookDeliveryAttempt[];
}

/** The webhook event kinds a webhook can subscribe to. */
export type WebhookEventKind =
  | 'flag.enabled'
  | 'flag.disabled'
  | 'flag.updated'
  | 'segment.updated'
  | 'change_request.created'
  | 'change_request.approved'
  | 'change_request.rejected'
  | 'change_request.scheduled'
  | 'change_request.applied'
  | 'change_request.failed';
