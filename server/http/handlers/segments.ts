/** `/segments` and `/segments/:key` (`docs/protocol.md` §12.3): read-only keys may read. */
import type { SegmentService } from '../../state/segments/segment-service.js';
import { etagOf, ifMatchOf } from '../preconditions.js';
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
        handler: async ({ res, grant, body }) => {
          const created = await segments.createVersioned(grant.env, body, grant.actor);
          sendJson(res, 201, created.body, { etag: etagOf(created.version) });
        },
      },
    }),
    defineRoute('segments/:key', {
      GET: {
        readOnly: true,
        body: false,
        action: 'read segments',
        handler: async ({ res, grant, params }) => {
          const { body, version } = await segments.read(grant.env, params.key!);
          sendJson(res, 200, body, { etag: etagOf(version) });
        },
      },
      PATCH: {
        readOnly: false,
        body: true,
        maxBodyBytes: SEGMENT_BODY_BYTES,
        action: 'update segments',
        handler: async ({ req, res, grant, params, body }) => {
          const expected = ifMatchOf(req);
          const updated = await segments.updateVersioned(grant.env, params.key!, body, grant.actor, expected);
          sendJson(res, 200, updated.body, { etag: etagOf(updated.version) });
        },
      },
      DELETE: {
        readOnly: false,
        body: false,
        action: 'delete segments',
        handler: async ({ req, res, grant, params }) => {
          await segments.delete(grant.env, params.key!, grant.actor, ifMatchOf(req));
          sendEmpty(res, 204);
        },
      },
    }),
  ];
}
