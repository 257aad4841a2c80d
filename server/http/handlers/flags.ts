/** `/flags` and `/flags/:key` (`docs/protocol.md` §3.1). */
import { Type } from '@sinclair/typebox';
import { ErrorBody } from '../../../src/core/schemas/common.js';
import * as F from '../../../src/core/schemas/flags.js';
import type { AnyFlagType, UpdateFlagInput } from '../../../src/core/types.js';
import { validateCreateFlag, validateUpdateFlag } from '../../../src/core/validation.js';
import { validationError } from '../../errors.js';
import type { FlagService } from '../../state/flags/flag-service.js';
import { errorAnswer, ok } from '../openapi.js';
import type { AnswerDoc } from '../operation-doc.js';
import { etagOf, ifMatchOf } from '../preconditions.js';
import { sendEmpty, sendJson } from '../respond.js';
import { defineRoute, type Route } from '../router.js';

const NO_FLAG = errorAnswer('`NOT_FOUND`: no flag of that key; the message names it.');
const ETAG = 'Its `ETag` is the flag\'s version (`"12"`, `docs/protocol.md` §3.3).';
const IF_MATCH = {
  'If-Match':
    '`*` or entity tags (`"12"`): the write applies only while the flag is at one of them (`docs/protocol.md` §3.3).',
};
const CHANGED: AnswerDoc = {
  description:
    '`PRECONDITION_FAILED`: the flag is at none of the `If-Match` versions; `current` is the flag now, with its `ETag`.',
  schema: Type.Composite([ErrorBody, Type.Object({ current: F.Flag })]),
};

export function flagRoutes(service: FlagService): Route[] {
  return [
    defineRoute('flags', {
      GET: {
        readOnly: true,
        body: false,
        action: 'list flags',
        doc: {
          summary: 'List the flags, sorted by key',
          answers: { 200: ok('The flags', Type.Array(F.Flag)) },
        },
        handler: async ({ res, grant }) => sendJson(res, 200, await service.listFlags(grant.env)),
      },
      POST: {
        readOnly: false,
        approval: true,
        body: true,
        action: 'create flags',
        doc: {
          summary: 'Create a flag (always disabled)',
          description: ETAG,
          body: F.CreateFlagInput,
          answers: {
            201: ok('Created: the flag', F.Flag),
            409: errorAnswer('`CONFLICT`: a flag of that key exists.'),
          },
        },
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
        doc: {
          summary: 'Read a flag',
          description: ETAG,
          answers: { 200: ok('The flag', F.Flag), 404: NO_FLAG },
        },
        handler: async ({ res, grant, params }) => {
          const { body, version } = await service.readFlag(grant.env, params.key!);
          sendJson(res, 200, body, { etag: etagOf(version) });
        },
      },
      PATCH: {
        readOnly: false,
        approval: true,
        body: true,
        action: 'update flags',
        doc: {
          summary: 'Change a flag; a field given replaces it whole, an empty patch changes nothing',
          description: ETAG,
          body: F.UpdateFlagInput,
          headers: IF_MATCH,
          answers: {
            200: ok('The flag as changed', F.Flag),
            404: NO_FLAG,
            409: errorAnswer(
              '`CONFLICT`: `variants` removes a variant still in use; the message names each user.',
            ),
            412: CHANGED,
          },
        },
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
        approval: true,
        body: false,
        action: 'delete flags',
        doc: {
          summary: 'Delete a flag',
          headers: IF_MATCH,
          answers: {
            204: { description: 'Deleted' },
            404: NO_FLAG,
            409: errorAnswer('`CONFLICT`: other flags list it as a prerequisite; the message names them.'),
            412: CHANGED,
          },
        },
        handler: async ({ req, res, grant, params }) => {
          await service.deleteFlag(grant.env, params.key!, grant.actor, ifMatchOf(req));
          sendEmpty(res, 204);
        },
      },
    }),
  ];
}
