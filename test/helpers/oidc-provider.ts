/**
 * Identity providers for the single sign-on tests (`docs/protocol.md` §10.6), in the test process,
 * on 127.0.0.1 only:
 * - `startOidcProvider`: a real OpenID Connect provider (`oidc-provider`, panva) with its
 *   development login form (any login is the account id, any password), consent taken as given
 *   to the one client, and accounts whose claims each test sets;
 * - `startFakeProvider`: a few lines of provider that signs an ID token for whatever audience it
 *   is told (the real one cannot be made to), for the relying party's own checks.
 * A provider's issuer must be known before flagwire starts, and flagwire's redirect URI before
 * the provider is configured: each listens first (its port makes the issuer), then is given the
 * redirect URI (`configure`).
 */
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Configuration } from 'oidc-provider';

export const CLIENT_ID = 'flagwire-test';
export const CLIENT_SECRET = 'a-client-secret-of-the-tests-0123456789';

/** The claims of an account, besides `sub` (its id). */
export interface AccountClaims {
  email?: string;
  email_verified?: boolean;
  name?: string;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** An http server on 127.0.0.1:0 whose handler is given later. */
async function listening(): Promise<{ http: Server; issuer: string; handle: (h: Handler) => void }> {
  let handler: Handler = (_req, res) => {
    res.writeHead(503).end('not configured yet');
  };
  const http = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    http,
    issuer: `http://127.0.0.1:${port}`,
    handle: (h) => {
      handler = h;
    },
  };
}

const closing = (http: Server) => () =>
  new Promise<void>((resolve) => {
    http.closeAllConnections();
    http.close(() => resolve());
  });

export interface TestProvider {
  issuer: string;
  /** The accounts, by id (the login typed into the form, and the `sub`). */
  accounts: Map<string, AccountClaims>;
  /** Registers the client with `redirectUri` and starts answering. */
  configure(redirectUri: string): void;
  close(): Promise<void>;
}

export async function startOidcProvider(): Promise<TestProvider> {
  const { http, issuer, handle } = await listening();
  const accounts = new Map<string, AccountClaims>();
  return {
    issuer,
    accounts,
    configure(redirectUri) {
      const configuration: Configuration = {
        clients: [
          {
            client_id: CLIENT_ID,
            client_secret: CLIENT_SECRET,
            redirect_uris: [redirectUri],
            response_types: ['code'],
            grant_types: ['authorization_code'],
            token_endpoint_auth_method: 'client_secret_basic',
          },
        ],
        claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
        features: { devInteractions: { enabled: true } },
        pkce: { required: () => true },
        cookies: { keys: [randomBytes(16).toString('hex')] },
        async findAccount(_ctx, id) {
          const claims = accounts.get(id);
          return claims && { accountId: id, claims: () => ({ sub: id, ...claims }) };
        },
        // The one client is the provider's own (first party): consent is taken as given.
        async loadExistingGrant(ctx) {
          const { Grant } = ctx.oidc.provider;
          const accountId = ctx.oidc.session?.accountId;
          if (!accountId || !ctx.oidc.client) return undefined;
          const grant = new Grant({ clientId: ctx.oidc.client.clientId, accountId });
          grant.addOIDCScope('openid email profile');
          await grant.save();
          return grant;
        },
      };
      const provider = new Provider(issuer, configuration);
      handle(provider.callback() as Handler);
    },
    close: closing(http),
  };
}

export interface FakeProvider {
  issuer: string;
  /** Registers the redirect URI (the fake checks nothing of it) and starts answering. */
  configure(redirectUri: string): void;
  /** The `aud` of the ID tokens it signs (the client id unless changed). */
  audience: string;
  /** The account it signs in, whoever comes. */
  account: { sub: string } & AccountClaims;
  close(): Promise<void>;
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * A provider that signs in `account` at once (no form) and signs its ID token (RS256, with the
 * e-mail address in it) for `audience`.
 */
export async function startFakeProvider(): Promise<FakeProvider> {
  const { http, issuer, handle } = await listening();
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'test', alg: 'RS256', use: 'sig' };
  const nonces = new Map<string, string>();
  const fake: FakeProvider = {
    issuer,
    audience: CLIENT_ID,
    account: { sub: 'fake-subject', email: 'fake@example.com', email_verified: true, name: 'Fake' },
    configure: () =>
      handle((req, res) => {
        const url = new URL(req.url ?? '/', issuer);
        const json = (body: unknown) => {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        };
        if (url.pathname === '/.well-known/openid-configuration')
          return json({
            issuer,
            authorization_endpoint: `${issuer}/authorize`,
            token_endpoint: `${issuer}/token`,
            jwks_uri: `${issuer}/jwks`,
            response_types_supported: ['code'],
            subject_types_supported: ['public'],
            id_token_signing_alg_values_supported: ['RS256'],
            code_challenge_methods_supported: ['S256'],
            token_endpoint_auth_methods_supported: ['client_secret_basic'],
          });
        if (url.pathname === '/jwks') return json({ keys: [jwk] });
        if (url.pathname === '/authorize') {
          const code = randomBytes(16).toString('hex');
          nonces.set(code, url.searchParams.get('nonce') ?? '');
          const back = new URL(url.searchParams.get('redirect_uri')!);
          back.searchParams.set('code', code);
          back.searchParams.set('state', url.searchParams.get('state') ?? '');
          res.writeHead(302, { location: back.href }).end();
          return;
        }
        if (url.pathname === '/token' && req.method === 'POST') {
          let body = '';
          req.on('data', (chunk) => {
            body += chunk;
          });
          req.on('end', () => {
            const code = new URLSearchParams(body).get('code') ?? '';
            const now = Math.floor(Date.now() / 1000);
            const claims = {
              iss: issuer,
              aud: fake.audience,
              iat: now,
              exp: now + 300,
              nonce: nonces.get(code),
              ...fake.account,
            };
            const signed = `${b64url({ alg: 'RS256', typ: 'JWT', kid: 'test' })}.${b64url(claims)}`;
            const signature = sign('sha256', Buffer.from(signed), privateKey).toString('base64url');
            json({
              access_token: randomBytes(16).toString('hex'),
              token_type: 'Bearer',
              expires_in: 300,
              id_token: `${signed}.${signature}`,
            });
          });
          return;
        }
        res.writeHead(404).end();
      }),
    close: closing(http),
  };
  return fake;
}

/** Cookies by name, as a browser keeps them for one host (paths left out: every cookie is sent). */
export class CookieJar {
  readonly #cookies = new Map<string, string>();

  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (/max-age=0/i.test(line) || value === '') this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
  }

  get(name: string): string | undefined {
    return this.#cookies.get(name);
  }

  get header(): string {
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/**
 * Signs `login` in at the provider over plain HTTP, as a browser would (the development form),
 * from the authorization URL flagwire redirected to; answers the callback URL the provider sends
 * the browser back to (not opened).
 */
export async function signInAtProvider(authorizationUrl: string, login: string, back: string): Promise<URL> {
  const jar = new CookieJar();
  let next = new URL(authorizationUrl);
  let init: RequestInit = {};
  for (let hop = 0; hop < 10; hop++) {
    const response = await fetch(next, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie: jar.header },
    });
    jar.take(response);
    init = {};
    const location = response.headers.get('location');
    if (location) {
      await response.body?.cancel();
      next = new URL(location, next);
      if (next.href.startsWith(back)) return next;
      continue;
    }
    const page = await response.text();
    if (response.status !== 200 || !page.includes('name="login"'))
      throw new Error(`the provider answered ${response.status} at ${next.pathname}: ${page.slice(0, 300)}`);
    const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
    if (!action) throw new Error('no login form at the provider');
    next = new URL(action.replaceAll('&amp;', '&'), next);
    init = {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ prompt: 'login', login, password: 'any password' }).toString(),
    };
  }
  throw new Error('the provider never sent the browser back');
}
