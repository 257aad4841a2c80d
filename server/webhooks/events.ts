/**
 * Which webhook events a committed change makes, and the bytes a delivery sends
 * (`docs/protocol.md` §8). Pure: the dispatcher and the service call it.
 */
import { newDeliveryId } from '../state/ids.js';
import type {
  Environment,
  EventPayload,
  FlagCommit,
  StoredDelivery,
  StoredWebhook,
  WebhookEventType,
} from '../state/model.js';
import { toFlag } from '../state/representation.js';
import { CHANGEABLE_FIELDS, sameJson } from '../state/targeting.js';

/** The fields whose old values a `flag.*` event's `previous` carries. */
const TRACKED = CHANGEABLE_FIELDS;

/**
 * The event of a change: `flag.enabled` / `flag.disabled` when `enabled` flips (other fields
 * changed in the same write go in `previous`), `flag.updated` for anything else, creation
 * and deletion included.
 */
export function eventOf(change: FlagCommit): { type: WebhookEventType; data: EventPayload } {
  if (change.segment) {
    const { before, after } = change.segment;
    const s = (after ?? before)!;
    const segment = {
      key: s.key,
      description: s.description,
      includedCount: s.included.length,
      excludedCount: s.excluded.length,
      ruleCount: s.rules.length,
    };
    return {
      type: 'segment.updated',
      data: { action: !before ? 'created' : !after ? 'deleted' : 'updated', segment },
    };
  }
  const { before, after } = change;
  if (!before) return { type: 'flag.updated', data: { action: 'created', flag: toFlag(after!) } };
  if (!after) return { type: 'flag.updated', data: { action: 'deleted', flag: toFlag(before) } };
  const previous: Record<string, unknown> = {};
  for (const field of TRACKED) {
    if (!sameJson(before[field], after[field])) previous[field] = before[field] ?? null;
  }
  const type: WebhookEventType =
    before.enabled !== after.enabled ? (after.enabled ? 'flag.enabled' : 'flag.disabled') : 'flag.updated';
  return { type, data: { action: 'updated', flag: toFlag(after), previous } };
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
