/**
 * Usage (`docs/protocol.md` §13): SDKs' reports at `POST /sdk/usage` (under `/api/v1` and at the
 * root, as the other SDK endpoints), and the reads and marks under `/usage`. A `client` key is
 * refused by the pipeline (`403`), as on every `/api/v1` endpoint. With usage off, the API has
 * none of these routes (`404` as for any path it does not have), and the admin API's usage paths
 * answer `usageOff()` (§13.1).
 */
import type { UsageMarkAnswer, UsageOffAnswer } from '../../../src/core/usage-wire.js';
import { ApiError, validationError } from '../../errors.js';
import { RANGES, type UsageRange, type UsageService } from '../../state/usage/usage-service.js';
import { parseUsageReport } from '../../state/usage/validate.js';
import { type RateLimiter, retryAfter } from '../rate-limit.js';
import { sendJson } from '../respond.js';
import { defineRoute, type Route } from '../router.js';

/**
 * A report's body limit (§13.3), over the 1 MiB of other routes: 5,000 rows of 128-character keys
 * and 64-character variants are about 1.35 MB, and the largest valid report (every field at its
 * longest, 100 unknown keys of 256 escaped characters) about 1.65 MB.
 */
export const USAGE_BODY_BYTES = 2 * 1024 * 1024;

/** `{permanent?, snoozedUntil?}` of `PATCH /usage/flags/:key`, checked. */
function parseMark(body: unknown, now: number): { permanent?: boolean; snoozedUntil?: number | null } {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw validationError('the body must be a JSON object {permanent?, snoozedUntil?}');
  const patch: { permanent?: boolean; snoozedUntil?: number | null } = {};
  for (const [field, value] of Object.entries(body)) {
    if (field === 'permanent') {
      if (typeof value !== 'boolean') throw validationError('permanent: must be a boolean');
      patch.permanent = value;
    } else if (field === 'snoozedUntil') {
      const at = typeof value === 'string' ? Date.parse(value) : Number.NaN;
      if (value !== null && !(at > now))
        throw validationError('snoozedUntil: must be a future ISO 8601 date-time, or null');
      patch.snoozedUntil = value === null ? null : at;
    } else {
      throw validationError(`unknown field ${JSON.stringify(field)}: a mark has permanent and snoozedUntil`);
    }
  }
  return patch;
}

function rangeOf(query: string): UsageRange {
  const range = new URLSearchParams(query).get('range') ?? '24h';
  if (!Object.hasOwn(RANGES, range))
    throw validationError(`range: must be one of ${Object.keys(RANGES).join(', ')}`);
  return range as UsageRange;
}

/** The paths of §13: the report's (at the root too) and those of the reads and marks. */
const PATHS = {
  report: 'sdk/usage',
  flags: 'usage/flags',
  flag: 'usage/flags/:key',
  clients: 'usage/clients',
  unknown: 'usage/unknown',
  stale: 'usage/stale',
} as const;

/**
 * What the admin API's usage paths answer with usage off (§13.1): `404 NOT_FOUND`, as the API's
 * own (which has no usage routes then: an unknown route's), with `usage: false`, which says so.
 */
export function usageOff(): ApiError {
  const off: Pick<UsageOffAnswer, 'usage'> = { usage: false };
  return new ApiError(
    404,
    'NOT_FOUND',
    'usage is off on this server: it was started with --no-usage',
    undefined,
    off,
  );
}

/**
 * The reads' and marks' paths with usage off, every method answering `usageOff()`: for the admin
 * API, which forwards them (§10.3) once it has found the environment, so the dashboard knows.
 */
export function usageOffRoutes(): Route[] {
  const off = {
    readOnly: true,
    body: false,
    action: 'read usage',
    handler: () => {
      throw usageOff();
    },
  };
  const methods = Object.fromEntries(
    ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].map((m) => [m, off]),
  );
  return Object.values(PATHS)
    .filter((path) => path !== PATHS.report)
    .map((path) => defineRoute(path, methods));
}

export function usageRoutes(usage: UsageService, limiter: RateLimiter): Route[] {
  const read = (action: string) => ({ readOnly: true, body: false, action });
  return [
    defineRoute(
      PATHS.report,
      {
        POST: {
          readOnly: true,
          body: true,
          maxBodyBytes: USAGE_BODY_BYTES,
          action: 'report usage',
          handler: async ({ res, grant, body }) => {
            const record = parseUsageReport(body);
            const due = limiter.take(grant.id);
            if (due > 0) {
              const wait = retryAfter(due);
              throw new ApiError(
                429,
                'RATE_LIMITED',
                `this API key sent more usage reports than this server takes; retry in ${wait} s`,
                { 'retry-after': String(wait) },
              );
            }
            const duplicate = await usage.report(grant.env, record);
            sendJson(res, 202, { id: record.id, duplicate });
          },
        },
      },
      true,
    ),
    defineRoute(PATHS.flags, {
      GET: {
        ...read('read usage'),
        handler: async ({ res, grant }) => sendJson(res, 200, await usage.flags(grant.env)),
      },
    }),
    defineRoute(PATHS.flag, {
      GET: {
        ...read('read usage'),
        handler: async ({ res, grant, params, query }) => {
          const series = await usage.flag(grant.env, params.key!, rangeOf(query));
          if (!series)
            throw new ApiError(404, 'NOT_FOUND', `no flag or reported key ${JSON.stringify(params.key)}`);
          sendJson(res, 200, series);
        },
      },
      PATCH: {
        readOnly: false,
        body: true,
        action: 'mark flags',
        handler: async ({ res, grant, params, body }) => {
          const mark = await usage.mark(grant.env, params.key!, parseMark(body, usage.now()));
          const snoozedUntil = mark.snoozedUntil === null ? null : new Date(mark.snoozedUntil).toISOString();
          const answer: UsageMarkAnswer = { key: params.key!, permanent: mark.permanent, snoozedUntil };
          sendJson(res, 200, answer);
        },
      },
    }),
    defineRoute(PATHS.clients, {
      GET: {
        ...read('read usage'),
        handler: async ({ res, grant }) => sendJson(res, 200, await usage.clients(grant.env)),
      },
    }),
    defineRoute(PATHS.unknown, {
      GET: {
        ...read('read usage'),
        handler: async ({ res, grant }) => sendJson(res, 200, await usage.unknown(grant.env)),
      },
    }),
    defineRoute(PATHS.stale, {
      GET: {
        ...read('read usage'),
        handler: async ({ res, grant }) => sendJson(res, 200, await usage.stale(grant.env)),
      },
    }),
  ];
}
