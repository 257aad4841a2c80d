/**
 * The webhooks domain's ops and how each changes memory: a webhook's rules set or deleted (its
 * deliveries with it), and a delivery committed (pending, or an attempt's outcome) or pruned.
 * The domain's parts of snapshots: the webhooks and the deliveries.
 */
import { type AuditFacts, changedFields, pick, stampedRecord } from '../kernel/audit.js';
import { checkList, type Domain, type Piece, refill } from '../kernel/domain.js';
import type { Actor, MemoryState, StoredDelivery, StoredWebhook } from '../kernel/model.js';
import { envOf } from '../kernel/ops.js';

/** A webhook's rules and deliveries; a rule's change carries who made it and when (`by`, `at`: its audit record). */
export type WebhookOp =
  | { t: 'webhook'; env: string; webhook: StoredWebhook; by?: Actor; at?: string }
  | { t: 'webhook-del'; env: string; id: string; by?: Actor; at?: string }
  | { t: 'delivery'; env: string; delivery: StoredDelivery }
  | { t: 'delivery-del'; env: string; id: string };

/** An environment's webhooks and deliveries, as a snapshot holds them. */
export interface WebhooksSnapshot {
  webhooks: StoredWebhook[];
  deliveries?: StoredDelivery[];
}

/** What a webhook's audit record shows of it: never its secrets. */
const SHOWN = ['url', 'events', 'active'] as const;

/** What a webhook op changes, for its audit record (`../kernel/audit.ts`); deliveries are not audited. */
function webhookAudit(db: MemoryState, op: WebhookOp): AuditFacts | undefined {
  const env = db.get(op.env);
  if (!env || (op.t !== 'webhook' && op.t !== 'webhook-del')) return undefined;
  const id = op.t === 'webhook' ? op.webhook.id : op.id;
  const target = { kind: 'webhook', key: id };
  const before = env.webhooks.get(id);
  if (op.t === 'webhook-del')
    return before && { action: 'webhook.deleted', target, before: pick(before, SHOWN) };
  const after = op.webhook;
  if (!before) return { action: 'webhook.created', target, after: pick(after, SHOWN) };
  if (after.secret !== before.secret) {
    const until = after.previousSecretExpiresAt;
    return {
      action: 'webhook.secretRotated',
      target,
      ...(until !== undefined && { after: { previousSecretExpiresAt: new Date(until).toISOString() } }),
    };
  }
  const changed = changedFields(SHOWN, pick(before, SHOWN), pick(after, SHOWN));
  return changed && { action: 'webhook.updated', target, ...changed };
}

export const webhooksDomain: Domain<WebhookOp> = {
  kinds: ['webhook', 'webhook-del', 'delivery', 'delivery-del'],

  apply(db, op) {
    switch (op.t) {
      case 'webhook':
        envOf(db, op.env).webhooks.set(op.webhook.id, op.webhook);
        return;
      case 'webhook-del': {
        const env = envOf(db, op.env);
        env.webhooks.delete(op.id);
        for (const [id, delivery] of env.deliveries)
          if (delivery.webhookId === op.id) env.deliveries.delete(id);
        return;
      }
      case 'delivery':
        envOf(db, op.env).deliveries.set(op.delivery.id, op.delivery);
        return;
      case 'delivery-del':
        envOf(db, op.env).deliveries.delete(op.id);
        return;
    }
  },

  auditOf: (db, op) => stampedRecord(op, webhookAudit(db, op)),

  capture(db, scope) {
    const env = scope === '' ? undefined : db.get(scope);
    if (!env) return () => {};
    const saved = { webhooks: new Map(env.webhooks), deliveries: new Map(env.deliveries) };
    return () => {
      refill(env.webhooks, saved.webhooks);
      refill(env.deliveries, saved.deliveries);
    };
  },

  envPart: (env): WebhooksSnapshot => ({
    webhooks: [...env.webhooks.values()],
    deliveries: [...env.deliveries.values()],
  }),

  checkEnvPart(piece) {
    checkList(piece, 'webhooks', true, 'id');
    checkList(piece, 'deliveries', false, 'id');
  },

  envFromPart(env, piece: Piece) {
    const part = piece as unknown as WebhooksSnapshot;
    env.webhooks = new Map(part.webhooks.map((w) => [w.id, w]));
    env.deliveries = new Map((part.deliveries ?? []).map((d) => [d.id, d]));
  },
};
