/**
 * Types of a webhook delivery as a receiver sees it after `constructEvent` (the body envelope
 * in the `Webhooks` section of the contract).
 */
import type { Prerequisite, Rule, Serve, Target } from '../core/targeting/types.js';
import type { Flag, WebhookEventKind } from '../core/types.js';
import type { Actor } from '../core/wire/admin.js';
import type { Change, ChangeRequest } from '../core/wire/changes.js';

/** HMAC-SHA256 of `message` keyed with `key`, as 64 lowercase hex digits. */
export type HmacSha256Hex = (key: Uint8Array, message: Uint8Array) => string;

/** The raw request body as received: a string, or its bytes. Never a parsed object. */
export type RawBody = string | Uint8Array | ArrayBuffer;

/** Something that holds the request headers, or the signature header itself. */
export type HeadersOrSignature =
  | string
  | { get(name: string): string | null | undefined }
  | Readonly<Record<string, string | readonly string[] | undefined>>
  | null
  | undefined;

/** Options of `constructEvent`. */
export interface ConstructEventOptions {
  /**
   * How far `delivery.sentAt` may lie from `now`, in seconds, into the past and into the
   * future. `Infinity` turns replay protection off (only do that for events you stored).
   * @default 300
   */
  toleranceSeconds?: number;
  /**
   * The time to check `delivery.sentAt` against, in epoch milliseconds: for tests, and for
   * events processed later from a queue (pass the time they were received).
   * @default Date.now()
   */
  now?: number;
}

/**
 * What happened to the flag: `flag.updated` carries created/updated/deleted, `flag.enabled` and
 * `flag.disabled` carry `updated`, and `webhook.test` (`POST /webhooks/:id/test`) carries `test`.
 */
export type WebhookAction = 'created' | 'updated' | 'deleted' | 'test';

/**
 * One delivery of an event to one webhook, as this attempt sends it. A redelivery is a new
 * delivery with a new `id`; the event `id` stays the same for both.
 */
export interface WebhookDelivery {
  /** Id of this delivery, `dlv_...`: the same on every attempt (retry) of it. */
  id: string;
  /** 1 for the first attempt, then 2, 3 ... */
  attempt: number;
  /** When this attempt was sent, in unix seconds, fresh on every attempt: what replay protection checks. */
  sentAt: number;
}

/** The values that changed, as they were before the change (`null`: it was not set). */
export interface WebhookFlagPrevious {
  enabled?: boolean;
  percentage?: number;
  description?: string | null;
  offVariant?: string | null;
  fallthrough?: Serve | null;
  targets?: Target[] | null;
  rules?: Rule[] | null;
  prerequisites?: Prerequisite[] | null;
  salt?: string | null;
}

/** A segment in a `segment.updated` event: its key, description and sizes, never its user keys. */
export interface WebhookSegment {
  key: string;
  description: string | null;
  includedCount: number;
  excludedCount: number;
  ruleCount: number;
}

/** `data` of an event: the flag after the change (before it, on deletion) and what it was. */
export interface WebhookEventData<A extends WebhookAction = WebhookAction> {
  action: A;
  /** The flag in the management representation. */
  flag: Flag;
  /** The changed fields' previous values; absent on creation and deletion. */
  previous?: WebhookFlagPrevious;
}

/** Fields every event has. */
export interface WebhookEventBase<
  T extends WebhookEventKind | 'webhook.test',
  A extends WebhookAction | ChangeRequestAction,
  D = WebhookEventData<Extract<A, WebhookAction>>,
> {
  /** `evt_...`, the same on every retry: deduplicate on it. */
  id: string;
  type: T;
  /** When the change was committed, ISO 8601. */
  createdAt: string;
  /** The webhook this was delivered to, `wh_...`. */
  webhookId: string;
  project: string;
  environment: string;
  delivery: WebhookDelivery;
  data: D;
}

/** A flag was switched on. */
export type FlagEnabledEvent = WebhookEventBase<'flag.enabled', 'updated'>;
/** A flag was switched off. */
export type FlagDisabledEvent = WebhookEventBase<'flag.disabled', 'updated'>;
/** A flag was created, deleted, or changed without `enabled` flipping. */
export type FlagUpdatedEvent = WebhookEventBase<'flag.updated', 'created' | 'updated' | 'deleted'>;
/** A test event sent on request (`POST /webhooks/:id/test`), with a sample flag. */
export type WebhookTestEvent = WebhookEventBase<'webhook.test', 'test'>;
/** A segment was created, changed or deleted (`docs/protocol.md` §12.5). */
export type SegmentUpdatedEvent = WebhookEventBase<
  'segment.updated',
  'created' | 'updated' | 'deleted',
  { action: 'created' | 'updated' | 'deleted'; segment: WebhookSegment }
>;

/**
 * Who did something (`docs/protocol.md` §10.6): a user, a personal token and its user, an API
 * key, the admin token, or the system.
 */
export type WebhookActor = Actor;

/** What happened to a change request: the last word of its event's `type`. */
export type ChangeRequestAction = 'created' | 'approved' | 'rejected' | 'scheduled' | 'applied' | 'failed';

/**
 * A change request in a `change_request.*` event, as it was after what happened: as the admin
 * API shows it (`docs/protocol.md` §10.7), its changes without their bodies, and without what is
 * read against the environment at the time of a request (`approvals`, `conflicts`, `preview`).
 */
export type WebhookChangeRequest = Omit<ChangeRequest, 'changes' | 'approvals' | 'conflicts' | 'preview'> & {
  changes: Omit<Change, 'body'>[];
};

/** `data` of a `change_request.*` event: what happened, to which request, who did it. */
export interface ChangeRequestEventData<A extends ChangeRequestAction = ChangeRequestAction> {
  action: A;
  changeRequest: WebhookChangeRequest;
  /**
   * Who did it: the author (created), the reviewer (approved, rejected), who scheduled or applied
   * it; the system (`type: 'system'`) when a scheduled request is applied, or fails, at its time.
   */
  actor: WebhookActor;
  /** The review it was, on `approved` and `rejected`. */
  review?: { decision: 'approve' | 'reject'; comment?: string };
}

/** One of a change request's events; `A` is the last word of its `type`. */
type ChangeRequestEventOf<A extends ChangeRequestAction> = WebhookEventBase<
  `change_request.${A}`,
  A,
  ChangeRequestEventData<A>
>;

/**
 * Something happened to a change request (`docs/protocol.md` §8.1): it was created, approved,
 * rejected, scheduled, applied, or (scheduled) failed at its time. Narrow it on `type` (or `data.action`).
 */
export type ChangeRequestEvent = {
  [A in ChangeRequestAction]: ChangeRequestEventOf<A>;
}[ChangeRequestAction];

/** A verified webhook event; narrow it on `type`. */
export type WebhookEvent =
  | FlagEnabledEvent
  | FlagDisabledEvent
  | FlagUpdatedEvent
  | SegmentUpdatedEvent
  | ChangeRequestEvent
  | WebhookTestEvent;
