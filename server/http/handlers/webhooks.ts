/** `/webhooks` and `/webhooks/:id` (`docs/protocol.md` §3.2). */

import { Type } from '@sinclair/typebox';
import * as W from '../../../src/core/schemas/webhooks.js';
import { validateCreateWebhook, validateUpdateWebhook } from '../../../src/core/validation.js';
import { validationError } from '../../errors.js';
import { toDelivery } from '../../state/webhooks/representation.js';
import type { WebhookService } from '../../state/webhooks/webhook-service.js';
import type { Dispatcher } from '../../webhooks/dispatcher.js';
import { errorAnswer, ok } from '../openapi.js';
import { sendEmpty, sendJson } from '../respond.js';
import { defineRoute, type Route } from '../router.js';

const NO_WEBHOOK = errorAnswer('`NOT_FOUND`: no webhook of that id');

export function webhookRoutes(
  service: WebhookService,
  dispatcher: Dispatcher,
  secretGraceMs: number,
): Route[] {
  return [
    defineRoute('webhooks', {
      GET: {
        // A read-only key may not see where events go; in the admin API, a viewer reads them.
        readOnly: false,
        role: 'viewer',
        body: false,
        action: 'list webhooks',
        doc: { summary: 'List the webhooks', answers: { 200: ok('The webhooks', Type.Array(W.Webhook)) } },
        handler: async ({ res, grant }) => sendJson(res, 200, await service.listWebhooks(grant.env)),
      },
      POST: {
        readOnly: false,
        body: true,
        action: 'create webhooks',
        doc: {
          summary: 'Create a webhook',
          body: W.CreateWebhookInput,
          answers: { 201: ok('Created: the only answer that shows its secret', W.CreatedWebhook) },
        },
        handler: async ({ res, grant, body }) => {
          const input = validateCreateWebhook(body);
          if (!input.ok) throw validationError(input.message);
          sendJson(res, 201, await service.createWebhook(grant.env, input.value, grant.actor));
        },
      },
    }),
    defineRoute('webhooks/:id', {
      GET: {
        // A read-only key may not see where events go; in the admin API, a viewer reads them.
        readOnly: false,
        role: 'viewer',
        body: false,
        action: 'read webhooks',
        doc: { summary: 'Read a webhook', answers: { 200: ok('The webhook', W.Webhook), 404: NO_WEBHOOK } },
        handler: async ({ res, grant, params }) =>
          sendJson(res, 200, await service.getWebhook(grant.env, params.id!)),
      },
      PATCH: {
        readOnly: false,
        body: true,
        action: 'update webhooks',
        doc: {
          summary: 'Change a webhook',
          body: W.UpdateWebhookInput,
          answers: { 200: ok('The webhook as changed', W.Webhook), 404: NO_WEBHOOK },
        },
        handler: async ({ res, grant, params, body }) => {
          const patch = validateUpdateWebhook(body);
          if (!patch.ok) throw validationError(patch.message);
          sendJson(res, 200, await service.updateWebhook(grant.env, params.id!, patch.value, grant.actor));
        },
      },
      DELETE: {
        readOnly: false,
        body: false,
        action: 'delete webhooks',
        doc: { summary: 'Delete a webhook', answers: { 204: { description: 'Deleted' }, 404: NO_WEBHOOK } },
        handler: async ({ res, grant, params }) => {
          await service.deleteWebhook(grant.env, params.id!, grant.actor);
          sendEmpty(res, 204);
        },
      },
    }),
    defineRoute('webhooks/:id/deliveries', {
      GET: {
        // A read-only key may not see where events go; in the admin API, a viewer reads them.
        readOnly: false,
        role: 'viewer',
        body: false,
        action: 'read webhook deliveries',
        doc: {
          summary: "List a webhook's deliveries, newest first",
          query: {
            status: { schema: W.DeliveryStatus, description: 'Only the deliveries in this state.' },
            flag: {
              schema: Type.String(),
              description: "Only the deliveries about this flag's or segment's key.",
            },
          },
          answers: { 200: ok('The deliveries', Type.Array(W.WebhookDeliveryRecord)), 404: NO_WEBHOOK },
        },
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
        doc: {
          summary: 'Send a delivery again, as a new delivery of the same event',
          answers: {
            202: ok('The new delivery, pending', W.WebhookDeliveryRecord),
            404: errorAnswer('`NOT_FOUND`: no such webhook or delivery'),
          },
        },
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
        doc: {
          summary: 'Send a `webhook.test` event',
          answers: { 202: ok('The delivery, pending', W.WebhookDeliveryRecord), 404: NO_WEBHOOK },
        },
        handler: async ({ res, grant, params }) =>
          sendJson(res, 202, toDelivery(grant.env, await dispatcher.test(grant.env, params.id!))),
      },
    }),
    defineRoute('webhooks/:id/rotate-secret', {
      POST: {
        readOnly: false,
        body: false,
        action: 'rotate webhook secrets',
        doc: {
          summary: 'Give a webhook a new signing secret; the old one signs too for a grace period',
          answers: { 200: ok('The webhook and its new secret', W.RotatedWebhook), 404: NO_WEBHOOK },
        },
        handler: async ({ res, grant, params }) =>
          sendJson(res, 200, await service.rotateSecret(grant.env, params.id!, secretGraceMs, grant.actor)),
      },
    }),
  ];
}
