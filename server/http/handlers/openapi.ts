/**
 * `GET /api/v1/openapi.json` (served without a key) and `GET /admin/api/openapi.json` (behind the
 * admin credential): the API's OpenAPI 3.1 document (`docs/protocol.md` §3.5), written once, on
 * the first read, from the routes it describes.
 */
import { Type } from '@sinclair/typebox';
import { contentEtag, ifNoneMatch } from '../etag.js';
import { ok } from '../openapi.js';
import { sendBytes } from '../respond.js';
import { type Authenticated, defineRoute, type Route } from '../router.js';

/** The route `pattern` answering the document `write()` gives, with an `ETag`. */
export function documentRoute<G extends Authenticated>(
  pattern: string,
  write: () => Record<string, unknown>,
  anonymous: boolean,
): Route<G> {
  let cached: { bytes: Buffer; etag: string } | undefined;
  const document = () => {
    if (!cached) {
      const bytes = Buffer.from(JSON.stringify(write()));
      cached = { bytes, etag: contentEtag(bytes) };
    }
    return cached;
  };
  return defineRoute<G>(
    pattern,
    {
      GET: {
        readOnly: true,
        body: false,
        action: 'read the API description',
        doc: {
          summary: 'This document: the OpenAPI 3.1 description of the API',
          headers: { 'If-None-Match': 'The `ETag` of a document held: `304` while it is current.' },
          answers: {
            200: ok(
              'The document',
              Type.Object({ openapi: Type.Literal('3.1.0') }, { description: 'OpenAPI 3.1' }),
            ),
            304: { description: 'The document held is current' },
          },
        },
        handler: ({ req, res }) => {
          const { bytes, etag } = document();
          if (ifNoneMatch(req.headers['if-none-match'], etag)) {
            res.writeHead(304, { etag, 'cache-control': 'no-cache' });
            res.end();
            return;
          }
          sendBytes(res, 200, bytes, { etag, 'cache-control': 'no-cache' });
        },
      },
    },
    false,
    anonymous,
  );
}
