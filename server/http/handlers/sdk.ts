/** The SDK endpoints: `GET /sdk/flags` and the event stream (`docs/protocol.md` §5). */
import type { ServerResponse } from 'node:http';
import { Type } from '@sinclair/typebox';
import { SdkSnapshot } from '../../../src/core/schemas/sdk.js';
import { type Encoded, pickEncoding } from '../../stream/encoded.js';
import type { StreamHub } from '../../stream/hub.js';
import { ifNoneMatch } from '../etag.js';
import { ok } from '../openapi.js';
import { defineRoute, type RequestContext, type Route } from '../router.js';

function sendEncoded(res: ServerResponse, encoded: Encoded): void {
  res.writeHead(200, encoded.headers);
  res.end(encoded.bytes);
}

/** `Last-Event-ID` header, or the `lastEventId` query parameter for clients that cannot set headers. */
function lastEventIdOf(ctx: RequestContext): string | undefined {
  const header = ctx.req.headers['last-event-id'];
  if (typeof header === 'string' && header.length > 0) return header.trim();
  if (ctx.query) {
    const fromQuery = new URLSearchParams(ctx.query).get('lastEventId');
    if (fromQuery) return fromQuery;
  }
  return undefined;
}

/**
 * Whether the SDK evaluates targeting (§12.6): `targeting` among the comma-separated tokens of
 * `X-Flagwire-Capabilities`, or of the `capabilities` query parameter for clients that cannot set
 * headers (case-insensitive; unknown tokens ignored).
 */
export function hasTargeting(ctx: RequestContext): boolean {
  const header = ctx.req.headers['x-flagwire-capabilities'];
  const lists = [typeof header === 'string' ? header : ''];
  if (ctx.query) lists.push(...new URLSearchParams(ctx.query).getAll('capabilities'));
  return lists.some((list) => list.split(',').some((token) => token.trim().toLowerCase() === 'targeting'));
}

const CAPABILITIES =
  '`targeting` among its comma-separated tokens: every flag with its targeting fields, and `segments` (`docs/protocol.md` §12.6); `?capabilities=targeting` where headers cannot be set.';

/** The stream's body, in words: its frames are described, not schemed (`docs/protocol.md` §5.3). */
const EVENT_STREAM = Type.String({
  description:
    'Server-sent events: `flags:sync` (data: an `SdkSnapshot`, id its `eventId`), `flags:updated` (data: an `SdkFlagUpdate`, id `<epoch>:<revision>`), `segments:updated` with the targeting capability (data: an `SdkSegmentUpdate`), and `ping` (`{}`, no id) every 15 s.',
});

export function sdkRoutes(hub: StreamHub): Route[] {
  const flags = defineRoute(
    'sdk/flags',
    {
      GET: {
        readOnly: true,
        body: false,
        action: 'read flags',
        doc: {
          summary: "The environment's flags, as local evaluation needs them",
          description:
            'Compressed (`br`, `gzip`) when the body is 1 KiB or more and `Accept-Encoding` allows it. Served at the root too (`/sdk/flags`).',
          headers: {
            'If-None-Match': 'The `ETag` of a snapshot held: `304` while it is current.',
            'X-Flagwire-Capabilities': CAPABILITIES,
          },
          answers: {
            200: ok(
              'The snapshot; `ETag: "<epoch>:<revision>"` (`:targeting` with the capability)',
              SdkSnapshot,
            ),
            304: { description: 'Not modified: the `ETag` given is current' },
          },
        },
        handler: (ctx) => {
          const { req, res, grant } = ctx;
          const snapshot = hub.view(grant.env).snapshot(hasTargeting(ctx));
          if (ifNoneMatch(req.headers['if-none-match'], snapshot.etag)) {
            res.writeHead(304, snapshot.notModifiedHeaders);
            res.end();
            return;
          }
          const encoding = snapshot.encoded && pickEncoding(req.headers['accept-encoding']);
          if (!encoding) {
            res.writeHead(200, snapshot.okHeaders);
            res.end(snapshot.body);
            return;
          }
          // Compressed once per revision and encoding; only the first request of a revision waits.
          const ready = snapshot.encoded!.ready(encoding);
          if (ready) return sendEncoded(res, ready);
          return snapshot.encoded!.get(encoding).then((encoded) => sendEncoded(res, encoded));
        },
      },
    },
    true,
  );
  const stream = {
    GET: {
      readOnly: true,
      body: false,
      action: 'read flags',
      doc: {
        summary: "The environment's changes, as a stream of server-sent events",
        description:
          "Without a usable `Last-Event-ID`, a `flags:sync` first; with one of this epoch within the history, every missed frame, then live changes. `503 SERVICE_UNAVAILABLE` past the server's `maxStreams` open streams, with a `Retry-After`. Served at the root too.",
        headers: {
          'Last-Event-ID':
            'The id of the last frame applied (`<epoch>:<revision>`); `?lastEventId=` where headers cannot be set.',
          'X-Flagwire-Capabilities': CAPABILITIES,
        },
        answers: { 200: { description: 'The stream', schema: EVENT_STREAM, mediaType: 'text/event-stream' } },
      },
      handler: (ctx: RequestContext) =>
        hub.subscribe(ctx.grant.env, ctx.req, ctx.res, lastEventIdOf(ctx), ctx.grant, hasTargeting(ctx)),
    },
  };
  return [flags, defineRoute('sdk/events', stream, true), defineRoute('sdk/stream', stream, true)];
}
