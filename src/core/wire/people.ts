/**
 * The types of `../schemas/people.ts`, written by `npm run wire-types`: do not edit; change
 * the schema and run it again.
 */

/** A new personal access token: its secret is shown this once. */
export interface CreatedToken {
  id: string;
  name: string;
  /** `fw_pat_` and 40 characters of `[A-Za-z0-9]`: shown once. */
  token: string;
  expiresAt: string | null;
}

/** `POST /admin/api/invitations/accept`: the token of the link, the password chosen. */
export interface InvitationAcceptInput {
  token: string;
  /** At least 12 characters (at most 1024). */
  password: string;
  /** How the person reads on screen. */
  name?: string;
}

/** A person invited: their account and the link to send them. */
export interface Invited {
  /** A person with an account. */
  user: User;
  /** The one-time link, `<server origin>/#invite=<TOKEN>`: shown once. */
  inviteUrl: string;
  /** ISO 8601 date and time, UTC */
  expiresAt: string;
}

/** `POST /admin/api/users`: invites a person; the answer holds their one-time link. */
export interface NewUserInput {
  /** An e-mail address (compared without case). */
  email: string;
  /** How the person reads on screen. */
  name?: string;
  /** `admin`: people, projects, environments, keys and everything else; `editor`: flags, segments, webhooks, copies; `viewer`: reads. */
  role: Role;
  /** Roles inside projects, by project key: each replaces the global role inside that project. */
  projects?: ProjectRoles;
}

/** `POST /admin/api/me/password`: the current password and the new one. */
export interface PasswordChangeInput {
  current?: string;
  /** At least 12 characters (at most 1024). */
  password: string;
}

/** A person signs in with their e-mail address and password. */
export interface PasswordSignIn {
  email: string;
  password: string;
}

/** Roles inside projects, by project key: each replaces the global role inside that project. */
export type ProjectRoles = Record<string, Role>;

/** `admin`: people, projects, environments, keys and everything else; `editor`: flags, segments, webhooks, copies; `viewer`: reads. */
export type Role = 'admin' | 'editor' | 'viewer';

/** The person signed in, as `GET /admin/api/session` names them. */
export interface SessionUser {
  id: string;
  email: string;
  name: string;
  /** `admin`: people, projects, environments, keys and everything else; `editor`: flags, segments, webhooks, copies; `viewer`: reads. */
  role: Role;
  /** Roles inside projects, by project key: each replaces the global role inside that project. */
  projects: ProjectRoles;
}

/** A session kept on the server. */
export interface SessionView {
  id: string;
  /** How the request is signed in: a password, single sign-on, a personal token, the admin token. */
  via: SignedInVia;
  /** ISO 8601 date and time, UTC */
  createdAt: string;
  /** ISO 8601 date and time, UTC */
  lastSeenAt: string;
  /** ISO 8601 date and time, UTC */
  expiresAt: string;
  /** Whether it is the request's own session. */
  current: boolean;
}

/** How the request is signed in: a password, single sign-on, a personal token, the admin token. */
export type SignedInVia = 'password' | 'oidc' | 'token' | 'adminToken';

/** `POST /admin/api/tokens`: a personal access token, acting with its owner's role. */
export interface TokenInput {
  /** What the token is for. */
  name: string;
  expiresAt?: string | null;
}

/** The admin token, exchanged for a session. */
export interface TokenSignIn {
  /** The admin token. */
  token: string;
}

/** A personal access token, without its secret. */
export interface TokenView {
  /** `pat_` and 16 hex characters. */
  id: string;
  name: string;
  /** The owner's id. */
  user: string;
  /** ISO 8601 date and time, UTC */
  createdAt: string;
  expiresAt: string | null;
}

/** A person with an account. */
export interface User {
  /** `usr_` and 16 hex characters. */
  id: string;
  email: string;
  name: string;
  /** `admin`: people, projects, environments, keys and everything else; `editor`: flags, segments, webhooks, copies; `viewer`: reads. */
  role: Role;
  /** Roles inside projects, by project key: each replaces the global role inside that project. */
  projects: ProjectRoles;
  disabled: boolean;
  /** `invited` until the invitation is accepted (or the person signs in through SSO). */
  status: 'invited' | 'active' | 'disabled';
  /** Whether the person has signed in through single sign-on. */
  sso: boolean;
  /** ISO 8601 date and time, UTC */
  createdAt: string;
}

/** `PATCH /admin/api/users/:id`: a role, project roles, disabled (the user's sessions and tokens stop at once), a name. */
export interface UserChangeInput {
  /** `admin`: people, projects, environments, keys and everything else; `editor`: flags, segments, webhooks, copies; `viewer`: reads. */
  role?: Role;
  /** Roles inside projects, by project key: each replaces the global role inside that project. */
  projects?: ProjectRoles;
  disabled?: boolean;
  /** How the person reads on screen. */
  name?: string;
}
