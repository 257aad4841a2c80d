/**
 * The audit log of the admin API (`docs/protocol.md` §10.6): `GET /admin/api/audit`, an admin's,
 * every committed change across projects, newest first, filtered by project, actor and time;
 * `Accept: application/x-ndjson` exports it as JSON lines. The records are the state's
 * (`../state/kernel/audit.ts`), read settled: only what is durable.
 */
import { Type } from '@sinclair/typebox';
import * as Au from '../../src/core/schemas/audit.js';
import type { AuditRecord } from '../../src/core/wire/audit.js';
import { CORS_HEADERS } from '../cors.js';
import { ApiError, checked } from '../errors.js';
import { ok } from '../http/openapi.js';
import { sendJson } from '../http/respond.js';
import { defineRoute, type Route } from '../http/router.js';
import { readAudit } from '../state/kernel/audit-read.js';
import type { Ledger } from '../state/kernel/ledger.js';
import type { MemoryState } from '../state/kernel/model.js';
import type { AdminGrant } from './routes.js';

export interface AuditRouteDeps {
  /** Memory, whose records the route reads. */
  db: MemoryState;
  /** Settled reads (`docs/protocol.md` §7.3). */
  ledger: Ledger;
}

/** JSON lines: the export's media type. */
export const NDJSON = 'application/x-ndjson';
/** The most records a JSON answer holds (an export holds up to `AuditLimit`'s maximum). */
export const AUDIT_JSON_MAX = 1000;

/** `?project=&actor=&since=&limit=`, checked; `limit` at most `max`. */
export function auditQuery(query: string, max: number) {
  const params = new URLSearchParams(query);
  const raw: Record<string, unknown> = {};
  for (const name of ['project', 'actor', 'since'] as const) {
    const value = params.get(name);
    if (value !== null) raw[name] = value;
  }
  const limit = params.get('limit');
  if (limit !== null) raw.limit = /^\d+$/.test(limit) ? Number(limit) : limit;
  const input = checked(Au.AuditQuery, raw);
  const since = input.since === undefined ? undefined : Date.parse(input.since);
  if (since !== undefined && Number.isNaN(since))
    throw new ApiError(400, 'VALIDATION_ERROR', '"since" is not an ISO 8601 time');
  const count = input.limit ?? (Au.AuditLimit.default as number);
  if (count > max)
    throw new ApiError(
      400,
      'VALIDATION_ERROR',
      `"limit" must be at most ${max} (JSON lines take up to 100000)`,
    );
  return {
    limit: count,
    ...(input.project !== undefined && { project: input.project }),
    ...(input.actor !== undefined && { actor: input.actor }),
    ...(since !== undefined && { since }),
  };
}

/** Whether the request asks for JSON lines. */
const wantsLines = (accept: string | undefined): boolean => accept?.toLowerCase().includes(NDJSON) ?? false;

export function auditRoutes(deps: AuditRouteDeps): Route<AdminGrant>[] {
  const { db, ledger } = deps;
  return [
    defineRoute<AdminGrant>(
      'audit',
      {
        GET: {
          readOnly: true,
          role: 'admin',
          body: false,
          action: 'read the audit log',
          doc: {
            summary: 'The audit log: every change across projects, who made it, before and after',
            description:
              'Newest first. `Accept: application/x-ndjson` exports the same records as JSON lines (`limit` up to 100000). A record never holds a secret.',
            query: {
              project: { schema: Type.String(), description: "Only this project's records." },
              actor: {
                schema: Type.String(),
                description:
                  "Only this actor's records, by id (`usr_…`, `pat_…`, `key_…`, `admin-token`); a user's id finds what their tokens did too.",
              },
              since: {
                schema: Type.String({ format: 'date-time' }),
                description: 'Only records at or after this time (ISO 8601).',
              },
              limit: {
                schema: Au.AuditLimit,
                description: 'At most this many records: 200 unless given; up to 1000 as JSON.',
              },
            },
            answers: {
              200: ok(
                'The records, newest first (as JSON lines when asked: `application/x-ndjson`)',
                Type.Array(Au.AuditRecord),
              ),
            },
          },
          handler: async ({ req, res, query }) => {
            const lines = wantsLines(req.headers.accept);
            const filter = auditQuery(query, lines ? (Au.AuditLimit.maximum as number) : AUDIT_JSON_MAX);
            // A settled read (§7.3): answers only what is durable.
            const records: AuditRecord[] = await ledger.readSettled(null, () => readAudit(db, filter));
            if (!lines) return sendJson(res, 200, records);
            const body = Buffer.from(records.map((r) => `${JSON.stringify(r)}\n`).join(''));
            res.writeHead(200, {
              ...CORS_HEADERS,
              'content-type': NDJSON,
              'content-length': String(body.length),
            });
            res.end(body);
          },
        },
      },
      true,
    ),
  ];
}
