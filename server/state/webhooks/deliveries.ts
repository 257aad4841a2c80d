/**
 * Which deliveries a change commits with it (`docs/protocol.md` §8): one per active webhook
 * subscribed to its event, in the same entry as the change, so a crash never loses one; and the
 * secret that signs them. Pure: decided in the state layer, against memory as the write's plan
 * sees it, by the services that commit a change (flags, segments, copies: each says what its
 * change's event is); the dispatcher (`server/webhooks/`) only delivers what is committed.
 */
import { newDeliveryId, newEventId } from '../kernel/ids.js';
import type {
  Environment,
  EventPayload,
  StoredDelivery,
  StoredWebhook,
  WebhookEventType,
} from '../kernel/model.js';
import type { WebhookOp } from './ops.js';

/** Finished deliveries kept per webhook for `GET /webhooks/:id/deliveries`. */
export const KEPT_DELIVERIES = 100;

/** An event a change makes: its type, and the part that is the same on every attempt. */
export interface WebhookEvent {
  type: WebhookEventType;
  data: EventPayload;
}

/**
 * The ops that commit `event`, of a change made at `at` (ISO time) in `env`: a pending delivery
 * to each active webhook subscribed to it, all with one event id and due now, and the deletion
 * of each one's oldest finished deliveries past `KEPT_DELIVERIES`.
 */
export function planDeliveries(
  env: Environment,
  event: WebhookEvent,
  at: string,
  now = Date.now(),
): WebhookOp[] {
  const hooks = subscribers(env, event.type);
  if (hooks.length === 0) return [];
  const eventId = newEventId();
  const ops: WebhookOp[] = [];
  for (const hook of hooks) {
    const delivery = newDelivery(hook, eventId, event.type, event.data, at, now);
    ops.push({ t: 'delivery', env: env.id, delivery }, ...prune(env, hook.id));
  }
  return ops;
}

/** Deletes the oldest finished deliveries of a webhook beyond `KEPT_DELIVERIES`. */
function prune(env: Environment, webhookId: string): WebhookOp[] {
  const finished = [...env.deliveries.values()].filter(
    (d) => d.webhookId === webhookId && d.status !== 'pending',
  );
  if (finished.length < KEPT_DELIVERIES) return [];
  finished.sort((a, b) => (a.updatedAt < b.updatedAt ? -1 : 1));
  return finished
    .slice(0, finished.length - KEPT_DELIVERIES + 1)
    .map((d): WebhookOp => ({ t: 'delivery-del', env: env.id, id: d.id }));
}

/** A pending delivery of an event to one webhook, due now. */
export function newDelivery(
  webhook: StoredWebhook,
  eventId: string,
  type: WebhookEventType,
  data: EventPayload,
  createdAt: string,
  now: number,
): StoredDelivery {
  return {
    id: newDeliveryId(),
    webhookId: webhook.id,
    eventId,
    type,
    createdAt,
    data,
    status: 'pending',
    attempts: 0,
    nextAttemptAt: now,
    updatedAt: new Date(now).toISOString(),
  };
}

/** The active webhooks of the environment subscribed to `type`. */
export function subscribers(env: Environment, type: WebhookEventType): StoredWebhook[] {
  const out: StoredWebhook[] = [];
  for (const hook of env.webhooks.values()) {
    if (hook.active && (type === 'webhook.test' || (hook.events as string[]).includes(type))) out.push(hook);
  }
  return out;
}

/** The secret that signs now: the previous one during its grace period after a rotation. */
export function signingSecret(webhook: StoredWebhook, now: number): string {
  return webhook.previousSecret !== undefined && (webhook.previousSecretExpiresAt ?? 0) > now
    ? webhook.previousSecret
    : webhook.secret;
}
