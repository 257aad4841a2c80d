/**
 * Single sign-on to the dashboard (`docs/protocol.md` §10.6): the server as an OpenID Connect
 * relying party, through `openid-client`. `GET /admin/oidc/login` sends the browser to the
 * provider (authorization code with PKCE S256, `state` and `nonce`; scopes `openid email
 * profile`); what the callback needs to check the answer (the code verifier, `state`, `nonce`,
 * the redirect URI) stays here, in memory, under a random id that a short-lived cookie carries
 * (`flagwire_oidc`: HttpOnly, SameSite=Lax, since the callback is a top-level navigation from
 * the provider's site; Path=/admin/oidc; ten minutes). `GET /admin/oidc/callback` uses that
 * pending sign-in once (it is forgotten before the code is exchanged, so a replayed callback
 * finds nothing), lets `openid-client` check `state`, exchange the code with the verifier and
 * check the ID token (signature, `iss`, `aud`, `nonce`, expiry), reads the person's claims (from
 * the userinfo endpoint when the ID token does not carry the e-mail address), and has
 * `PeopleService.ssoUser` find, link or make the account; then starts a session kept on the
 * server and sets the session cookie, as a password sign-in does. Any refusal redirects to
 * `/#sso-error=<message>` and creates neither a session nor an account. No token, code or
 * verifier is ever logged.
 *
 * The provider's configuration is discovered at the first sign-in (so start-up does not depend
 * on it) and kept; a failed discovery is tried again at the next sign-in. An `http://` issuer is
 * taken on a loopback address only (checked by the options).
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as client from 'openid-client';
import { ApiError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { PeopleService } from '../state/people/people-service.js';
import { isLoopbackHost, type OidcSettings } from './oidc-settings.js';
import type { OwnOrigins } from './origins.js';
import { type AdminAuth, cookieValue } from './session.js';

export const OIDC_COOKIE = 'flagwire_oidc';
export const OIDC_PATH = '/admin/oidc';
export const OIDC_LOGIN = `${OIDC_PATH}/login`;
export const OIDC_CALLBACK = `${OIDC_PATH}/callback`;
const SCOPES = 'openid email profile';
/** How long a sign-in may take at the provider: ten minutes. */
const PENDING_SECONDS = 600;
/** Sign-ins under way at once; past it the oldest is forgotten (anyone may start one). */
const MAX_PENDING = 1000;
/** Seconds a request to the provider may take. */
const PROVIDER_TIMEOUT_SECONDS = 10;
const PENDING_ID = /^[A-Za-z0-9_-]{43}$/;

/** What the callback needs to check the provider's answer; never leaves the server. */
interface Pending {
  codeVerifier: string;
  state: string;
  nonce: string;
  /** The redirect URI sent to the provider, which the code was issued for. */
  redirectUri: string;
  /** Where the person lands once signed in: a path of this server. */
  returnTo: string;
  /** Epoch milliseconds. */
  expires: number;
}

export interface OidcDeps {
  settings: OidcSettings;
  people: PeopleService;
  auth: AdminAuth;
  origins: OwnOrigins;
  logger: Logger;
  /** The clock pending sign-ins expire by (epoch milliseconds). */
  now?: () => number;
}

/** A refused sign-in: its message is shown to the person (in the fragment of `/#sso-error=`). */
class Refused extends Error {}

/** The answer a refused or failed sign-in redirects to. */
export const errorLocation = (message: string): string => `/#sso-error=${encodeURIComponent(message)}`;

/** A path of this server to land on after signing in: `/` unless `value` is one (no scheme, no host). */
export function returnPath(value: string | null): string {
  if (value === null || value.length > 512) return '/';
  // `//host` and `/\host` are other hosts to a browser; control characters have no place in a path.
  if (!value.startsWith('/') || /^\/[/\\]/.test(value) || /[\u0000-\u001f\u007f\\]/.test(value)) return '/';
  return value;
}

const pendingCookie = (id: string, secure: boolean): string =>
  `${OIDC_COOKIE}=${id}; HttpOnly; SameSite=Lax; Path=${OIDC_PATH}; Max-Age=${PENDING_SECONDS}${secure ? '; Secure' : ''}`;
const clearPendingCookie = (): string =>
  `${OIDC_COOKIE}=; HttpOnly; SameSite=Lax; Path=${OIDC_PATH}; Max-Age=0`;

/** Answers a redirect (`302` to the provider, `303` after the callback), never cached, never referring. */
function redirect(res: ServerResponse, status: number, location: string, cookies: string[]): void {
  res.writeHead(status, {
    location,
    'set-cookie': cookies,
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'content-length': '0',
  });
  res.end();
}

/** What went wrong, in words for the person: never a token, a code or a verifier. */
function describe(error: unknown): string {
  if (error instanceof Refused) return error.message;
  if (error instanceof ApiError) return error.message;
  const e = error as {
    name?: string;
    code?: string;
    error?: unknown;
    error_description?: unknown;
    message?: string;
  };
  const said = (what: string) => {
    const description = typeof e.error_description === 'string' ? `: ${e.error_description}` : '';
    return `${what} (${String(e.error)}${description})`.slice(0, 300);
  };
  if (error instanceof client.AuthorizationResponseError)
    return said('the identity provider did not sign you in');
  if (error instanceof client.ResponseBodyError) return said('the identity provider refused the sign-in');
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || (e.name === 'TypeError' && !e.code))
    return 'the identity provider cannot be reached';
  // openid-client's own checks (`OAUTH_*` codes): a wrong `state`, `aud`, `iss`, `nonce`, signature;
  // what failed is in words in the cause (oauth4webapi's), never a value of the token.
  if (typeof e.code === 'string' && e.code.startsWith('OAUTH_')) {
    const cause = (error as { cause?: { message?: unknown } }).cause?.message;
    const detail = typeof cause === 'string' && cause !== '' ? cause : String(e.message);
    return `the identity provider's answer was refused: ${detail.slice(0, 200)}`;
  }
  return 'single sign-on failed';
}

/** The server's relying party: one per server, for the issuer of `settings`. */
export class OidcRelyingParty {
  readonly #settings: OidcSettings;
  readonly #people: PeopleService;
  readonly #auth: AdminAuth;
  readonly #origins: OwnOrigins;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #pending = new Map<string, Pending>();
  #configuration: Promise<client.Configuration> | undefined;

  constructor(deps: OidcDeps) {
    this.#settings = deps.settings;
    this.#people = deps.people;
    this.#auth = deps.auth;
    this.#origins = deps.origins;
    this.#logger = deps.logger;
    this.#now = deps.now ?? Date.now;
  }

  /** The provider's configuration: discovered once, again after a failure. */
  #configure(): Promise<client.Configuration> {
    if (this.#configuration) return this.#configuration;
    const { issuer, clientId, clientSecret } = this.#settings;
    const insecure = new URL(issuer).protocol === 'http:' && isLoopbackHost(new URL(issuer).hostname);
    const configuring = client
      .discovery(
        new URL(issuer),
        clientId,
        { client_secret: clientSecret },
        client.ClientSecretBasic(clientSecret),
        {
          timeout: PROVIDER_TIMEOUT_SECONDS,
          ...(insecure && { execute: [client.allowInsecureRequests] }),
        },
      )
      .catch((error: unknown) => {
        this.#configuration = undefined;
        this.#logger.warn(
          `single sign-on: cannot read the configuration of ${issuer}: ${(error as Error)?.message ?? error}`,
        );
        throw new Refused('the identity provider cannot be reached: try again later');
      });
    this.#configuration = configuring;
    return configuring;
  }

  /**
   * The origin the provider sends the browser back to: the public URL; else the origin the sign-in
   * was opened at when it is one of the server's own (the cookie must come back to the same host);
   * else the first the server answers at. The request's `Host` is only compared, never trusted.
   */
  #redirectUri(req: IncomingMessage): string {
    const own = this.#origins.list;
    const host = req.headers.host;
    const opened = host && /^[A-Za-z0-9.:[\]-]+$/.test(host) ? `http://${host.toLowerCase()}` : undefined;
    const origin = own.length === 1 || !opened || !own.includes(opened) ? own[0] : opened;
    return `${origin ?? 'http://localhost'}${OIDC_CALLBACK}`;
  }

  #remember(pending: Pending): string {
    const now = this.#now();
    for (const [id, p] of this.#pending) if (p.expires <= now) this.#pending.delete(id);
    while (this.#pending.size >= MAX_PENDING) {
      const oldest = this.#pending.keys().next().value as string;
      this.#pending.delete(oldest);
    }
    const id = randomBytes(32).toString('base64url');
    this.#pending.set(id, pending);
    return id;
  }

  /** `GET /admin/oidc/login`: to the provider, with a new pending sign-in. */
  async login(req: IncomingMessage, res: ServerResponse, query: string): Promise<void> {
    let configuration: client.Configuration;
    try {
      configuration = await this.#configure();
    } catch (error) {
      return redirect(res, 303, errorLocation(describe(error)), [clearPendingCookie()]);
    }
    const codeVerifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const redirectUri = this.#redirectUri(req);
    const url = client.buildAuthorizationUrl(configuration, {
      redirect_uri: redirectUri,
      scope: SCOPES,
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    const returnTo = returnPath(new URLSearchParams(query).get('return'));
    const id = this.#remember({
      codeVerifier,
      state,
      nonce,
      redirectUri,
      returnTo,
      expires: this.#now() + PENDING_SECONDS * 1000,
    });
    redirect(res, 302, url.href, [pendingCookie(id, redirectUri.startsWith('https:'))]);
  }

  /** `GET /admin/oidc/callback`: checks the provider's answer and signs the person in, or refuses. */
  async callback(req: IncomingMessage, res: ServerResponse, query: string): Promise<void> {
    try {
      const cookies = await this.#signIn(req, query);
      redirect(res, 303, cookies.returnTo, [cookies.session, clearPendingCookie()]);
    } catch (error) {
      const message = describe(error);
      if (message === 'single sign-on failed')
        this.#logger.error(`single sign-on: ${(error as Error)?.stack ?? error}`);
      else this.#logger.info(`single sign-on refused: ${message}`);
      redirect(res, 303, errorLocation(message), [clearPendingCookie()]);
    }
  }

  async #signIn(req: IncomingMessage, query: string): Promise<{ session: string; returnTo: string }> {
    const id = cookieValue(req.headers.cookie, OIDC_COOKIE);
    const pending = id !== undefined && PENDING_ID.test(id) ? this.#pending.get(id) : undefined;
    // Used once: gone before anything else, so a replayed callback finds nothing.
    if (id !== undefined) this.#pending.delete(id);
    if (!pending || pending.expires <= this.#now())
      throw new Refused('that sign-in expired or was used already: sign in again');
    const configuration = await this.#configure();
    const tokens = await client.authorizationCodeGrant(
      configuration,
      new URL(`${pending.redirectUri}${query === '' ? '' : `?${query}`}`),
      {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      },
    );
    const idToken = tokens.claims();
    if (!idToken) throw new Refused('the identity provider sent no ID token');
    // A provider may keep the e-mail address to its userinfo endpoint (the ID token of a code flow):
    // then the address and whether it is verified are both read there, for the same subject.
    const fromToken = typeof idToken.email === 'string' && typeof idToken.email_verified === 'boolean';
    const info = fromToken
      ? undefined
      : await client.fetchUserInfo(configuration, tokens.access_token, idToken.sub);
    const email = info ? info.email : idToken.email;
    const verified = info ? info.email_verified : idToken.email_verified;
    const name = idToken.name ?? info?.name;
    const { defaultRole, allowedDomains } = this.#settings;
    const user = await this.#people.ssoUser(
      {
        issuer: idToken.iss,
        subject: idToken.sub,
        ...(typeof email === 'string' && { email }),
        ...(typeof verified === 'boolean' && { emailVerified: verified }),
        ...(typeof name === 'string' && { name }),
      },
      defaultRole,
      allowedDomains,
    );
    const session = await this.#people.startSession(user.id, 'oidc');
    return {
      session: this.#auth.cookieOf({ id: session.id, expires: session.expires, person: true }),
      returnTo: pending.returnTo,
    };
  }
}
