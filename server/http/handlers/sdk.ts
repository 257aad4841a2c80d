/** The SDK endpoints: `GET /sdk/flags` and the event stream (`docs/protocol.md` §5). */
import type { ServerResponse } from 'node:http';
import { type Encoded, pickEncoding } from '../../stream/encoded.js';
import type { StreamHub } from '../../stream/hub.js';
import { ifNoneMatch } from '../etag.js';
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

export function sdkRoutes(hub: StreamHub): Route[] {
  const flags = defineRoute(
    'sdk/flags',
    {
      GET: {
        readOnly: true,
        body: false,
        action: 'read flags',
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
      handler: (ctx: RequestContext) =>
        hub.subscribe(ctx.grant.env, ctx.req, ctx.res, lastEventIdOf(ctx), ctx.grant, hasTargeting(ctx)),
    },
  };
  return [flags, defineRoute('sdk/events', stream, true), defineRoute('sdk/stream', stream, true)];
}
