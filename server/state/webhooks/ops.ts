/**
 * The webhooks domain's ops and how each changes memory: a webhook's rules set or deleted (its
 * deliveries with it), and a delivery committed (pending, or an attempt's outcome) or pruned.
 * The domain's parts of snapshots: the webhooks and the deliveries.
 */
import { checkList, type Domain, type Piece, refill } from '../kernel/domain.js';
import type { StoredDelivery, StoredWebhook } from '../kernel/model.js';
import { envOf } from '../kernel/ops.js';

export type WebhookOp =
  | { t: 'webhook'; env: string; webhook: StoredWebhook }
  | { t: 'webhook-del'; env: string; id: string }
  | { t: 'delivery'; env: string; delivery: StoredDelivery }
  | { t: 'delivery-del'; env: string; id: string };

/** An environment's webhooks and deliveries, as a snapshot holds them. */
export interface WebhooksSnapshot {
  webhooks: StoredWebhook[];
  deliveries?: StoredDelivery[];
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
