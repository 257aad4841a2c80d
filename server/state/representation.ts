/** Stored records to their wire representations (`docs/protocol.md` §3). */

import { sdkFlag } from '../../src/core/sdk-flag.js';
import type { Segment } from '../../src/core/targeting/types.js';
import type { CreatedWebhook, Flag, SdkFlag, SdkFlagUpdate, Webhook } from '../../src/core/types.js';
import type { Environment, StoredDelivery, StoredFlag, StoredSegment, StoredWebhook } from './model.js';

/**
 * Management representation (`docs/protocol.md` §3.1, §12.1): key, type, enabled, (percentage),
 * description, then each targeting field that is set: `variants`, `offVariant` and
 * `fallthrough` always on `string`/`number`/`json` flags; on `boolean`, `fallthrough` only when
 * it is not `{"variant":"on"}`; `targets`, `rules`, `prerequisites`, `salt` only when non-empty.
 */
export function toFlag(flag: StoredFlag): Flag {
  const out: Record<string, unknown> = { key: flag.key, type: flag.type, enabled: flag.enabled };
  if (flag.type === 'rollout') out.percentage = flag.percentage ?? 0;
  out.description = flag.description;
  if (flag.variants) {
    const first = Object.keys(flag.variants)[0]!;
    out.variants = flag.variants;
    out.offVariant = flag.offVariant ?? first;
    out.fallthrough = flag.fallthrough ?? { variant: first };
  } else if (flag.fallthrough) out.fallthrough = flag.fallthrough;
  if (flag.targets?.length) out.targets = flag.targets;
  if (flag.rules?.length) out.rules = flag.rules;
  if (flag.prerequisites?.length) out.prerequisites = flag.prerequisites;
  if (flag.salt !== undefined) out.salt = flag.salt;
  return out as unknown as Flag;
}

/**
 * Whether an SDK that does not evaluate targeting can hold the flag (`docs/protocol.md` §12.6):
 * a `boolean` or `rollout` flag with none of it (a `salt` included: it moves the buckets).
 */
export function isPlainFlag(flag: StoredFlag): boolean {
  return (
    (flag.type === 'boolean' || flag.type === 'rollout') &&
    !flag.fallthrough &&
    !flag.targets?.length &&
    !flag.rules?.length &&
    !flag.prerequisites?.length &&
    flag.salt === undefined
  );
}

/** The SDK representation of a plain flag (`isPlainFlag`): today's fields exactly. */
export function toSdkFlag(flag: StoredFlag): SdkFlag {
  return sdkFlag(flag as StoredFlag & { type: 'boolean' | 'rollout' }, flag.version);
}

/**
 * Data of a `flags:updated` event for a deleted flag (or one an SDK without targeting cannot
 * hold: then a `boolean` or `rollout` deletion, the only types it knows; `ownType` keeps the
 * flag's own type, for SDKs with the targeting capability).
 */
export function toDeletedSdkFlag(flag: StoredFlag, version: number, ownType = false): SdkFlagUpdate {
  const { key } = flag;
  return flag.type === 'rollout'
    ? { key, type: 'rollout', enabled: false, percentage: flag.percentage ?? 0, version, deleted: true }
    : { key, type: ownType ? flag.type : 'boolean', enabled: false, version, deleted: true };
}

/** A segment as `GET /segments` answers it. */
export function representSegment(segment: StoredSegment): Segment & { createdAt: string; updatedAt: string } {
  const { key, description, included, excluded, rules, createdAt, updatedAt } = segment;
  return { key, description, included, excluded, rules, createdAt, updatedAt };
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
