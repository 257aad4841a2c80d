/** Stored webhooks and deliveries to their wire representations (`docs/protocol.md` §8.3). */

import type { CreatedWebhook, Webhook } from '../../../src/core/types.js';
import type { Environment, StoredDelivery, StoredWebhook } from '../kernel/model.js';

export function toWebhook(webhook: StoredWebhook): Webhook {
  return {
    id: webhook.id,
    url: webhook.url,
    events: [...webhook.events],
    active: webhook.active,
    createdAt: webhook.createdAt,
  };
}

export function toCreatedWebhook(webhook: StoredWebhook): CreatedWebhook {
  return {
    id: webhook.id,
    url: webhook.url,
    events: [...webhook.events],
    secret: webhook.secret,
    active: webhook.active,
  };
}

/** The body of one attempt: serialized once, then signed and sent as these exact bytes. */
export function envelope(
  env: { project: string; environment: string },
  delivery: StoredDelivery,
  attempt: number,
  sentAtSeconds: number,
): string {
  return JSON.stringify({
    id: delivery.eventId,
    type: delivery.type,
    createdAt: delivery.createdAt,
    webhookId: delivery.webhookId,
    project: env.project,
    environment: env.environment,
    delivery: { id: delivery.id, attempt, sentAt: sentAtSeconds },
    data: delivery.data,
  });
}

/** The key of the flag or segment a delivery's event is about. */
export function subjectOf(delivery: StoredDelivery): string | undefined {
  const data = delivery.data as { flag?: { key: string }; segment?: { key: string } };
  return data.flag?.key ?? data.segment?.key;
}

/**
 * A delivery as `GET /webhooks/:id/deliveries` lists it (`docs/protocol.md` §8.3): with the
 * flag (or segment) it is about, and each attempt with the body it sent (rebuilt: the same
 * bytes), the answer's status, the first KiB of its body, and how long it took.
 */
export function toDelivery(env: Environment, delivery: StoredDelivery): Record<string, unknown> {
  const data = delivery.data as { flag?: { key: string }; segment?: { key: string } };
  return {
    id: delivery.id,
    eventId: delivery.eventId,
    type: delivery.type,
    flag: data.flag?.key ?? null,
    segment: data.segment?.key ?? null,
    status: delivery.status,
    attempts: delivery.attempts,
    lastStatusCode: delivery.lastStatusCode ?? null,
    lastError: delivery.lastError ?? null,
    nextAttemptAt:
      delivery.nextAttemptAt === undefined ? null : new Date(delivery.nextAttemptAt).toISOString(),
    createdAt: delivery.createdAt,
    updatedAt: delivery.updatedAt,
    attemptLog: (delivery.log ?? []).map((record) => ({
      attempt: record.attempt,
      sentAt: new Date(record.sentAt * 1000).toISOString(),
      durationMs: record.durationMs,
      statusCode: record.statusCode ?? null,
      error: record.error ?? null,
      response: record.response ?? null,
      request: envelope(record.names ?? env, delivery, record.attempt, record.sentAt),
    })),
  };
}
