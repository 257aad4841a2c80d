/** Stored records to their wire representations (`docs/protocol.md` §3). */

import { sdkFlag } from '../../src/core/sdk-flag.js';
import type { CreatedWebhook, Flag, SdkFlag, SdkFlagUpdate, Webhook } from '../../src/core/types.js';
import type { StoredFlag, StoredWebhook } from './model.js';

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
