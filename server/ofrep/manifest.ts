/**
 * The flag manifest the OpenFeature CLI pulls (`openfeature pull`): `GET /openfeature/v0/manifest`
 * as open-feature/cli's `api/v0/sync.yaml` describes it (`docs/protocol.md` §11.5), so its
 * `generate` commands write typed accessors for Flagwire flags with no Flagwire code. Read-only:
 * the sync API's writes answer 403, as sync.yaml documents for a token without write scope (no
 * key has it). Authenticated by the environment's API key as `Authorization: Bearer` (full or
 * read-only). Errors are the sync API's body `{"error": {"message", "status"}}`, which the CLI
 * reads and prints.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isObject } from '../../src/core/is-object.js';
import type { JsonValue } from '../../src/core/targeting/types.js';
import type { Flag } from '../../src/core/types.js';
import { CORS_HEADERS } from '../cors.js';
import type { Logger } from '../logger.js';
import type { KeyRing } from '../state/admin/key-ring.js';
import type { FlagService } from '../state/flags/flag-service.js';
import { notRestored } from '../state/kernel/damaged.js';
import { StorageUnavailableError } from '../store/errors.js';

/** A flag as the sync API's `ManifestFlag` describes it: one of the four types its enum has. */
export interface ManifestFlag {
  key: string;
  type: 'boolean' | 'string' | 'integer' | 'object';
  description: string | null;
  defaultValue: JsonValue;
}

/** `/openfeature/v0/manifest`, and the sync API's write paths under it (`flags`, `flags/:key`). */
const MANIFEST_PATH = /^\/+openfeature\/v0\/manifest(\/flags(\/[^/]+)?)?\/?$/;

const ALLOW = 'GET, HEAD, OPTIONS';

/** The methods sync.yaml documents on its write paths: creating, and updating or archiving one flag. */
const WRITES = { flags: 'POST', flag: 'PUT, DELETE' } as const;

/**
 * One flag in the manifest, or `undefined` for a flag sync.yaml has no type for. The default
 * value is what the flag serves when it is off: `false` for `boolean` and `rollout` flags, the off
 * variant's value for `string` and `number` flags, and for `json` flags the off variant's value
 * when it is an object, else `{}` (the sync API's default of an `object` flag is an object, and
 * the CLI refuses a missing one). A `number` flag with a non-integer variant is left out: the
 * sync API's types and default values hold integers only, and calling it `integer` would have
 * generated code read it as one.
 */
export function manifestFlagOf(flag: Flag): ManifestFlag | undefined {
  const { key, description } = flag;
  if (flag.type === 'boolean' || flag.type === 'rollout')
    return { key, type: 'boolean', description, defaultValue: false };
  const off = flag.variants[flag.offVariant];
  if (flag.type === 'string') return { key, type: 'string', description, defaultValue: off ?? '' };
  if (flag.type === 'number') {
    const integers = Object.values(flag.variants).every((value) => Number.isInteger(value));
    return integers ? { key, type: 'integer', description, defaultValue: off ?? 0 } : undefined;
  }
  return { key, type: 'object', description, defaultValue: isObject(off) ? off : {} };
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const bytes = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const head: Record<string, string> = { ...CORS_HEADERS, 'cache-control': 'no-store', ...headers };
  if (bytes) head['content-type'] = 'application/json';
  head['content-length'] = String(bytes?.length ?? 0);
  res.writeHead(status, head).end(bytes);
}

/** The sync API's `ErrorResponse`. */
function fail(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) {
  send(res, status, { error: { message, status } }, headers);
}

export interface ManifestDeps {
  logger: Logger;
  keys: KeyRing;
  flags: FlagService;
}

/** Answers the manifest's paths; `false` for any other path. */
export function createManifestHandler({ logger, keys, flags }: ManifestDeps) {
  async function handle(
    req: IncomingMessage,
    res: ServerResponse,
    write: keyof typeof WRITES | undefined,
  ): Promise<void> {
    const method = req.method ?? 'GET';
    if (method === 'OPTIONS') {
      return send(res, 204, undefined, {
        allow: ALLOW,
        'access-control-allow-methods': ALLOW,
        'access-control-allow-headers': 'Authorization, Accept',
        'access-control-max-age': '86400',
      });
    }
    const grant = keys.authenticateOn(req.socket, req.headers.authorization);
    if (!grant)
      return fail(res, 401, 'an API key of the environment is required: Authorization: Bearer <key>');
    const refused = notRestored(grant.env);
    if (refused) return fail(res, 503, refused.message, refused.headers);
    if (write) {
      // A write sync.yaml documents is a token without write scope (403); another method, no route.
      const allowed = `${WRITES[write]}, OPTIONS`;
      if (!WRITES[write].split(', ').includes(method))
        return fail(res, 405, `${method} is not allowed; allowed: ${allowed}`, { allow: allowed });
      return fail(
        res,
        403,
        "this API key does not have write access: Flagwire's manifest is read-only; change flags with the management API or the dashboard",
        { 'x-manifest-capabilities': 'read' },
      );
    }
    if (method !== 'GET' && method !== 'HEAD')
      return fail(res, 405, `${method} is not allowed; allowed: ${ALLOW}`, { allow: ALLOW });
    if (grant.access === 'client')
      return fail(res, 403, 'a client key evaluates flags through OFREP only; use a read-only key');
    // A settled read, as GET /flags (§7.3); Node sends no body to a HEAD request.
    const listed = (await flags.listFlags(grant.env)).map(manifestFlagOf);
    const manifest = { flags: listed.filter((flag) => flag !== undefined) };
    send(res, 200, manifest, { 'x-manifest-capabilities': 'read' });
  }

  return (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> | false => {
    const match = MANIFEST_PATH.exec(path);
    if (!match) return false;
    const write = match[1] === undefined ? undefined : match[2] === undefined ? 'flags' : 'flag';
    return handle(req, res, write).catch((error: unknown) => {
      if (res.headersSent) return void res.destroy();
      if (error instanceof StorageUnavailableError)
        return fail(res, 503, error.message, { 'retry-after': '1' });
      logger.error(`internal error on ${req.method} ${path}: ${(error as Error)?.stack ?? error}`);
      fail(res, 500, 'internal server error');
    });
  };
}
