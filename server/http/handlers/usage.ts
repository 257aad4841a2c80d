/**
 * Usage (`docs/protocol.md` §13): SDKs' reports at `POST /sdk/usage` (under `/api/v1` and at the
 * root, as the other SDK endpoints), and the reads and marks under `/usage`. A `client` key is
 * refused by the pipeline (`403`), as on every `/api/v1` endpoint.
 */
import type { UsageMarkAnswer } from '../../../src/core/usage-wire.js';
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

export function usageRoutes(usage: UsageService, limiter: RateLimiter): Route[] {
  const read = (action: string) => ({ readOnly: true, body: false, action });
  return [
    defineRoute(
      'sdk/usage',
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
    defineRoute('usage/flags', {
      GET: {
        ...read('read usage'),
        handler: async ({ res, grant }) => sendJson(res, 200, await usage.flags(grant.env)),
      },
    }),
    defineRoute('usage/flags/:key', {
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
    defineRoute('usage/clients', {
      GET: {
        ...read('read usage'),
        handler: async ({ res, grant }) => sendJson(res, 200, await usage.clients(grant.env)),
      },
    }),
    defineRoute('usage/unknown', {
      GET: {
        ...read('read usage'),
        handler: async ({ res, grant }) => sendJson(res, 200, await usage.unknown(grant.env)),
      },
    }),
    defineRoute('usage/stale', {
      GET: {
        ...read('read usage'),
        handler: async ({ res, grant }) => sendJson(res, 200, await usage.stale(grant.env)),
      },
    }),
  ];
}
