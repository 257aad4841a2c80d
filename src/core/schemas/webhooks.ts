/** Webhooks and their deliveries (`docs/protocol.md` §3.2, §8.3). */
import { Type } from '@sinclair/typebox';
import { WEBHOOK_EVENT_KINDS, WEBHOOK_URL_MAX_LENGTH } from '../limits.js';
import { Nullable, Timestamp } from './common.js';

export const WebhookEventKind = Type.Union(
  WEBHOOK_EVENT_KINDS.map((kind) => Type.Literal(kind)),
  { $id: 'WebhookEventKind', description: 'The webhook event kinds a webhook can subscribe to.' },
);

const Url = Type.String({
  maxLength: WEBHOOK_URL_MAX_LENGTH,
  description: 'An absolute http or https URL, without credentials.',
});

const Events = Type.Array(WebhookEventKind, {
  minItems: 1,
  uniqueItems: true,
  errorMessage: { minItems: 'must name at least one event kind' },
});

export const Webhook = Type.Object(
  {
    id: Type.String(),
    url: Type.String(),
    events: Type.Array(WebhookEventKind),
    active: Type.Boolean(),
    createdAt: Timestamp,
  },
  {
    $id: 'Webhook',
    description: 'A webhook as `GET /webhooks` and `GET/PATCH /webhooks/:id` return it (never the secret).',
  },
);

export const CreatedWebhook = Type.Object(
  {
    id: Type.String(),
    url: Type.String(),
    events: Type.Array(WebhookEventKind),
    secret: Type.String({ description: 'The signing secret (`docs/protocol.md` §8.2).' }),
    active: Type.Boolean(),
  },
  {
    $id: 'CreatedWebhook',
    description: 'The answer to `POST /webhooks`: the only time the signing secret is shown.',
  },
);

export const CreateWebhookInput = Type.Object(
  { url: Url, events: Events },
  { $id: 'CreateWebhookInput', additionalProperties: false, description: 'Body of `POST /webhooks`.' },
);

export const UpdateWebhookInput = Type.Object(
  { active: Type.Optional(Type.Boolean()), events: Type.Optional(Events), url: Type.Optional(Url) },
  {
    $id: 'UpdateWebhookInput',
    additionalProperties: false,
    'x-fixed': ['id', 'secret', 'createdAt'],
    description: 'Body of `PATCH /webhooks/:id`; every field optional.',
  },
);

export const DeliveryStatus = Type.Union(
  [Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')],
  { $id: 'DeliveryStatus', description: 'Where a delivery stands.' },
);

export const WebhookDeliveryAttempt = Type.Object(
  {
    attempt: Type.Integer({ minimum: 1 }),
    sentAt: Type.String({
      format: 'date-time',
      description: "When it was sent (the body's `delivery.sentAt`).",
    }),
    durationMs: Type.Number({ minimum: 0 }),
    statusCode: Nullable(Type.Integer()),
    error: Nullable(Type.String()),
    response: Nullable(Type.String(), {
      description: "The first KiB of the answer's body (UTF-8, cut on a character).",
    }),
    request: Type.String({ description: 'The exact body sent.' }),
  },
  { $id: 'WebhookDeliveryAttempt', description: 'One attempt of a delivery (`docs/protocol.md` §8.3).' },
);

export const WebhookDeliveryRecord = Type.Object(
  {
    id: Type.String(),
    eventId: Type.String(),
    type: Type.String(),
    flag: Nullable(Type.String(), { description: 'The flag the event is about, else `null`.' }),
    segment: Nullable(Type.String(), { description: 'The segment the event is about, else `null`.' }),
    status: DeliveryStatus,
    attempts: Type.Integer({ minimum: 0 }),
    lastStatusCode: Nullable(Type.Integer()),
    lastError: Nullable(Type.String()),
    nextAttemptAt: Nullable(Timestamp),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    attemptLog: Type.Array(WebhookDeliveryAttempt, { description: 'Its attempts, the newest 20.' }),
  },
  {
    $id: 'WebhookDeliveryRecord',
    description: 'A webhook delivery as `GET /webhooks/:id/deliveries` lists it (`docs/protocol.md` §8.3).',
  },
);

export const RotatedWebhook = Type.Composite(
  [
    Webhook,
    Type.Object({
      secret: Type.String({ description: 'The new signing secret.' }),
      previousSecretExpiresAt: Type.String({
        format: 'date-time',
        description:
          'Until when deliveries are signed with the previous secret too (`docs/protocol.md` §8.2).',
      }),
    }),
  ],
  {
    $id: 'RotatedWebhook',
    description: 'The answer to `POST /webhooks/:id/rotate-secret`: the webhook and its new secret.',
  },
);
