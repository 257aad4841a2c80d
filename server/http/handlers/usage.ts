/**
 * Usage (`docs/protocol.md` §13): SDKs' reports at `POST /sdk/usage` (under `/api/v1` and at the
 * root, as the other SDK endpoints), and the reads and marks under `/usage`. A `client` key is
 * refused by the pipeline (`403`), as on every `/api/v1` endpoint. With usage off, the API has
 * none of these routes (`404` as for any path it does not have), and the admin API's usage paths
 * answer `usageOff()` (§13.1).
 */
import { Type } from '@sinclair/typebox';
import * as S from '../../../src/core/schemas/sdk.js';
import * as U from '../../../src/core/schemas/usage.js';
import type { UsageMarkAnswer, UsageOffAnswer } from '../../../src/core/usage-wire.js';
import { ApiError } from '../../errors.js';
import type { UsageService } from '../../state/usage/usage-service.js';
import { parseUsageMark, parseUsageRange, parseUsageReport } from '../../state/usage/validate.js';
import { errorAnswer, ok } from '../openapi.js';
import { type RateLimiter, retryAfter } from '../rate-limit.js';
import { sendJson } from '../respond.js';
import { defineRoute, type Route } from '../router.js';

/**
 * A report's body limit (§13.3), over the 1 MiB of other routes: 5,000 rows of 128-character keys
 * and 64-character variants are about 1.35 MB, and the largest valid report (every field at its
 * longest, 100 unknown keys of 256 escaped characters) about 1.65 MB.
 */
export const USAGE_BODY_BYTES = 2 * 1024 * 1024;

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
    doc: {
      summary: 'Usage is off on this server (`--no-usage`)',
      answers: { 404: ok('`NOT_FOUND`, with `usage: false`', U.UsageOffAnswer) },
    },
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

const NO_FLAG = errorAnswer('`NOT_FOUND`: no flag of that key');

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
          doc: {
            summary: "Report a client's evaluation counts",
            description:
              "Takes a full or read-only key; the body limit is 2 MiB. Counted exactly once per `id`. Also answers `429 RATE_LIMITED` past the key's rate (`usage.reportsPerSecond`, `usage.burst`: 50 a second, 1,000 at once by default), with a `Retry-After`, and `503 UNAVAILABLE` when the storage cannot commit or too many reports of the environment wait for it; neither counted (`docs/protocol.md` §13.3).",
            body: S.UsageReport,
            answers: {
              202: ok(
                'Counted, durably (`duplicate`: a report of this id was counted already)',
                S.UsageReportAnswer,
              ),
            },
          },
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
        doc: {
          summary: "Every flag's usage and stale state, sorted by key",
          answers: { 200: ok('The flags', Type.Array(U.FlagUsage)) },
        },
        handler: async ({ res, grant }) => sendJson(res, 200, await usage.flags(grant.env)),
      },
    }),
    defineRoute(PATHS.flag, {
      GET: {
        ...read('read usage'),
        doc: {
          summary: "A flag's (or a reported key's) evaluations per variant and reason over a range",
          query: { range: { schema: U.UsageRange, description: 'The range; `24h` when not given.' } },
          answers: {
            200: ok('The series', U.FlagUsageSeries),
            404: errorAnswer('`NOT_FOUND`: no flag or reported key of that key'),
          },
        },
        handler: async ({ res, grant, params, query }) => {
          const series = await usage.flag(grant.env, params.key!, parseUsageRange(query));
          if (!series)
            throw new ApiError(404, 'NOT_FOUND', `no flag or reported key ${JSON.stringify(params.key)}`);
          sendJson(res, 200, series);
        },
      },
      PATCH: {
        readOnly: false,
        body: true,
        action: 'mark flags',
        doc: {
          summary: 'Mark a flag permanent, or snooze it: its stale mark',
          body: U.UsageMarkInput,
          answers: { 200: ok('The mark as it now is', U.UsageMarkAnswer), 404: NO_FLAG },
        },
        handler: async ({ res, grant, params, body }) => {
          const mark = await usage.mark(
            grant.env,
            params.key!,
            parseUsageMark(body, usage.now()),
            grant.actor,
          );
          const snoozedUntil = mark.snoozedUntil === null ? null : new Date(mark.snoozedUntil).toISOString();
          const answer: UsageMarkAnswer = { key: params.key!, permanent: mark.permanent, snoozedUntil };
          sendJson(res, 200, answer);
        },
      },
    }),
    defineRoute(PATHS.clients, {
      GET: {
        ...read('read usage'),
        doc: {
          summary: 'The clients that reported usage, most recently seen first',
          answers: { 200: ok('The clients', U.UsageClients) },
        },
        handler: async ({ res, grant }) => sendJson(res, 200, await usage.clients(grant.env)),
      },
    }),
    defineRoute(PATHS.unknown, {
      GET: {
        ...read('read usage'),
        doc: {
          summary: 'Keys evaluated that are no flag, most evaluated first',
          answers: { 200: ok('The keys', Type.Array(U.UnknownKeyUsage)) },
        },
        handler: async ({ res, grant }) => sendJson(res, 200, await usage.unknown(grant.env)),
      },
    }),
    defineRoute(PATHS.stale, {
      GET: {
        ...read('read usage'),
        doc: {
          summary: 'The stale flags, for CI: none when `flags` is empty',
          answers: { 200: ok('The stale flags', U.StaleReport) },
        },
        handler: async ({ res, grant }) => sendJson(res, 200, await usage.stale(grant.env)),
      },
    }),
  ];
}
