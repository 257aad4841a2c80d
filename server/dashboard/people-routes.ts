/**
 * The admin API's people (`docs/protocol.md` §10.6): accounts (`users`, an admin's), one's own
 * password, sessions and personal tokens (`me/...`, `tokens`: anyone signed in; an admin lists
 * and revokes everyone's tokens). Accepting an invitation takes no credential: it is answered
 * before any is asked for (`invitationRoute`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Type } from '@sinclair/typebox';
import { SessionAnswer } from '../../src/core/schemas/admin.js';
import * as P from '../../src/core/schemas/people.js';
import type { CreatedToken, Invited } from '../../src/core/wire/people.js';
import { ApiError, checked } from '../errors.js';
import { readJsonBody } from '../http/body.js';
import { errorAnswer, ok } from '../http/openapi.js';
import { sendEmpty, sendJson } from '../http/respond.js';
import { defineRoute, type Route } from '../http/router.js';
import type { StoredUser } from '../state/kernel/model.js';
import type { PeopleService } from '../state/people/people-service.js';
import type { OwnOrigins } from './origins.js';
import { type Principal, roleOf } from './principal.js';
import type { AdminGrant } from './routes.js';
import type { AdminAuth } from './session.js';
import { crossOrigin, sessionAnswer } from './session-route.js';
import { sessionView, tokenView, userView } from './views.js';

export interface PeopleRouteDeps {
  people: PeopleService;
  origins: OwnOrigins;
}

const NO_USER = errorAnswer('`NOT_FOUND`: no user of that id');
const NOT_A_PERSON = () =>
  new ApiError(
    400,
    'BAD_REQUEST',
    'the admin token is no person: sign in as one to have a password or tokens',
  );

/** The person the request is, refusing the admin token where only a person makes sense. */
function person(principal: Principal): StoredUser {
  if (!principal.user) throw NOT_A_PERSON();
  return principal.user;
}

function invited(
  origins: OwnOrigins,
  req: IncomingMessage,
  user: StoredUser,
  token: string,
  expires: number,
): Invited {
  return {
    user: userView(user),
    inviteUrl: `${origins.linkOrigin(req)}/#invite=${token}`,
    expiresAt: new Date(expires).toISOString(),
  };
}

export function peopleRoutes(deps: PeopleRouteDeps): Route<AdminGrant>[] {
  const { people, origins } = deps;
  const expiresFromNow = () => people.settings.now() + people.settings.invitationMs;
  return [
    defineRoute<AdminGrant>(
      'users',
      {
        GET: {
          readOnly: true,
          role: 'admin',
          body: false,
          action: 'list people',
          doc: {
            summary: 'Every account',
            answers: { 200: ok('The accounts, oldest first', Type.Array(P.User)) },
          },
          handler: async ({ res }) => sendJson(res, 200, people.users().map(userView)),
        },
        POST: {
          readOnly: false,
          role: 'admin',
          body: true,
          action: 'invite people',
          doc: {
            summary: 'Invite a person: an account and a one-time link, shown once',
            body: P.NewUserInput,
            answers: {
              201: ok('Invited: send them the link', P.Invited),
              409: errorAnswer('`CONFLICT`: an account of that e-mail address exists'),
            },
          },
          handler: async ({ req, res, body, grant }) => {
            const input = checked(P.NewUserInput, body);
            const { user, token } = await people.invite(input, grant.actor);
            sendJson(res, 201, invited(origins, req, user, token, expiresFromNow()) satisfies Invited);
          },
        },
      },
      true,
    ),
    defineRoute<AdminGrant>(
      'users/:id',
      {
        GET: {
          readOnly: true,
          role: 'admin',
          body: false,
          action: 'read people',
          doc: { summary: 'One account', answers: { 200: ok('The account', P.User), 404: NO_USER } },
          handler: async ({ res, params }) => sendJson(res, 200, userView(people.user(params.id!))),
        },
        PATCH: {
          readOnly: false,
          role: 'admin',
          body: true,
          action: 'change people',
          doc: {
            summary: 'Change a role, project roles, a name, or disable an account',
            description:
              "A disabled user's sessions end now and their tokens stop working; a role change counts from the next request.",
            body: P.UserChangeInput,
            answers: { 200: ok('Changed', P.User), 404: NO_USER },
          },
          handler: async ({ res, params, body, grant }) =>
            sendJson(
              res,
              200,
              userView(await people.update(params.id!, checked(P.UserChangeInput, body), grant.actor)),
            ),
        },
        DELETE: {
          readOnly: false,
          role: 'admin',
          body: false,
          action: 'remove people',
          doc: {
            summary: 'Remove an account, with its sessions and tokens',
            description: 'The history keeps naming them as it did.',
            answers: { 204: { description: 'Removed' }, 404: NO_USER },
          },
          handler: async ({ res, params, grant }) => {
            await people.remove(params.id!, grant.actor);
            sendEmpty(res, 204);
          },
        },
      },
      true,
    ),
    defineRoute<AdminGrant>(
      'users/:id/invitation',
      {
        POST: {
          readOnly: false,
          role: 'admin',
          body: false,
          action: 'invite people',
          doc: {
            summary:
              'A new invitation link for a person who has not accepted theirs (the old one stops working)',
            answers: {
              201: ok('The new link, shown once', P.Invited),
              404: NO_USER,
              409: errorAnswer('`CONFLICT`: that person has signed in already'),
            },
          },
          handler: async ({ req, res, params, grant }) => {
            const token = await people.reinvite(params.id!, grant.actor);
            sendJson(res, 201, invited(origins, req, people.user(params.id!), token, expiresFromNow()));
          },
        },
      },
      true,
    ),
    defineRoute<AdminGrant>(
      'me/password',
      {
        POST: {
          readOnly: false,
          role: 'viewer',
          body: true,
          action: 'change your password',
          doc: {
            summary: 'Change your own password',
            body: P.PasswordChangeInput,
            answers: {
              204: { description: 'Changed' },
              400: errorAnswer(
                '`VALIDATION_ERROR`: the new password is refused; `BAD_REQUEST`: the admin token has none',
              ),
              403: errorAnswer('`FORBIDDEN`: the current password is not right'),
            },
          },
          handler: async ({ res, body, grant }) => {
            const input = checked(P.PasswordChangeInput, body);
            await people.changePassword(person(grant.principal).id, input.current, input.password);
            sendEmpty(res, 204);
          },
        },
      },
      true,
    ),
    defineRoute<AdminGrant>(
      'me/sessions',
      {
        GET: {
          readOnly: true,
          body: false,
          action: 'list your sessions',
          doc: {
            summary: 'Your sessions (the admin token: its sessions), newest first',
            answers: { 200: ok('The sessions', Type.Array(P.SessionView)) },
          },
          handler: async ({ res, grant }) => {
            const { principal } = grant;
            const current = principal.session?.id;
            sendJson(
              res,
              200,
              people.sessionsOf(principal.user?.id ?? null).map((s) => sessionView(s, current)),
            );
          },
        },
      },
      true,
    ),
    defineRoute<AdminGrant>(
      'me/sessions/:id',
      {
        DELETE: {
          readOnly: false,
          role: 'viewer',
          body: false,
          action: 'end your sessions',
          doc: {
            summary: 'End one of your sessions',
            answers: {
              204: { description: 'Ended' },
              404: errorAnswer('`NOT_FOUND`: no session of yours of that id'),
            },
          },
          handler: async ({ res, params, grant }) => {
            const owner = grant.principal.user?.id ?? null;
            if (!people.sessionsOf(owner).some((s) => s.id === params.id))
              throw new ApiError(404, 'NOT_FOUND', 'no session of yours of that id');
            await people.endSession(params.id!);
            sendEmpty(res, 204);
          },
        },
      },
      true,
    ),
    defineRoute<AdminGrant>(
      'tokens',
      {
        GET: {
          readOnly: true,
          body: false,
          action: 'list tokens',
          doc: {
            summary: "Personal access tokens: yours (an admin's answer holds everyone's)",
            answers: { 200: ok('The tokens, without their secrets', Type.Array(P.TokenView)) },
          },
          handler: async ({ res, grant }) => {
            const { principal } = grant;
            const all = roleOf(principal) === 'admin';
            sendJson(res, 200, people.tokensOf(all ? undefined : principal.user?.id).map(tokenView));
          },
        },
        POST: {
          readOnly: false,
          role: 'viewer',
          body: true,
          action: 'create tokens',
          doc: {
            summary: 'Create a personal access token, acting with your role: shown once',
            body: P.TokenInput,
            answers: {
              201: ok('Created: keep the token now, it is not shown again', P.CreatedToken),
              400: errorAnswer('`VALIDATION_ERROR`; `BAD_REQUEST`: the admin token owns no tokens'),
              409: errorAnswer('`CONFLICT`: you hold as many tokens as one may'),
            },
          },
          handler: async ({ res, body, grant }) => {
            const input = checked(P.TokenInput, body);
            const expiresAt = input.expiresAt ?? null;
            if (expiresAt !== null && Date.parse(expiresAt) <= people.settings.now())
              throw new ApiError(400, 'VALIDATION_ERROR', '"expiresAt" must be in the future');
            const { token, secret } = await people.createToken(
              person(grant.principal).id,
              input.name,
              expiresAt,
              grant.actor,
            );
            sendJson(res, 201, {
              id: token.id,
              name: token.name,
              token: secret,
              expiresAt: token.expiresAt,
            } satisfies CreatedToken);
          },
        },
      },
      true,
    ),
    defineRoute<AdminGrant>(
      'tokens/:id',
      {
        DELETE: {
          readOnly: false,
          role: 'viewer',
          body: false,
          action: 'revoke tokens',
          doc: {
            summary: "Revoke a personal access token: yours, or (an admin) anyone's",
            answers: {
              204: { description: 'Revoked' },
              404: errorAnswer('`NOT_FOUND`: no token of that id you may revoke'),
            },
          },
          handler: async ({ res, params, grant }) => {
            const { principal } = grant;
            const token = people.tokensOf().find((t) => t.id === params.id);
            if (!token || (roleOf(principal) !== 'admin' && token.user !== principal.user?.id))
              throw new ApiError(404, 'NOT_FOUND', 'no token of that id you may revoke');
            await people.revokeToken(token.id, grant.actor);
            sendEmpty(res, 204);
          },
        },
      },
      true,
    ),
  ];
}

export interface InvitationRouteDeps {
  people: PeopleService;
  auth: AdminAuth;
  isSameOrigin: (req: IncomingMessage) => boolean;
}

/** `POST /admin/api/invitations/accept`: takes no credential (the link's token is one). */
export function invitationRoute(deps: InvitationRouteDeps): Route<AdminGrant> {
  const { people, auth, isSameOrigin } = deps;
  return defineRoute<AdminGrant>(
    'invitations/accept',
    {
      POST: {
        readOnly: false,
        body: false,
        action: 'accept invitations',
        doc: {
          summary: 'Accept an invitation: set your password, and be signed in',
          description: "Only from the server's own `Origin`. A refused password does not use up the link.",
          body: P.InvitationAcceptInput,
          answers: {
            200: { ...ok('Accepted and signed in (the session cookie is set)', SessionAnswer) },
            400: errorAnswer(
              '`INVALID_JSON`: the body is not JSON; `VALIDATION_ERROR`: the password is under 12 characters (the link still works)',
            ),
            403: errorAnswer("`FORBIDDEN`: not from the server's own `Origin` (CSRF)."),
            410: errorAnswer('`GONE`: the link was used or has expired'),
            413: errorAnswer('`PAYLOAD_TOO_LARGE`: the body is over its limit.'),
            415: errorAnswer('`UNSUPPORTED_MEDIA_TYPE`: the body is not `application/json`.'),
          },
        },
        handler: async ({ req, res }) => accept(req, res),
      },
    },
    true,
    true,
  );

  async function accept(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!isSameOrigin(req)) throw crossOrigin();
    const input = checked(P.InvitationAcceptInput, await readJsonBody(req));
    const user = await people.accept(input.token, input.password, input.name);
    const session = await people.startSession(user.id, 'password');
    const answer = sessionAnswer({ user, via: 'password' });
    sendJson(
      res,
      200,
      { ...answer, user: answer.user },
      { 'set-cookie': auth.cookieOf({ id: session.id, expires: session.expires, person: true }) },
    );
  }
}
