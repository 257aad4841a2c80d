/**
 * The OpenFeature Remote Evaluation Protocol on the reference server (`docs/protocol.md` §11,
 * open-feature/protocol `service/openapi.yaml` v0.3): `POST /ofrep/v1/evaluate/flags/:key`,
 * `POST /ofrep/v1/evaluate/flags` (bulk, with ETag and `eventStreams`) and the change stream
 * `GET /ofrep/v1/events?token=...`. Authenticated by the environment's API key, as
 * `Authorization: Bearer` or `X-API-Key`; read-only keys suffice. Errors are OFREP's bodies
 * `{key?, errorCode, errorDetails}`, and 401 has no body, as the protocol describes. Paths that
 * are not OFREP's go to the OpenFeature CLI's manifest (`./manifest.ts`, §11.5), then elsewhere.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../errors.js';
import { isClientGone } from '../http/app.js';
import { readJsonBody } from '../http/body.js';
import { ifNoneMatch } from '../http/etag.js';
import { decodeSegment } from '../http/router.js';
import type { Logger } from '../logger.js';
import type { KeyRing } from '../state/admin/key-ring.js';
import type { FlagService } from '../state/flags/flag-service.js';
import { notRestored } from '../state/kernel/damaged.js';
import type { Ledger } from '../state/kernel/ledger.js';
import type { OfrepUsage } from '../state/usage/ofrep.js';
import { StorageUnavailableError } from '../store/errors.js';
import {
  bulkEtag,
  type EvaluationCounter,
  evaluateAll,
  evaluateOne,
  failureStatus,
  type OfrepContext,
  OfrepError,
  parseContext,
} from './evaluate.js';
import { createManifestHandler } from './manifest.js';
import { type OfrepStreams, tokenWindow } from './stream.js';

const CORS: Record<string, string> = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'ETag',
};
const PREFLIGHT: Record<string, string> = {
  ...CORS,
  'access-control-allow-methods': 'POST, GET, OPTIONS',
  'access-control-allow-headers': 'Content-Type, Authorization, If-None-Match, X-API-Key',
  'access-control-max-age': '86400',
};

/** `/ofrep/v1/...`, tolerating the `//ofrep` that clients joining a base URL with a trailing slash send. */
const OFREP_PATH = /^\/+ofrep\/v1\/(evaluate\/flags(?:\/([^/]+))?|events)\/?$/;

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const bytes = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const head: Record<string, string> = { ...CORS, ...headers };
  // An answer sent before the request's body arrived (a 401, say) closes the connection, as every
  // refusal of an unread body does (`docs/protocol.md` §4): the body is never read.
  if (!res.req.complete) head.connection = 'close';
  if (bytes) {
    head['content-type'] = 'application/json';
    head['content-length'] = String(bytes.length);
  } else {
    head['content-length'] = '0';
  }
  res.writeHead(status, head).end(bytes);
}

async function readContext(req: IncomingMessage): Promise<OfrepContext> {
  try {
    return parseContext(await readJsonBody(req));
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.code === 'INVALID_JSON') throw new OfrepError(400, 'PARSE_ERROR', error.message);
    throw new OfrepError(error.status, 'GENERAL', error.message);
  }
}

export interface OfrepDeps {
  logger: Logger;
  keys: KeyRing;
  flags: FlagService;
  /** Settled reads of what is evaluated (`docs/protocol.md` §7.3). */
  ledger: Ledger;
  streams: OfrepStreams;
  /** Counts the flags evaluated, single and in bulk (`docs/protocol.md` §13.5); absent when usage is off. */
  usage?: OfrepUsage | undefined;
}

/** Answers OFREP's paths; `false` for any other path. */
export function createOfrepHandler({ logger, keys, flags, ledger, streams, usage }: OfrepDeps) {
  async function handle(
    req: IncomingMessage,
    res: ServerResponse,
    route: string,
    key: string | undefined,
    query: string,
  ) {
    const method = req.method ?? 'GET';
    if (method === 'OPTIONS') return send(res, 204, undefined, PREFLIGHT);
    if (route === 'events') {
      if (method !== 'GET' && method !== 'HEAD')
        throw new OfrepError(405, 'GENERAL', `${method} is not allowed; use GET`);
      const grant = streams.verify(new URLSearchParams(query).get('token'));
      if (!grant) return send(res, 401, undefined);
      if (streams.full) {
        // Shed load as the SDK stream does (§5.3); OFREP's Retry-After is in whole seconds.
        const retry = String(1 + Math.floor(Math.random() * 5));
        return send(
          res,
          503,
          { errorCode: 'GENERAL', errorDetails: 'too many open streams; retry later' },
          {
            'retry-after': retry,
          },
        );
      }
      return streams.subscribe(grant, req, res, CORS);
    }
    if (method !== 'POST') throw new OfrepError(405, 'GENERAL', `${method} is not allowed; use POST`);
    const apiKey = req.headers['x-api-key'];
    const header =
      typeof apiKey === 'string' && apiKey !== '' ? `Bearer ${apiKey}` : req.headers.authorization;
    const grant = keys.authenticateOn(req.socket, header);
    if (!grant) return send(res, 401, undefined);
    const refused = notRestored(grant.env);
    if (refused) throw new OfrepError(503, 'GENERAL', refused.message);
    const context = await readContext(req);
    const env = grant.env;
    // A settled read (§7.3) of memory as it stands: evaluated, then answered once what it saw is durable.
    // Every flag answered counts one evaluation (§13.5), in a bulk answer too: the web provider
    // only asks in bulk. A `304` answers nothing new and counts nothing.
    const count = usage && ((...args: Parameters<EvaluationCounter>) => usage.count(env, ...args));
    if (key !== undefined) {
      const result = await ledger.readSettled(null, () => evaluateOne(env, key, context, count));
      const errorCode = result.errorCode;
      return send(res, typeof errorCode === 'string' ? failureStatus(errorCode) : 200, result);
    }
    const window = tokenWindow();
    const read = await ledger.readSettled(null, () => {
      const etag = bulkEtag(env, grant.id, context, window);
      if (ifNoneMatch(req.headers['if-none-match'], etag)) return { etag };
      const spent = (left: number) =>
        logger.warn(
          `OFREP bulk evaluation of ${env.project}/${env.environment} spent its budget: ${left} flags answered GENERAL`,
        );
      return { etag, evaluated: evaluateAll(env, context, count, spent), revision: env.revision };
    });
    const { etag, evaluated, revision } = read;
    if (!evaluated) return send(res, 304, undefined, { etag });
    const body = {
      flags: evaluated,
      metadata: { project: env.project, environment: env.environment, revision },
      eventStreams: [
        {
          type: 'sse',
          endpoint: { requestUri: `/ofrep/v1/events?token=${streams.token(grant)}` },
          inactivityDelaySec: 120,
        },
      ],
    };
    return send(res, 200, body, { etag, 'cache-control': 'no-cache' });
  }

  // The OpenFeature CLI's manifest (§11.5) is OpenFeature's too: answered by this front.
  const manifest = createManifestHandler({ logger, keys, flags });
  return (req: IncomingMessage, res: ServerResponse, path: string, query: string): Promise<void> | false => {
    const match = OFREP_PATH.exec(path);
    if (!match) return manifest(req, res, path);
    const route = match[1]!.startsWith('events') ? 'events' : 'evaluate';
    const key = match[2] === undefined ? undefined : decodeSegment(match[2]);
    return handle(req, res, route, key, query).catch((error: unknown) => {
      if (res.headersSent) return void res.destroy();
      let failure = error;
      if (!(error instanceof OfrepError) && isClientGone(req, error)) return void res.destroy();
      if (error instanceof StorageUnavailableError) failure = new OfrepError(503, 'GENERAL', error.message);
      else if (!(error instanceof OfrepError)) {
        logger.error(`internal error on ${req.method} ${path}: ${(error as Error)?.stack ?? error}`);
        failure = new OfrepError(500, 'GENERAL', 'internal server error');
      }
      const { status, errorCode, message } = failure as OfrepError;
      const body: Record<string, string> = { errorCode, errorDetails: message };
      const headers: Record<string, string> = status === 503 ? { 'retry-after': '1' } : {};
      if (!req.complete) headers.connection = 'close';
      send(res, status, key === undefined ? body : { key, ...body }, headers);
    });
  };
}
