/** `/flags` and `/flags/:key` (`docs/protocol.md` §3.1). */
import type { AnyFlagType, UpdateFlagInput } from '../../../src/core/types.js';
import { validateCreateFlag, validateUpdateFlag } from '../../../src/core/validation.js';
import { validationError } from '../../errors.js';
import type { FlagService } from '../../state/flags/flag-service.js';
import { etagOf, ifMatchOf } from '../preconditions.js';
import { sendEmpty, sendJson } from '../respond.js';
import { defineRoute, type Route } from '../router.js';

export function flagRoutes(service: FlagService): Route[] {
  return [
    defineRoute('flags', {
      GET: {
        readOnly: true,
        body: false,
        action: 'list flags',
        handler: async ({ res, grant }) => sendJson(res, 200, await service.listFlags(grant.env)),
      },
      POST: {
        readOnly: false,
        body: true,
        action: 'create flags',
        handler: async ({ res, grant, body }) => {
          const input = validateCreateFlag(body);
          if (!input.ok) throw validationError(input.message);
          const created = await service.createFlagVersioned(grant.env, input.value, grant.actor);
          sendJson(res, 201, created.body, { etag: etagOf(created.version) });
        },
      },
    }),
    defineRoute('flags/:key', {
      GET: {
        readOnly: true,
        body: false,
        action: 'read flags',
        handler: async ({ res, grant, params }) => {
          const { body, version } = await service.readFlag(grant.env, params.key!);
          sendJson(res, 200, body, { etag: etagOf(version) });
        },
      },
      PATCH: {
        readOnly: false,
        body: true,
        action: 'update flags',
        handler: async ({ req, res, grant, params, body }) => {
          // Validated against the flag's type as the write finds it (on shared storage, caught up
          // with every instance's writes, inside the write's transaction).
          const patchOf = (type: AnyFlagType): UpdateFlagInput => {
            const patch = validateUpdateFlag(body, type);
            if (!patch.ok) throw validationError(patch.message);
            return patch.value;
          };
          const expected = ifMatchOf(req);
          const updated = await service.updateFlagVersioned(
            grant.env,
            params.key!,
            patchOf,
            grant.actor,
            expected,
          );
          sendJson(res, 200, updated.body, { etag: etagOf(updated.version) });
        },
      },
      DELETE: {
        readOnly: false,
        body: false,
        action: 'delete flags',
        handler: async ({ req, res, grant, params }) => {
          await service.deleteFlag(grant.env, params.key!, grant.actor, ifMatchOf(req));
          sendEmpty(res, 204);
        },
      },
    }),
  ];
}
