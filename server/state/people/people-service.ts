/**
 * People (`docs/protocol.md` §10.6): accounts invited by an admin, their passwords, sessions kept
 * on the server and personal access tokens. Every change commits through the one write protocol
 * (scope `''`), so it is durable before it is answered and every instance on a shared database
 * sees it; what a request is allowed is decided from memory holding every entry committed so far
 * (a settled read, `PeopleService.settled`). Secrets (invitation links, tokens) are shown once and
 * kept as SHA-256 digests; passwords as scrypt hashes (`password.ts`). No secret reaches a log,
 * an error or the history.
 */
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { ApiError } from '../../errors.js';
import { ADMIN_TOKEN_ACTOR } from '../kernel/actors.js';
import type { Ledger } from '../kernel/ledger.js';
import type {
  Actor,
  MemoryState,
  Role,
  SignedInVia,
  StoredSession,
  StoredToken,
  StoredUser,
} from '../kernel/model.js';
import type { PeopleOp } from './ops.js';
import { hashPassword, passwordProblem, verifyPassword } from './password.js';

/** How long people's credentials last; defaults in `PEOPLE_DEFAULTS`. */
export interface PeopleSettings {
  /** How long an invitation link works, in milliseconds. */
  invitationMs: number;
  /** A session ends this long after it was made, whatever happens (seconds). */
  sessionSeconds: number;
  /** A session ends after this long unused (seconds). */
  idleSeconds: number;
  /** How often a session in use records that it was seen (seconds): the idle end's precision. */
  seenEverySeconds: number;
  now: () => number;
}

export const PEOPLE_DEFAULTS: Readonly<PeopleSettings> = Object.freeze({
  invitationMs: 7 * 24 * 3600 * 1000,
  sessionSeconds: 7 * 24 * 3600,
  idleSeconds: 12 * 3600,
  seenEverySeconds: 300,
  now: Date.now,
});

/** The most personal tokens one user holds. */
export const MAX_TOKENS_PER_USER = 100;
/** The most sessions one user holds at once: a new one past that ends the oldest. */
export const MAX_SESSIONS_PER_USER = 50;

export const PAT_PREFIX = 'fw_pat_';
const PAT_FORM = /^fw_pat_[A-Za-z0-9]{40}$/;
const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const randomHex = (bytes: number): string => randomBytes(bytes).toString('hex');

/** A new personal access token: `fw_pat_` and 40 characters of `[A-Za-z0-9]`, uniformly drawn. */
export function newPersonalToken(): string {
  let out = PAT_PREFIX;
  for (let i = 0; i < 40; i++) out += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return out;
}

/** An e-mail address as accounts are keyed by it: trimmed, lower-cased. */
export const normalEmail = (email: string): string => email.trim().toLowerCase();

export interface NewUser {
  email: string;
  name?: string;
  role: Role;
  projects?: Record<string, Role>;
}

export interface UserChange {
  role?: Role;
  projects?: Record<string, Role>;
  disabled?: boolean;
  name?: string;
}

/** A request's person, when a session or a token names one that may act. */
export interface SignedIn {
  user: StoredUser | null;
  via: SignedInVia;
  session?: StoredSession;
  token?: StoredToken;
}

/** What an identity provider says of the person signing in (its ID token's claims). */
export interface SsoClaims {
  issuer: string;
  subject: string;
  email?: string;
  emailVerified?: boolean;
  name?: string;
}

const gone = (what: string) => new ApiError(410, 'GONE', what);

/** A person acting as themselves (accepting their invitation, changing their password, signing on). */
const self = (user: StoredUser): Actor => ({ type: 'user', id: user.id, name: user.name });

/** Who made a change and now (`by`, `at`): what people's ops carry for their audit records. */
const stamp = (actor: Actor) => ({ by: actor, at: new Date().toISOString() });

export class PeopleService {
  readonly #db: MemoryState;
  readonly #ledger: Ledger<PeopleOp>;
  readonly #settings: PeopleSettings;

  constructor(db: MemoryState, ledger: Ledger<PeopleOp>, settings: Partial<PeopleSettings> = {}) {
    this.#db = db;
    this.#ledger = ledger;
    this.#settings = { ...PEOPLE_DEFAULTS, ...settings };
  }

  get settings(): Readonly<PeopleSettings> {
    return this.#settings;
  }

  /** `read` against memory holding every people change committed so far, by any instance. */
  settled<T>(read: () => T): Promise<T> {
    return this.#ledger.readSettled('', read);
  }

  /** Every account, oldest first. */
  users(): StoredUser[] {
    return [...this.#db.people.users.values()];
  }

  user(id: string): StoredUser {
    const user = this.#db.people.users.get(id);
    if (!user) throw new ApiError(404, 'NOT_FOUND', `no user ${JSON.stringify(id)}`);
    return user;
  }

  byEmail(email: string): StoredUser | undefined {
    const wanted = normalEmail(email);
    for (const user of this.#db.people.users.values()) if (user.email === wanted) return user;
    return undefined;
  }

  /** Invites `input.email`: a new account without a password, and its one-time link's token. */
  async invite(
    input: NewUser,
    actor: Actor = ADMIN_TOKEN_ACTOR,
  ): Promise<{ user: StoredUser; token: string }> {
    const token = randomBytes(32).toString('base64url');
    const now = this.#settings.now();
    const user: StoredUser = {
      id: `usr_${randomHex(8)}`,
      email: normalEmail(input.email),
      name: input.name?.trim() || normalEmail(input.email).split('@')[0]!,
      role: input.role,
      projects: { ...(input.projects ?? {}) },
      disabled: false,
      password: null,
      oidc: null,
      createdAt: new Date(now).toISOString(),
    };
    await this.#ledger.commit('', () => {
      if (this.byEmail(user.email))
        throw new ApiError(409, 'CONFLICT', `a user with e-mail ${JSON.stringify(user.email)} exists`);
      return [
        // The `user.invited` record; the link's own op is not stamped (no second record).
        { t: 'user', user, ...stamp(actor) },
        {
          t: 'invite',
          invitation: { digest: sha256(token), user: user.id, expires: now + this.#settings.invitationMs },
        },
      ];
    });
    return { user, token };
  }

  /** A new invitation link for a user who has not accepted theirs (the old link stops working). */
  async reinvite(id: string, actor: Actor = ADMIN_TOKEN_ACTOR): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const expires = this.#settings.now() + this.#settings.invitationMs;
    await this.#ledger.commit('', () => {
      const user = this.user(id);
      if (user.password !== null || user.oidc !== null)
        throw new ApiError(
          409,
          'CONFLICT',
          'that user has signed in already: they change their own password',
        );
      return [{ t: 'invite', invitation: { digest: sha256(token), user: id, expires }, ...stamp(actor) }];
    });
    return token;
  }

  /**
   * Accepts an invitation: the password set, the link used up. A password that is refused
   * (`400`) leaves the link working; a used or expired link is `410 GONE`.
   */
  async accept(token: unknown, password: unknown, name?: string): Promise<StoredUser> {
    const problem = passwordProblem(password);
    if (problem) throw new ApiError(400, 'VALIDATION_ERROR', `"password" ${problem}`);
    if (typeof token !== 'string' || token.length > 200)
      throw gone('that invitation link is not valid (used or expired)');
    const digest = sha256(token);
    // The link first (as of every change committed so far): no scrypt is spent on a link that is not one.
    const live = await this.settled(() => {
      const invitation = this.#db.people.invitations.get(digest);
      return invitation !== undefined && invitation.expires > this.#settings.now();
    });
    if (!live) throw gone('that invitation link is not valid (used or expired)');
    const hash = await hashPassword(password as string);
    let accepted: StoredUser | undefined;
    await this.#ledger.commit('', () => {
      const invitation = this.#db.people.invitations.get(digest);
      const user = invitation && this.#db.people.users.get(invitation.user);
      if (!invitation || !user || invitation.expires <= this.#settings.now())
        throw gone('that invitation link is not valid (used or expired)');
      accepted = { ...user, password: hash, name: name?.trim() || user.name };
      return [
        { t: 'invite-del', digest },
        { t: 'user', user: accepted, ...stamp(self(accepted)) },
      ];
    });
    return accepted!;
  }

  /**
   * The user `email` and `password` name, or `undefined`: an unknown address costs one scrypt
   * as a wrong password does, and both answer the same.
   */
  async verify(email: string, password: string): Promise<StoredUser | undefined> {
    const user = this.byEmail(email);
    const ok = await verifyPassword(password, user?.password ?? null);
    return ok && user && !user.disabled ? user : undefined;
  }

  /**
   * The account a single sign-on names (`docs/protocol.md` §10.6): matched by the issuer and
   * subject, then by a verified e-mail address (which links it, and uses up a pending invitation),
   * else a new account with `role`. Refused (`401`, creating nothing): an unverified address, an
   * address outside `allowedDomains` (when any are given), a disabled account, an account
   * already linked to another subject of the issuer.
   */
  async ssoUser(claims: SsoClaims, role: Role, allowedDomains: readonly string[]): Promise<StoredUser> {
    const refused = (why: string) => new ApiError(401, 'UNAUTHORIZED', `single sign-on refused: ${why}`);
    const email = normalEmail(claims.email ?? '');
    if (!email.includes('@')) throw refused('the identity provider named no e-mail address');
    if (claims.emailVerified !== true)
      throw refused('the identity provider has not verified that e-mail address');
    const domain = email.slice(email.lastIndexOf('@') + 1);
    if (allowedDomains.length > 0 && !allowedDomains.includes(domain))
      throw refused(`e-mail addresses of ${domain} may not sign in here`);
    let user: StoredUser | undefined;
    await this.#ledger.commit('', () => {
      const { issuer, subject } = claims;
      const users = [...this.#db.people.users.values()];
      const linked = users.find((u) => u.oidc?.issuer === issuer && u.oidc.subject === subject);
      const byEmail = linked ? undefined : users.find((u) => u.email === email);
      const found = linked ?? byEmail;
      if (found?.disabled) throw refused('that account is disabled');
      if (byEmail?.oidc && byEmail.oidc.issuer === issuer)
        throw refused('that e-mail address belongs to an account of another identity');
      if (found && linked) {
        user = found;
        return [];
      }
      const ops: PeopleOp[] = [];
      user = found
        ? { ...found, oidc: { issuer, subject } }
        : {
            id: `usr_${randomHex(8)}`,
            email,
            name: claims.name?.trim() || email.split('@')[0]!,
            role,
            projects: {},
            disabled: false,
            password: null,
            oidc: { issuer, subject },
            createdAt: new Date(this.#settings.now()).toISOString(),
          };
      ops.push({ t: 'user', user, ...stamp(self(user)) });
      for (const invitation of this.#db.people.invitations.values())
        if (invitation.user === user.id) ops.push({ t: 'invite-del', digest: invitation.digest });
      return ops;
    });
    return user!;
  }

  /** Changes a user's own password; `current` must be right. */
  async changePassword(id: string, current: unknown, next: unknown): Promise<void> {
    const problem = passwordProblem(next);
    if (problem) throw new ApiError(400, 'VALIDATION_ERROR', `"password" ${problem}`);
    const user = this.user(id);
    if (
      user.password !== null &&
      !(typeof current === 'string' && (await verifyPassword(current, user.password)))
    )
      throw new ApiError(403, 'FORBIDDEN', 'the current password is not right');
    const hash = await hashPassword(next as string);
    await this.#ledger.commit('', () => [
      { t: 'user', user: { ...this.user(id), password: hash }, ...stamp(self(user)) },
    ]);
  }

  async update(id: string, change: UserChange, actor: Actor = ADMIN_TOKEN_ACTOR): Promise<StoredUser> {
    let after: StoredUser | undefined;
    await this.#ledger.commit('', () => {
      const before = this.user(id);
      after = {
        ...before,
        ...(change.role !== undefined && { role: change.role }),
        ...(change.projects !== undefined && { projects: { ...change.projects } }),
        ...(change.disabled !== undefined && { disabled: change.disabled }),
        ...(change.name !== undefined && { name: change.name.trim() }),
      };
      const ops: PeopleOp[] = [{ t: 'user', user: after, ...stamp(actor) }];
      // A disabled user's sessions end now, not at their next request only.
      if (after.disabled && !before.disabled)
        for (const session of this.#db.people.sessions.values())
          if (session.user === id) ops.push({ t: 'logout', id: session.id });
      return ops;
    });
    return after!;
  }

  async remove(id: string, actor: Actor = ADMIN_TOKEN_ACTOR): Promise<void> {
    await this.#ledger.commit('', () => {
      this.user(id);
      // Their sessions end by name first, so whoever follows sign-outs (event streams) hears of each.
      const ops: PeopleOp[] = [];
      for (const session of this.#db.people.sessions.values())
        if (session.user === id) ops.push({ t: 'logout', id: session.id });
      ops.push({ t: 'user-del', id, ...stamp(actor) });
      return ops;
    });
  }

  /** A new session for `user` (`null`: the admin token), durable before it is answered. */
  async startSession(user: string | null, via: SignedInVia): Promise<StoredSession> {
    const now = Math.floor(this.#settings.now() / 1000);
    const session: StoredSession = {
      id: `u${randomBytes(16).toString('base64url')}`,
      user,
      via,
      createdAt: now,
      seen: now,
      expires: now + this.#settings.sessionSeconds,
    };
    await this.#ledger.commit('', () => {
      const ops: PeopleOp[] = [{ t: 'login', session }];
      if (user !== null) {
        const own = [...this.#db.people.sessions.values()].filter((s) => s.user === user);
        for (const old of own.slice(0, Math.max(0, own.length - MAX_SESSIONS_PER_USER + 1)))
          ops.push({ t: 'logout', id: old.id });
      }
      return ops;
    });
    return session;
  }

  async endSession(id: string): Promise<void> {
    await this.#ledger.commit('', () => (this.#db.people.sessions.has(id) ? [{ t: 'logout', id }] : []));
  }

  /** The sessions of `user` (`null`: the admin token's), newest first. */
  sessionsOf(user: string | null): StoredSession[] {
    const now = Math.floor(this.#settings.now() / 1000);
    return [...this.#db.people.sessions.values()]
      .filter((s) => s.user === user && this.#live(s, now))
      .sort((a, b) => b.createdAt - a.createdAt);
  }

  /** Session `id`'s signed-in person, when the session lives and its user may act. */
  session(id: string): SignedIn | undefined {
    const session = this.#db.people.sessions.get(id);
    const now = Math.floor(this.#settings.now() / 1000);
    if (!session || !this.#live(session, now)) return undefined;
    if (session.user === null) return { user: null, via: session.via, session };
    const user = this.#db.people.users.get(session.user);
    if (!user || user.disabled) return undefined;
    // Seen: recorded now and then (not every request), so the idle end moves on.
    if (now - session.seen >= this.#settings.seenEverySeconds)
      this.#ledger.commit('', () => [{ t: 'seen', id, at: now }]).catch(() => {});
    return { user, via: session.via, session };
  }

  #live(session: StoredSession, now: number): boolean {
    return session.expires > now && session.seen + this.#settings.idleSeconds > now;
  }

  /** A personal access token for `user`, its secret shown once. */
  async createToken(
    user: string,
    name: string,
    expiresAt: string | null,
    actor?: Actor,
  ): Promise<{ token: StoredToken; secret: string }> {
    const secret = newPersonalToken();
    const token: StoredToken = {
      id: `pat_${randomHex(8)}`,
      user,
      name,
      digest: sha256(secret),
      createdAt: new Date(this.#settings.now()).toISOString(),
      expiresAt,
    };
    await this.#ledger.commit('', () => {
      const owner = this.user(user);
      if (this.tokensOf(user).length >= MAX_TOKENS_PER_USER)
        throw new ApiError(
          409,
          'CONFLICT',
          `a user holds at most ${MAX_TOKENS_PER_USER} tokens: revoke one first`,
        );
      return [{ t: 'pat', token, ...stamp(actor ?? self(owner)) }];
    });
    return { token, secret };
  }

  /** Tokens, oldest first: of `user`, or everyone's. */
  tokensOf(user?: string): StoredToken[] {
    return [...this.#db.people.tokens.values()].filter((t) => user === undefined || t.user === user);
  }

  token(id: string): StoredToken {
    const token = this.#db.people.tokens.get(id);
    if (!token) throw new ApiError(404, 'NOT_FOUND', `no token ${JSON.stringify(id)}`);
    return token;
  }

  async revokeToken(id: string, actor: Actor = ADMIN_TOKEN_ACTOR): Promise<void> {
    await this.#ledger.commit('', () =>
      this.#db.people.tokens.has(id) ? [{ t: 'pat-del', id, ...stamp(actor) }] : [],
    );
  }

  /** The person a presented personal token acts as, when it is one, not expired, of a user who may act. */
  bearer(presented: string): SignedIn | undefined {
    if (!PAT_FORM.test(presented)) return undefined;
    const id = this.#db.people.tokenIds.get(sha256(presented));
    const token = id === undefined ? undefined : this.#db.people.tokens.get(id);
    if (!token) return undefined;
    if (token.expiresAt !== null && Date.parse(token.expiresAt) <= this.#settings.now()) return undefined;
    const user = this.#db.people.users.get(token.user);
    if (!user || user.disabled) return undefined;
    return { user, via: 'token', token };
  }
}

/** `user`'s role inside `project` (their global role where they have none there). */
export function roleIn(user: StoredUser, project: string | undefined): Role {
  return (project !== undefined ? user.projects[project] : undefined) ?? user.role;
}
