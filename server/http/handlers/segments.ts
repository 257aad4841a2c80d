/** `/segments` and `/segments/:key` (`docs/protocol.md` §12.3): read-only keys may read. */
import type { SegmentService } from '../../state/segment-service.js';
import { sendEmpty, sendJson } from '../respond.js';
import { defineRoute, type Route } from '../router.js';

/** Segment bodies may list 50,000 keys: up to 4 MiB. */
const SEGMENT_BODY_BYTES = 4 * 1024 * 1024;

export function segmentRoutes(segments: SegmentService): Route[] {
  return [
    defineRoute('segments', {
      GET: {
        readOnly: true,
        body: false,
        action: 'list segments',
        handler: async ({ res, grant }) => sendJson(res, 200, await segments.list(grant.env)),
      },
      POST: {
        readOnly: false,
        body: true,
        maxBodyBytes: SEGMENT_BODY_BYTES,
        action: 'create segments',
        handler: async ({ res, grant, body }) =>
          sendJson(res, 201, await segments.create(grant.env, body, grant.actor)),
      },
    }),
    defineRoute('segments/:key', {
      GET: {
        readOnly: true,
        body: false,
        action: 'read segments',
        handler: async ({ res, grant, params }) =>
          sendJson(res, 200, await segments.get(grant.env, params.key!)),
      },
      PATCH: {
        readOnly: false,
        body: true,
        maxBodyBytes: SEGMENT_BODY_BYTES,
        action: 'update segments',
        handler: async ({ res, grant, params, body }) =>
          sendJson(res, 200, await segments.update(grant.env, params.key!, body, grant.actor)),
      },
      DELETE: {
        readOnly: false,
        body: false,
        action: 'delete segments',
        handler: async ({ res, grant, params }) => {
          await segments.delete(grant.env, params.key!, grant.actor);
          sendEmpty(res, 204);
        },
      },
    }),
  ];
}
