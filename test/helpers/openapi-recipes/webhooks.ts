/** How the OpenAPI walk calls the webhook routes (`test/helpers/openapi-walk.ts`). */
import type { Recipe, WalkContext } from '../openapi-walk.js';

/** A receiver nobody listens on, on this machine: deliveries fail, nothing leaves it. */
const URL_HERE = 'http://127.0.0.1:9/hook';

async function webhook(w: WalkContext): Promise<Record<string, string>> {
  const response = await w.call('POST', '/webhooks', { url: URL_HERE, events: ['flag.updated'] });
  const { id } = (await response.json()) as { id: string };
  return { id };
}

async function delivery(w: WalkContext): Promise<Record<string, string>> {
  const { id } = await webhook(w);
  const response = await w.call('POST', `/webhooks/${id}/test`);
  const { id: deliveryId } = (await response.json()) as { id: string };
  return { id: id!, deliveryId };
}

export const webhookRecipes: Record<string, Recipe> = {
  'get /webhooks': {},
  'post /webhooks': {
    body: { url: URL_HERE, events: ['flag.enabled', 'segment.updated'] },
    invalidBody: { url: URL_HERE, events: [] },
  },
  'get /webhooks/{id}': { prepare: webhook, missing: { id: 'wh_none' } },
  'patch /webhooks/{id}': {
    prepare: webhook,
    body: { active: false },
    invalidBody: { secret: 'mine' },
    missing: { id: 'wh_none' },
  },
  'delete /webhooks/{id}': { prepare: webhook, missing: { id: 'wh_none' } },
  'get /webhooks/{id}/deliveries': {
    prepare: delivery,
    query: 'status=pending',
    invalidQuery: 'status=lost',
    missing: { id: 'wh_none' },
  },
  'post /webhooks/{id}/deliveries/{deliveryId}/redeliver': {
    prepare: delivery,
    missing: { deliveryId: 'dl_none' },
  },
  'post /webhooks/{id}/test': { prepare: webhook, missing: { id: 'wh_none' } },
  'post /webhooks/{id}/rotate-secret': { prepare: webhook, missing: { id: 'wh_none' } },
};
