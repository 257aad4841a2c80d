/**
 * The admin API's change requests (`docs/protocol.md` §10.7):
 * `/admin/api/environments/:project/:env/change-requests[/:id]`, its reviews, applying and
 * scheduling. Editors propose, review, apply and schedule; only the author changes or withdraws
 * a request, and never approves it (`../state/changes/change-request-service.ts`).
 */
import { type TSchema, Type } from '@sinclair/typebox';
import * as C from '../../src/core/schemas/changes.js';
import { ErrorBody } from '../../src/core/schemas/common.js';
import type { ChangeRequestState } from '../../src/core/wire/changes.js';
import { checked } from '../errors.js';
import { errorAnswer, ok } from '../http/openapi.js';
import type { AnswerDoc } from '../http/operation-doc.js';
import { sendJson } from '../http/respond.js';
import { defineRoute, type MethodSpec, type Route } from '../http/router.js';
import type { AdminService } from '../state/admin/admin-service.js';
import type { ChangeRequestService } from '../state/changes/change-request-service.js';
import type { AdminGrant } from './routes.js';

const NOT_FOUND = errorAnswer('`NOT_FOUND`: no such project, environment or change request');
const CLOSED = errorAnswer(
  '`CONFLICT`: the request is closed (applied, withdrawn...) and cannot be changed so.',
);
const STALE: AnswerDoc = {
  description:
    '`CONFLICT`: a flag or segment moved since its change was written (`conflicts` lists them, nothing was written); or the request is closed (or, for a new one, the environment holds 1000 requests under way).',
  schema: C.ConflictBody,
};
const ANSWER = (what: string) => ok(what, C.ChangeRequest);

const StateQuery = Type.Object({ state: Type.Optional(C.ChangeRequestState) });

type Handler = MethodSpec<AdminGrant>['handler'];

export function changeRequestRoutes(admin: AdminService, service: ChangeRequestService): Route<AdminGrant>[] {
  const envOf = (params: Record<string, string>) => admin.environment(params.project!, params.env!);
  /** A `POST` that acts on one request, its body checked by `schema`. */
  const act = <S extends TSchema>(
    action: string,
    summary: string,
    schema: S | undefined,
    answers: Record<number, AnswerDoc>,
    handler: Handler,
  ): MethodSpec<AdminGrant> => ({
    readOnly: false,
    body: schema !== undefined,
    action,
    doc: {
      summary,
      ...(schema && { body: schema }),
      answers: { 200: ANSWER('The request'), 404: NOT_FOUND, ...answers },
    },
    handler,
  });

  return [
    defineRoute<AdminGrant>(
      'environments/:project/:env/change-requests',
      {
        GET: {
          readOnly: true,
          body: false,
          action: 'list change requests',
          doc: {
            summary: "The environment's change requests, newest first",
            query: { state: { schema: C.ChangeRequestState, description: 'Only those in this state.' } },
            answers: { 200: ok('The requests', Type.Array(C.ChangeRequest)), 404: NOT_FOUND },
          },
          handler: async ({ res, params, query }) => {
            const env = envOf(params);
            const state = new URLSearchParams(query).get('state') ?? undefined;
            if (state !== undefined) checked(StateQuery, { state });
            sendJson(res, 200, await service.list(env, state as ChangeRequestState | undefined));
          },
        },
        POST: {
          readOnly: false,
          body: true,
          action: 'propose changes',
          doc: {
            summary: 'Propose changes of flags and segments, for review (and a set time)',
            body: C.CreateChangeRequestInput,
            answers: { 201: ok('Created: the request', C.ChangeRequest), 404: NOT_FOUND, 409: STALE },
          },
          handler: async ({ res, params, body, grant }) => {
            const input = checked(C.CreateChangeRequestInput, body);
            sendJson(res, 201, await service.create(envOf(params), input, grant.actor));
          },
        },
      },
      true,
    ),
    defineRoute<AdminGrant>(
      'environments/:project/:env/change-requests/:id',
      {
        GET: {
          readOnly: true,
          body: false,
          action: 'read change requests',
          doc: {
            summary: 'A change request, with what each change would do now (`preview`)',
            answers: { 200: ANSWER('The request'), 404: NOT_FOUND },
          },
          handler: async ({ res, params }) =>
            sendJson(res, 200, await service.get(envOf(params), params.id!)),
        },
        PATCH: {
          readOnly: false,
          body: true,
          action: 'change change requests',
          doc: {
            summary:
              'Change a request (its author): its approvals are cleared; `rebase` takes the current versions',
            body: C.UpdateChangeRequestInput,
            answers: {
              200: ANSWER('The request, open again'),
              403: errorAnswer('`FORBIDDEN`: only its author changes a request.'),
              404: NOT_FOUND,
              409: STALE,
            },
          },
          handler: async ({ res, params, body, grant }) => {
            const patch = checked(C.UpdateChangeRequestInput, body);
            sendJson(res, 200, await service.update(envOf(params), params.id!, patch, grant.actor));
          },
        },
        DELETE: {
          readOnly: false,
          body: false,
          action: 'withdraw change requests',
          doc: {
            summary: 'Withdraw a request (its author)',
            answers: {
              200: ANSWER('The request, withdrawn'),
              403: errorAnswer('`FORBIDDEN`: only its author withdraws a request.'),
              404: NOT_FOUND,
              409: CLOSED,
            },
          },
          handler: async ({ res, params, grant }) =>
            sendJson(res, 200, await service.withdraw(envOf(params), params.id!, grant.actor)),
        },
      },
      true,
    ),
    defineRoute<AdminGrant>(
      'environments/:project/:env/change-requests/:id/reviews',
      {
        POST: act(
          'review change requests',
          'Approve or reject a request (anyone but its author)',
          C.ReviewInput,
          { 403: errorAnswer('`FORBIDDEN`: its author cannot review it.'), 409: CLOSED },
          async ({ res, params, body, grant }) => {
            const input = checked(C.ReviewInput, body);
            sendJson(res, 200, await service.review(envOf(params), params.id!, input, grant.actor));
          },
        ),
      },
      true,
    ),
    defineRoute<AdminGrant>(
      'environments/:project/:env/change-requests/:id/apply',
      {
        POST: act(
          'apply change requests',
          'Apply a request now, all or nothing, checking every change against its version',
          undefined,
          {
            403: {
              description: '`APPROVAL_REQUIRED`: it lacks the approvals the environment needs.',
              schema: ErrorBody,
            },
            409: STALE,
          },
          async ({ res, params, grant }) =>
            sendJson(res, 200, await service.apply(envOf(params), params.id!, grant.actor)),
        ),
      },
      true,
    ),
    defineRoute<AdminGrant>(
      'environments/:project/:env/change-requests/:id/schedule',
      {
        POST: act(
          'schedule change requests',
          'Set (or move) when a request is applied; once approved it is `scheduled`',
          C.ScheduleInput,
          { 409: CLOSED },
          async ({ res, params, body, grant }) => {
            const { at } = checked(C.ScheduleInput, body);
            sendJson(res, 200, await service.schedule(envOf(params), params.id!, at, grant.actor));
          },
        ),
      },
      true,
    ),
  ];
}
