/**
 * The webhook event of a flag change (`docs/protocol.md` §8), and the deliveries it commits with
 * it (`../webhooks/deliveries.ts`). Pure: the flag service and copies call it as they plan.
 */
import type { StoredFlag } from '../kernel/model.js';
import { planDeliveries, type WebhookEvent } from '../webhooks/deliveries.js';
import type { WebhookOp } from '../webhooks/ops.js';
import type { FlagCommit } from './ops.js';
import { toFlag } from './representation.js';
import { CHANGEABLE_FIELDS, sameJson } from './targeting.js';

/** The fields whose old values a `flag.*` event's `previous` carries. */
const TRACKED = CHANGEABLE_FIELDS;

/**
 * The event of a flag change: `flag.enabled` / `flag.disabled` when `enabled` flips (other fields
 * changed in the same write go in `previous`), `flag.updated` for anything else, creation
 * and deletion included.
 */
export function flagEvent(before: StoredFlag | null, after: StoredFlag | null): WebhookEvent {
  if (!before) return { type: 'flag.updated', data: { action: 'created', flag: toFlag(after!) } };
  if (!after) return { type: 'flag.updated', data: { action: 'deleted', flag: toFlag(before) } };
  const previous: Record<string, unknown> = {};
  for (const field of TRACKED) {
    if (!sameJson(before[field], after[field])) previous[field] = before[field] ?? null;
  }
  const type =
    before.enabled !== after.enabled ? (after.enabled ? 'flag.enabled' : 'flag.disabled') : 'flag.updated';
  return { type, data: { action: 'updated', flag: toFlag(after), previous } };
}

/** The deliveries a flag change commits with it: its event's, to each subscribed webhook. */
export function flagDeliveries(change: FlagCommit): WebhookOp[] {
  const event = flagEvent(change.before, change.after);
  return planDeliveries(change.env, { ...event, data: { ...event.data, actor: change.actor } }, change.at);
}
