/** `/webhooks` and `/webhooks/:id` (`docs/protocol.md` §3.2). */
import { validateCreateWebhook, validateUpdateWebhook } from '../../../src/core/validation.js';
import { validationError } from '../../errors.js';
import type { FlagService } from '../../state/service.js';
import { sendEmpty, sendJson } from '../respond.js';
import { defineRoute, type Route } from '../router.js';

export function webhookRoutes(service: FlagService): Route[] {
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
  ];
}
