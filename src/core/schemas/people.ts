/**
 * People's schemas (`docs/protocol.md` §10.6): accounts and their roles, invitations, signing
 * in, sessions kept on the server and personal access tokens. Passwords and tokens appear in
 * requests and in the one answer that shows a new token; no answer carries a password.
 */
import { Type } from '@sinclair/typebox';
import { FLAG_KEY_MAX_LENGTH, FLAG_KEY_PATTERN } from '../limits.js';
import { Nullable, Timestamp } from './common.js';

export const Role = Type.Union([Type.Literal('admin'), Type.Literal('editor'), Type.Literal('viewer')], {
  $id: 'Role',
  description:
    '`admin`: people, projects, environments, keys and everything else; `editor`: flags, segments, webhooks, copies; `viewer`: reads.',
  errorMessage: 'must be one of admin, editor, viewer',
});

export const ProjectRoles = Type.Record(
  Type.String({ pattern: FLAG_KEY_PATTERN.source, maxLength: FLAG_KEY_MAX_LENGTH }),
  Role,
  {
    $id: 'ProjectRoles',
    description: 'Roles inside projects, by project key: each replaces the global role inside that project.',
    maxProperties: 1000,
  },
);

const Email = Type.String({
  minLength: 3,
  maxLength: 254,
  pattern: '^[^\\s@]+@[^\\s@]+$',
  description: 'An e-mail address (compared without case).',
  errorMessage: 'must be an e-mail address',
});

const DisplayName = Type.String({
  minLength: 1,
  maxLength: 200,
  description: 'How the person reads on screen.',
});

const Password = Type.String({
  description: 'At least 12 characters (at most 1024).',
});

export const User = Type.Object(
  {
    id: Type.String({ description: '`usr_` and 16 hex characters.' }),
    email: Type.String(),
    name: Type.String(),
    role: Role,
    projects: ProjectRoles,
    disabled: Type.Boolean(),
    status: Type.Union([Type.Literal('invited'), Type.Literal('active'), Type.Literal('disabled')], {
      description: '`invited` until the invitation is accepted (or the person signs in through SSO).',
    }),
    sso: Type.Boolean({ description: 'Whether the person has signed in through single sign-on.' }),
    createdAt: Timestamp,
  },
  { $id: 'User', description: 'A person with an account.' },
);

export const SessionUser = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    name: Type.String(),
    role: Role,
    projects: ProjectRoles,
  },
  { $id: 'SessionUser', description: 'The person signed in, as `GET /admin/api/session` names them.' },
);

export const SignedInVia = Type.Union(
  [Type.Literal('password'), Type.Literal('oidc'), Type.Literal('token'), Type.Literal('adminToken')],
  {
    $id: 'SignedInVia',
    description:
      'How the request is signed in: a password, single sign-on, a personal token, the admin token.',
  },
);

export const NewUserInput = Type.Object(
  { email: Email, name: Type.Optional(DisplayName), role: Role, projects: Type.Optional(ProjectRoles) },
  {
    $id: 'NewUserInput',
    description: '`POST /admin/api/users`: invites a person; the answer holds their one-time link.',
    additionalProperties: false,
  },
);

export const UserChangeInput = Type.Object(
  {
    role: Type.Optional(Role),
    projects: Type.Optional(ProjectRoles),
    disabled: Type.Optional(Type.Boolean()),
    name: Type.Optional(DisplayName),
  },
  {
    $id: 'UserChangeInput',
    description:
      "`PATCH /admin/api/users/:id`: a role, project roles, disabled (the user's sessions and tokens stop at once), a name.",
    additionalProperties: false,
  },
);

export const Invited = Type.Object(
  {
    user: User,
    inviteUrl: Type.String({
      description: 'The one-time link, `<server origin>/#invite=<TOKEN>`: shown once.',
    }),
    expiresAt: Timestamp,
  },
  { $id: 'Invited', description: 'A person invited: their account and the link to send them.' },
);

export const InvitationAcceptInput = Type.Object(
  { token: Type.String({ maxLength: 200 }), password: Password, name: Type.Optional(DisplayName) },
  {
    $id: 'InvitationAcceptInput',
    description: '`POST /admin/api/invitations/accept`: the token of the link, the password chosen.',
    additionalProperties: false,
  },
);

export const PasswordSignIn = Type.Object(
  { email: Type.String({ maxLength: 254 }), password: Type.String({ maxLength: 4096 }) },
  { description: 'A person signs in with their e-mail address and password.', additionalProperties: false },
);

export const TokenSignIn = Type.Object(
  { token: Type.String({ description: 'The admin token.' }) },
  { description: 'The admin token, exchanged for a session.', additionalProperties: false },
);

export const PasswordChangeInput = Type.Object(
  { current: Type.Optional(Type.String({ maxLength: 4096 })), password: Password },
  {
    $id: 'PasswordChangeInput',
    description: '`POST /admin/api/me/password`: the current password and the new one.',
    additionalProperties: false,
  },
);

export const SessionView = Type.Object(
  {
    id: Type.String(),
    via: SignedInVia,
    createdAt: Timestamp,
    lastSeenAt: Timestamp,
    expiresAt: Timestamp,
    current: Type.Boolean({ description: "Whether it is the request's own session." }),
  },
  { $id: 'SessionView', description: 'A session kept on the server.' },
);

export const TokenInput = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, description: 'What the token is for.' }),
    expiresAt: Type.Optional(Nullable(Timestamp)),
  },
  {
    $id: 'TokenInput',
    description: "`POST /admin/api/tokens`: a personal access token, acting with its owner's role.",
    additionalProperties: false,
  },
);

export const TokenView = Type.Object(
  {
    id: Type.String({ description: '`pat_` and 16 hex characters.' }),
    name: Type.String(),
    user: Type.String({ description: "The owner's id." }),
    createdAt: Timestamp,
    expiresAt: Nullable(Timestamp),
  },
  { $id: 'TokenView', description: 'A personal access token, without its secret.' },
);

export const CreatedToken = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    token: Type.String({ description: '`fw_pat_` and 40 characters of `[A-Za-z0-9]`: shown once.' }),
    expiresAt: Nullable(Timestamp),
  },
  { $id: 'CreatedToken', description: 'A new personal access token: its secret is shown this once.' },
);
