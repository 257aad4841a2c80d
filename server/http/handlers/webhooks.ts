/** `/webhooks` and `/webhooks/:id` (`docs/protocol.md` §3.2). */
import { validateCreateWebhook, validateUpdateWebhook } from '../../../src/core/validation.js';
import { validationError } from '../../errors.js';
import { toDelivery } from '../../state/webhooks/representation.js';
import type { WebhookService } from '../../state/webhooks/webhook-service.js';
import type { Dispatcher } from '../../webhooks/dispatcher.js';
import { sendEmpty, sendJson } from '../respond.js';
import { defineRoute, type Route } from '../router.js';

export function webhookRoutes(
  service: WebhookService,
  dispatcher: Dispatcher,
  secretGraceMs: number,
): Route[] {
  return [
    defineRoute('webhooks', {
      GET: {
        readOnly: false,
        body: false,
        action: 'list webhooks',
        handler: async ({ res, grant }) => sendJson(res, 200, await service.listWebhooks(grant.env)),
      },
      POST: {
        readOnly: false,
        body: true,
        action: 'create webhooks',
        handler: async ({ res, grant, body }) => {
          const input = validateCreateWebhook(body);
          if (!input.ok) throw validationError(input.message);
          sendJson(res, 201, await service.createWebhook(grant.env, input.value));
        },
      },
    }),
    defineRoute('webhooks/:id', {
      GET: {
        readOnly: false,
        body: false,
        action: 'read webhooks',
        handler: async ({ res, grant, params }) =>
          sendJson(res, 200, await service.getWebhook(grant.env, params.id!)),
      },
      PATCH: {
        readOnly: false,
        body: true,
        action: 'update webhooks',
        handler: async ({ res, grant, params, body }) => {
          const patch = validateUpdateWebhook(body);
          if (!patch.ok) throw validationError(patch.message);
          sendJson(res, 200, await service.updateWebhook(grant.env, params.id!, patch.value));
        },
      },
      DELETE: {
        readOnly: false,
        body: false,
        action: 'delete webhooks',
        handler: async ({ res, grant, params }) => {
          await service.deleteWebhook(grant.env, params.id!);
          sendEmpty(res, 204);
        },
      },
    }),
    defineRoute('webhooks/:id/deliveries', {
      GET: {
        readOnly: false,
        body: false,
        action: 'read webhook deliveries',
        handler: async ({ res, grant, params, query }) => {
          // `?status=pending|succeeded|failed` and `?flag=KEY` (a flag's or a segment's key).
          const search = new URLSearchParams(query);
          const filter: { status?: string; flag?: string } = {};
          const status = search.get('status');
          if (status !== null) {
            if (!['pending', 'succeeded', 'failed'].includes(status))
              throw validationError('"status" must be pending, succeeded or failed');
            filter.status = status;
          }
          const flag = search.get('flag');
          if (flag !== null) filter.flag = flag;
          sendJson(res, 200, await service.listDeliveries(grant.env, params.id!, filter));
        },
      },
    }),
    defineRoute('webhooks/:id/deliveries/:deliveryId/redeliver', {
      POST: {
        readOnly: false,
        body: false,
        action: 'redeliver webhook events',
        handler: async ({ res, grant, params }) =>
          sendJson(
            res,
            202,
            toDelivery(grant.env, await dispatcher.redeliver(grant.env, params.id!, params.deliveryId!)),
          ),
      },
    }),
    defineRoute('webhooks/:id/test', {
      POST: {
        readOnly: false,
        body: false,
        action: 'send test events',
        handler: async ({ res, grant, params }) =>
          sendJson(res, 202, toDelivery(grant.env, await dispatcher.test(grant.env, params.id!))),
      },
    }),
    defineRoute('webhooks/:id/rotate-secret', {
      POST: {
        readOnly: false,
        body: false,
        action: 'rotate webhook secrets',
        handler: async ({ res, grant, params }) =>
          sendJson(res, 200, await service.rotateSecret(grant.env, params.id!, secretGraceMs)),
      },
    }),
  ];
}
