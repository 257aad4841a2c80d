/** `/segments` and `/segments/:key` (`docs/protocol.md` §12.3): read-only keys may read. */
import { Type } from '@sinclair/typebox';
import { ErrorBody } from '../../../src/core/schemas/common.js';
import * as S from '../../../src/core/schemas/segments.js';
import type { SegmentService } from '../../state/segments/segment-service.js';
import { errorAnswer, ok } from '../openapi.js';
import type { AnswerDoc } from '../operation-doc.js';
import { etagOf, ifMatchOf } from '../preconditions.js';
import { sendEmpty, sendJson } from '../respond.js';
import { defineRoute, type Route } from '../router.js';

/** Segment bodies may list 50,000 keys: up to 4 MiB. */
const SEGMENT_BODY_BYTES = 4 * 1024 * 1024;

const NO_SEGMENT = errorAnswer('`NOT_FOUND`: no segment of that key; the message names it.');
const ETAG = 'Its `ETag` is the segment\'s version (`"12"`, `docs/protocol.md` §3.3).';
const IF_MATCH = {
  'If-Match':
    '`*` or entity tags (`"12"`): the write applies only while the segment is at one of them (`docs/protocol.md` §3.3).',
};
const CHANGED: AnswerDoc = {
  description:
    '`PRECONDITION_FAILED`: the segment is at none of the `If-Match` versions; `current` is the segment now, with its `ETag`.',
  schema: Type.Composite([ErrorBody, Type.Object({ current: S.SegmentRecord })]),
};

export function segmentRoutes(segments: SegmentService): Route[] {
  return [
    defineRoute('segments', {
      GET: {
        readOnly: true,
        body: false,
        action: 'list segments',
        doc: {
          summary: 'List the segments, sorted by key',
          answers: { 200: ok('The segments', Type.Array(S.SegmentRecord)) },
        },
        handler: async ({ res, grant }) => sendJson(res, 200, await segments.list(grant.env)),
      },
      POST: {
        readOnly: false,
        approval: true,
        body: true,
        maxBodyBytes: SEGMENT_BODY_BYTES,
        action: 'create segments',
        doc: {
          summary: 'Create a segment',
          description: `${ETAG} Bodies up to 4 MiB.`,
          body: S.CreateSegmentInput,
          answers: {
            201: ok('Created: the segment', S.SegmentRecord),
            409: errorAnswer('`CONFLICT`: a segment of that key exists.'),
          },
        },
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
        doc: {
          summary: 'Read a segment',
          description: ETAG,
          answers: { 200: ok('The segment', S.SegmentRecord), 404: NO_SEGMENT },
        },
        handler: async ({ res, grant, params }) => {
          const { body, version } = await segments.read(grant.env, params.key!);
          sendJson(res, 200, body, { etag: etagOf(version) });
        },
      },
      PATCH: {
        readOnly: false,
        approval: true,
        body: true,
        maxBodyBytes: SEGMENT_BODY_BYTES,
        action: 'update segments',
        doc: {
          summary: 'Change a segment; a field given replaces it whole',
          description: `${ETAG} Bodies up to 4 MiB.`,
          body: S.UpdateSegmentInput,
          headers: IF_MATCH,
          answers: { 200: ok('The segment as changed', S.SegmentRecord), 404: NO_SEGMENT, 412: CHANGED },
        },
        handler: async ({ req, res, grant, params, body }) => {
          const expected = ifMatchOf(req);
          const updated = await segments.updateVersioned(grant.env, params.key!, body, grant.actor, expected);
          sendJson(res, 200, updated.body, { etag: etagOf(updated.version) });
        },
      },
      DELETE: {
        readOnly: false,
        approval: true,
        body: false,
        action: 'delete segments',
        doc: {
          summary: 'Delete a segment',
          headers: IF_MATCH,
          answers: {
            204: { description: 'Deleted' },
            404: NO_SEGMENT,
            409: errorAnswer("`CONFLICT`: flags' rules use it; the message names them."),
            412: CHANGED,
          },
        },
        handler: async ({ req, res, grant, params }) => {
          await segments.delete(grant.env, params.key!, grant.actor, ifMatchOf(req));
          sendEmpty(res, 204);
        },
      },
    }),
  ];
}
