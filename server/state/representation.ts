/** Stored records to their wire representations (`docs/protocol.md` §3). */

import { sdkFlag } from '../../src/core/sdk-flag.js';
import type { CreatedWebhook, Flag, SdkFlag, SdkFlagUpdate, Webhook } from '../../src/core/types.js';
import type { StoredDelivery, StoredFlag, StoredWebhook } from './model.js';

/** Management representation: exactly key, type, enabled, (percentage), description. */
export function toFlag(flag: StoredFlag): Flag {
  return flag.type === 'rollout'
    ? {
        key: flag.key,
        type: 'rollout',
        enabled: flag.enabled,
        percentage: flag.percentage ?? 0,
        description: flag.description,
      }
    : { key: flag.key, type: 'boolean', enabled: flag.enabled, description: flag.description };
}

export function toSdkFlag(flag: StoredFlag): SdkFlag {
  return sdkFlag(flag, flag.version);
}

/** Data of a `flags:updated` event for a deleted flag. */
export function toDeletedSdkFlag(flag: StoredFlag, version: number): SdkFlagUpdate {
  return { ...sdkFlag(flag, version), enabled: false, deleted: true };
}

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

/** A delivery as `GET /webhooks/:id/deliveries` lists it (`docs/protocol.md` §8.3). */
export function toDelivery(delivery: StoredDelivery): Record<string, unknown> {
  return {
    id: delivery.id,
    eventId: delivery.eventId,
    type: delivery.type,
    status: delivery.status,
    attempts: delivery.attempts,
    lastStatusCode: delivery.lastStatusCode ?? null,
    lastError: delivery.lastError ?? null,
    nextAttemptAt:
      delivery.nextAttemptAt === undefined ? null : new Date(delivery.nextAttemptAt).toISOString(),
    createdAt: delivery.createdAt,
    updatedAt: delivery.updatedAt,
  };
}
