/**
 * The webhook event of a segment change (`docs/protocol.md` §8, §12.3), and the deliveries it
 * commits with it (`../webhooks/deliveries.ts`). Pure: the segment service and copies call it as
 * they plan.
 */

import type { FlagCommit } from '../flags/ops.js';
import type { StoredSegment } from '../kernel/model.js';
import { planDeliveries, type WebhookEvent } from '../webhooks/deliveries.js';
import type { WebhookOp } from '../webhooks/ops.js';

/** A `segment.updated` event: the segment's key, description and sizes, never its user keys. */
export function segmentEvent(before: StoredSegment | null, after: StoredSegment | null): WebhookEvent {
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

/** The deliveries a segment change (`segmentCommitOf`) commits with it: to each subscribed webhook. */
export function segmentDeliveries(change: FlagCommit): WebhookOp[] {
  const { before, after } = change.segment!;
  const event = segmentEvent(before, after);
  return planDeliveries(change.env, { ...event, data: { ...event.data, actor: change.actor } }, change.at);
}
