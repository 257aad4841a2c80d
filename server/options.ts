/**
 * Options of `startServer()`, with every default resolved in one place.
 * The CLI maps its flags onto these (`docs/protocol.md` §7).
 */
import { ADMIN_TOKEN_RULE, type FlagwireConfig } from './config.js';
import { issuerProblem, type OidcSettings } from './dashboard/oidc-settings.js';
import { originOf } from './dashboard/origins.js';
import { defaultMaxConnections } from './http/open-file-limit.js';
import type { Logger } from './logger.js';
import type { Role } from './state/kernel/model.js';
import type { PeopleSettings } from './state/people/people-service.js';

export interface StartServerOptions {
  /**
   * TCP port; 0 picks a free one (read it from `server.url`).
   * @default 0
   */
  port?: number;
  /**
   * Interface to listen on.
   * @default '127.0.0.1'
   */
  host?: string;
  /**
   * Projects, environments, API keys and seed flags. Without it the server uses (and on
   * first start creates) project `default`, environment `development`, with one full and
   * one read-only key.
   */
  config?: FlagwireConfig;
  /**
   * Directory of the durable store. Without it, everything is kept in memory.
   * @example './.flagwire'
   */
  dataDir?: string;
  /**
   * Keep everything in memory (nothing survives `close()`); the default when no
   * `dataDir` is given. Giving both is an error.
   * @default !dataDir
   */
  memory?: boolean;
  /**
   * A Postgres database that several instances share (`docs/scaling.md`):
   * `postgres://USER:PASSWORD@HOST:PORT/DATABASE`. The server creates or migrates its tables
   * on start. Cannot be combined with `dataDir` or `memory`.
   */
  databaseUrl?: string;
  /**
   * How long start-up waits for an unreachable database before it fails.
   * @default 10000
   */
  databaseConnectTimeoutMs?: number;
  /**
   * Connections to the database for requests; one more is held for `LISTEN`.
   * @default 10
   */
  databasePoolSize?: number;
  /**
   * Interval of the safety-net catch-up from the database, in case a notification was lost.
   * @default 5000
   */
  databaseCatchUpIntervalMs?: number;
  /**
   * Interval of `ping` events on the stream.
   * @default 15000
   */
  pingIntervalMs?: number;
  /**
   * Stream events kept per environment for `Last-Event-ID` resume.
   * @default 1000
   */
  streamHistorySize?: number;
  /**
   * Bytes of stream events kept per environment and capability for `Last-Event-ID` resume, besides
   * their count: past it the oldest go (a client further behind gets a full sync), so a run of
   * large segment changes cannot hold gigabytes.
   * @default 16777216 (16 MiB)
   */
  streamHistoryBytes?: number;
  /**
   * Unsent bytes after which a stream that does not read is cut.
   * @default 1048576 (1 MiB)
   */
  streamMaxBufferedBytes?: number;
  /**
   * Unsent bytes of all streams together after which the streams furthest behind are cut, so
   * that slow readers cannot hold `maxStreams` times `streamMaxBufferedBytes` of memory.
   * @default 67108864 (64 MiB)
   */
  streamMaxTotalBufferedBytes?: number;
  /**
   * Length of the kernel's queue of connections not yet accepted (`listen(2)` backlog; the
   * kernel caps it at `net.core.somaxconn`). A reconnect storm of thousands of clients
   * overflows a short one, and each dropped connection waits a TCP retransmit (1 s, 3 s).
   * @default 4096
   */
  listenBacklog?: number;
  /**
   * Time a client has to send a request's headers; past it the server answers
   * `408 REQUEST_TIMEOUT` and closes the connection (`docs/protocol.md` §4.1). Checked every
   * second (or a quarter of the shortest deadline, when shorter).
   * @default 20000
   */
  headersTimeoutMs?: number;
  /**
   * Time a client has to send a whole request, headers and body; past it the server answers
   * `408 REQUEST_TIMEOUT` and closes the connection, with or without a key. At least
   * `headersTimeoutMs`.
   * @default 30000
   */
  requestTimeoutMs?: number;
  /**
   * Open connections the server holds. At the bound a new connection takes the place of the
   * oldest slow one (no whole request sent yet, or idle), which is answered `408`; when every
   * connection is busy the newcomer is answered `503 UNAVAILABLE` with `Retry-After`
   * (`docs/protocol.md` §4.1).
   * @default the process's open-file limit less 256 (Linux), at least 64; else 10000
   */
  maxConnections?: number;
  /**
   * Reconnection delay advertised to stream clients (`retry:` field), in milliseconds.
   * @default 1000
   */
  streamRetryMs?: number;
  /**
   * Open event streams the server accepts; past it a new stream is refused with
   * `503 SERVICE_UNAVAILABLE` and a jittered `Retry-After`, instead of running out of memory.
   * @default 20000
   */
  maxStreams?: number;
  /**
   * Journal entries after which the store writes a snapshot and truncates the journal. On
   * Postgres: entries of one environment after which its state is snapshotted, so start-up
   * reads the snapshot and the entries after it.
   * @default 10000
   */
  compactAfterEntries?: number;
  /**
   * Delays between webhook delivery attempts, in milliseconds (each jittered by +-20 %);
   * after the last one a delivery fails.
   * @default [5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h]
   */
  webhookRetryDelaysMs?: number[];
  /**
   * Time a receiver has to answer a delivery with a 2xx.
   * @default 15000
   */
  webhookTimeoutMs?: number;
  /**
   * Deliveries under way at once, across all webhooks.
   * @default 16
   */
  webhookConcurrency?: number;
  /**
   * Deliveries under way at once to one webhook, so that a receiver that hangs (each attempt
   * holding a slot until `webhookTimeoutMs`) cannot hold up the deliveries to the others.
   * @default half of webhookConcurrency (8)
   */
  webhookConcurrencyPerWebhook?: number;
  /**
   * After a secret rotation, how long the previous secret keeps signing.
   * @default 86400000 (24 h)
   */
  webhookSecretGraceMs?: number;
  /**
   * Which addresses webhooks may be delivered to (`docs/protocol.md` §8.4): `any`, or `public`,
   * which refuses loopback, link-local (cloud metadata), private and reserved addresses, when a
   * webhook is saved and again at each delivery on the resolved address. Use `public` in
   * production: a webhook URL is a request the server makes on a user's behalf.
   * @default 'any' (local development and tests deliver to localhost)
   */
  webhookTargets?: 'any' | 'public';
  /**
   * Serve the dashboard at `/` and its admin API at `/admin/api` (`docs/protocol.md` §10).
   * @default true
   */
  dashboard?: boolean;
  /**
   * The admin credential of the dashboard: 16 to 256 printable characters without spaces.
   * Without it: the config file's `adminToken`, else one the server generates on first start
   * and stores (a durable server keeps it across restarts).
   */
  adminToken?: string;
  /**
   * The server's own origin as people's browsers reach it (`https://flags.example.com`, behind a
   * proxy or TLS front): the only `Origin` the admin API takes sign-ins and changes from
   * (`docs/protocol.md` §10.2), and the origin of `dashboardUrl`. An `http://` or `https://`
   * origin, no path. Without it, the origins the server listens on (loopback names of a loopback
   * address; for `0.0.0.0` or `::`, the loopback origins only, with a start-up warning).
   * @default undefined (the listening origins)
   */
  publicUrl?: string;
  /**
   * Flag changes kept per environment for the dashboard's history (oldest dropped first).
   * @default 10000
   */
  historyLimit?: number;
  /**
   * Bytes of JSON an environment's history keeps besides `historyLimit` (oldest dropped first;
   * the newest change always stays), counted once per change as it is recorded, and held to on
   * a restart too (`docs/protocol.md` §3.4).
   * @default 16777216 (16 MiB)
   */
  historyBytes?: number;
  /**
   * Usage insights (`docs/protocol.md` §13): SDKs' usage reports at `POST /sdk/usage`, OFREP's
   * own counts, the usage reads and `GET /api/v1/usage/stale`. `false` turns all of it off (its
   * paths answer `404`); an object tunes it.
   * @default true
   */
  usage?: boolean | UsageServerOptions;
  /**
   * People's credentials (`docs/protocol.md` §10.6): how long an invitation link works
   * (`invitationMs`, default 7 days), a session lasts at most (`sessionSeconds`, default 7
   * days) and unused (`idleSeconds`, default 12 hours); `now` is the clock they are measured by.
   */
  people?: Partial<PeopleSettings>;
  /**
   * Change requests (`docs/protocol.md` §10.7): `now` is the clock scheduled changes are applied
   * by (default `Date.now`); `pollMs` how long the scheduler waits at most before it looks again
   * for requests other instances scheduled (default 10,000 ms; a request scheduled here wakes it
   * at its time).
   */
  changeRequests?: ChangeRequestOptions;
  /**
   * Single sign-on to the dashboard through an OpenID Connect provider (`docs/protocol.md`
   * §10.6): `GET /admin/oidc/login` sends the browser there (authorization code with PKCE,
   * `state` and `nonce`; scopes `openid email profile`), `GET /admin/oidc/callback` signs the
   * person in. Register `<publicUrl or the listening origin>/admin/oidc/callback` as the client's
   * redirect URI. The provider is first asked for its configuration at the first sign-in, not
   * at start-up.
   * @default undefined (no single sign-on)
   */
  oidc?: OidcServerOptions;
  /**
   * Where the server reports warnings and internal errors; `false` silences it.
   * @default warnings and errors to `console.error`
   */
  logger?: Logger | false;
}

/** Single sign-on through an OpenID Connect provider (`startServer({ oidc: {...} })`). */
export interface OidcServerOptions {
  /**
   * The provider's issuer identifier, as its discovery document names it
   * (`https://accounts.example.com`): `https://`, or `http://` on a loopback address only
   * (`127.0.0.0/8`, `::1`, `localhost`: tests and local development).
   */
  issuer: string;
  /** The client id the provider registered the server under. */
  clientId: string;
  /** The client's secret (sent with HTTP Basic authentication to the token endpoint). */
  clientSecret: string;
  /**
   * The role of an account made at its first sign-in (an existing account keeps its own).
   * @default 'viewer'
   */
  defaultRole?: Role;
  /**
   * The e-mail domains that may sign in (`['example.com']`), compared case-insensitively with
   * what follows the `@`; empty: any verified address.
   * @default [] (any domain)
   */
  allowedDomains?: readonly string[];
}

/** Single sign-on's settings, resolved. */
export type ResolvedOidcOptions = OidcSettings;

/** Settings of usage insights (`startServer({ usage: {...} })`). */
export interface UsageServerOptions {
  /**
   * Usage reports one API key may send to one server instance per second (a token bucket; past
   * it, `429` with `Retry-After`).
   * @default 50
   */
  reportsPerSecond?: number;
  /**
   * Reports one key may send at once before the rate applies (the bucket's size).
   * @default 1000
   */
  burst?: number;
  /**
   * How often the counts of OFREP evaluations are committed (and at shutdown).
   * @default 10000
   */
  ofrepFlushIntervalMs?: number;
  /**
   * The clock usage is recorded and read by, in epoch milliseconds: tests move it to see rows
   * roll up and flags go stale without waiting days.
   * @default Date.now
   */
  now?: () => number;
}

export interface ResolvedServerOptions {
  port: number;
  host: string;
  config: FlagwireConfig | undefined;
  dataDir: string | undefined;
  databaseUrl: string | undefined;
  databaseConnectTimeoutMs: number;
  databasePoolSize: number;
  databaseCatchUpIntervalMs: number;
  pingIntervalMs: number;
  streamHistorySize: number;
  streamHistoryBytes: number;
  streamMaxBufferedBytes: number;
  streamMaxTotalBufferedBytes: number;
  listenBacklog: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  maxConnections: number;
  streamRetryMs: number;
  maxStreams: number;
  compactAfterEntries: number;
  compactAfterBytes: number;
  webhookRetryDelaysMs: number[];
  webhookTimeoutMs: number;
  webhookConcurrency: number;
  webhookConcurrencyPerWebhook: number;
  webhookSecretGraceMs: number;
  webhookTargets: 'any' | 'public';
  dashboard: boolean;
  adminToken: string | undefined;
  /** An origin (`scheme://host[:port]`), or `undefined`: the listening origins. */
  publicUrl: string | undefined;
  historyLimit: number;
  historyBytes: number;
  /** `undefined`: usage is off. */
  usage: Required<UsageServerOptions> | undefined;
  people: Partial<PeopleSettings>;
  changeRequests: Required<ChangeRequestOptions>;
  /** `undefined`: no single sign-on. */
  oidc: ResolvedOidcOptions | undefined;
  logger: Logger;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** The contract's retry schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const DEFAULT_WEBHOOK_RETRY_DELAYS_MS = [
  5000,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
];

const silent: Logger = { info() {}, warn() {}, error() {} };
const toStderr: Logger = {
  info() {},
  warn: (message) => console.error(`flagwire-server: ${message}`),
  error: (message) => console.error(`flagwire-server: ${message}`),
};

/** People's settings: positive whole numbers, the clock a function; the defaults are `PEOPLE_DEFAULTS`. */
function peopleOptions(options: Partial<PeopleSettings> | undefined): Partial<PeopleSettings> {
  const out: Partial<PeopleSettings> = {};
  for (const name of ['invitationMs', 'sessionSeconds', 'idleSeconds', 'seenEverySeconds'] as const) {
    const value = options?.[name];
    if (value !== undefined) out[name] = Math.floor(positive(`people.${name}`, value, 1));
  }
  if (options?.now !== undefined) {
    if (typeof options.now !== 'function')
      throw new TypeError('startServer: "people.now" must be a function');
    out.now = options.now;
  }
  return out;
}

/** Change requests' settings (`StartServerOptions.changeRequests`). */
export interface ChangeRequestOptions {
  now?: () => number;
  pollMs?: number;
}

function changeRequestOptions(options: ChangeRequestOptions | undefined): Required<ChangeRequestOptions> {
  if (options?.now !== undefined && typeof options.now !== 'function')
    throw new TypeError('startServer: "changeRequests.now" must be a function answering epoch milliseconds');
  return {
    now: options?.now ?? Date.now,
    pollMs: Math.floor(positive('changeRequests.pollMs', options?.pollMs, 10_000)),
  };
}

const ROLES: readonly Role[] = ['admin', 'editor', 'viewer'];
/** An e-mail domain: labels of letters, digits and hyphens. */
const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** Single sign-on's settings, checked, with their defaults (`OidcServerOptions`). */
export function oidcOptions(value: OidcServerOptions | undefined): ResolvedOidcOptions | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null)
    throw new TypeError('startServer: "oidc" must be an object: { issuer, clientId, clientSecret }');
  const text = (name: 'issuer' | 'clientId' | 'clientSecret') => {
    const given = value[name];
    if (typeof given !== 'string' || given.trim() === '')
      throw new TypeError(`startServer: "oidc.${name}" must be a non-empty string`);
    return given.trim();
  };
  const issuer = text('issuer').replace(/\/+$/, '');
  const problem = issuerProblem(issuer);
  if (problem) throw new TypeError(`startServer: "oidc.issuer" ${problem}, got ${JSON.stringify(issuer)}`);
  const defaultRole = value.defaultRole ?? 'viewer';
  if (!ROLES.includes(defaultRole))
    throw new TypeError(
      `startServer: "oidc.defaultRole" must be "admin", "editor" or "viewer", got ${JSON.stringify(defaultRole)}`,
    );
  const domains = value.allowedDomains ?? [];
  if (!Array.isArray(domains))
    throw new TypeError('startServer: "oidc.allowedDomains" must be an array of e-mail domains');
  const allowedDomains = [
    ...new Set(
      domains.map((domain: unknown) => {
        const d = typeof domain === 'string' ? domain.trim().toLowerCase().replace(/^@/, '') : '';
        if (!DOMAIN.test(d))
          throw new TypeError(
            `startServer: "oidc.allowedDomains" must hold e-mail domains (example.com), got ${JSON.stringify(domain)}`,
          );
        return d;
      }),
    ),
  ];
  return {
    issuer,
    clientId: text('clientId'),
    clientSecret: text('clientSecret'),
    defaultRole,
    allowedDomains,
  };
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new TypeError(`startServer: "${name}" must be a positive number, got ${String(value)}`);
  }
  return value;
}

function deadlines(options: StartServerOptions): { headersTimeoutMs: number; requestTimeoutMs: number } {
  const headersTimeoutMs = positive('headersTimeoutMs', options.headersTimeoutMs, 20_000);
  const requestTimeoutMs = positive(
    'requestTimeoutMs',
    options.requestTimeoutMs,
    Math.max(30_000, headersTimeoutMs),
  );
  if (requestTimeoutMs < headersTimeoutMs)
    throw new TypeError('startServer: "requestTimeoutMs" must be at least "headersTimeoutMs"');
  return { headersTimeoutMs, requestTimeoutMs };
}

function retryDelays(value: number[] | undefined): number[] {
  if (value === undefined) return [...DEFAULT_WEBHOOK_RETRY_DELAYS_MS];
  if (!Array.isArray(value) || value.some((d) => typeof d !== 'number' || !Number.isFinite(d) || d < 0)) {
    throw new TypeError('startServer: "webhookRetryDelaysMs" must be an array of non-negative milliseconds');
  }
  return [...value];
}

function webhookTargets(value: unknown): 'any' | 'public' {
  if (value === undefined || value === 'any' || value === 'public') return value ?? 'any';
  throw new TypeError(
    `startServer: "webhookTargets" must be "any" or "public", got ${JSON.stringify(value)}`,
  );
}

function adminToken(value: string | undefined): string | undefined {
  if (value !== undefined && (typeof value !== 'string' || !ADMIN_TOKEN_RULE.test(value))) {
    throw new TypeError('startServer: "adminToken" must be 16 to 256 printable characters without spaces');
  }
  return value;
}

/** The public URL as an origin (`https://flags.example.com`, no trailing slash), or a TypeError. */
function publicUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const origin = typeof value === 'string' ? originOf(value) : undefined;
  if (origin === undefined)
    throw new TypeError(
      `startServer: "publicUrl" must be an http:// or https:// origin without a path ` +
        `(https://flags.example.com), got ${JSON.stringify(value)}`,
    );
  return origin;
}

function usageOptions(
  value: boolean | UsageServerOptions | undefined,
): Required<UsageServerOptions> | undefined {
  if (value === false) return undefined;
  if (value !== undefined && value !== true && (typeof value !== 'object' || value === null))
    throw new TypeError('startServer: "usage" must be true, false or an object of usage settings');
  const o = typeof value === 'object' ? value : {};
  if (o.now !== undefined && typeof o.now !== 'function')
    throw new TypeError('startServer: "usage.now" must be a function answering epoch milliseconds');
  return {
    reportsPerSecond: positive('usage.reportsPerSecond', o.reportsPerSecond, 50),
    burst: Math.max(1, positive('usage.burst', o.burst, 1000)),
    ofrepFlushIntervalMs: positive('usage.ofrepFlushIntervalMs', o.ofrepFlushIntervalMs, 10_000),
    now: o.now ?? Date.now,
  };
}

export function resolveServerOptions(options: StartServerOptions = {}): ResolvedServerOptions {
  if (options.memory === true && options.dataDir !== undefined) {
    throw new TypeError('startServer: give either "dataDir" (durable) or "memory: true", not both');
  }
  if (options.databaseUrl !== undefined) {
    if (typeof options.databaseUrl !== 'string' || options.databaseUrl === '')
      throw new TypeError('startServer: "databaseUrl" must be a postgres:// URL');
    if (options.dataDir !== undefined || options.memory !== undefined)
      throw new TypeError('startServer: give either "databaseUrl" or "dataDir"/"memory", not both');
  }
  if (options.memory === false && options.dataDir === undefined && options.databaseUrl === undefined) {
    throw new TypeError('startServer: "memory: false" needs a "dataDir" to store data in');
  }
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new TypeError(
      `startServer: "port" must be an integer from 0 to 65535, got ${String(options.port)}`,
    );
  }
  const webhookConcurrency = Math.floor(positive('webhookConcurrency', options.webhookConcurrency, 16));
  return {
    port,
    host: options.host ?? '127.0.0.1',
    config: options.config,
    dataDir: options.memory ? undefined : options.dataDir,
    databaseUrl: options.databaseUrl,
    databaseConnectTimeoutMs: positive('databaseConnectTimeoutMs', options.databaseConnectTimeoutMs, 10_000),
    databasePoolSize: Math.max(1, Math.floor(positive('databasePoolSize', options.databasePoolSize, 10))),
    databaseCatchUpIntervalMs: positive('databaseCatchUpIntervalMs', options.databaseCatchUpIntervalMs, 5000),
    pingIntervalMs: positive('pingIntervalMs', options.pingIntervalMs, 15_000),
    streamHistorySize: Math.floor(positive('streamHistorySize', options.streamHistorySize, 1000)),
    streamHistoryBytes: positive('streamHistoryBytes', options.streamHistoryBytes, 16 * 1024 * 1024),
    streamMaxBufferedBytes: positive('streamMaxBufferedBytes', options.streamMaxBufferedBytes, 1024 * 1024),
    streamMaxTotalBufferedBytes: positive(
      'streamMaxTotalBufferedBytes',
      options.streamMaxTotalBufferedBytes,
      64 * 1024 * 1024,
    ),
    listenBacklog: Math.floor(positive('listenBacklog', options.listenBacklog, 4096)),
    ...deadlines(options),
    maxConnections: Math.floor(positive('maxConnections', options.maxConnections, defaultMaxConnections())),
    streamRetryMs: Math.floor(positive('streamRetryMs', options.streamRetryMs, 1000)),
    maxStreams: Math.floor(positive('maxStreams', options.maxStreams, 20_000)),
    compactAfterEntries: Math.floor(positive('compactAfterEntries', options.compactAfterEntries, 10_000)),
    compactAfterBytes: 16 * 1024 * 1024,
    webhookRetryDelaysMs: retryDelays(options.webhookRetryDelaysMs),
    webhookTimeoutMs: positive('webhookTimeoutMs', options.webhookTimeoutMs, 15_000),
    webhookConcurrency,
    webhookConcurrencyPerWebhook: Math.min(
      webhookConcurrency,
      Math.floor(
        positive(
          'webhookConcurrencyPerWebhook',
          options.webhookConcurrencyPerWebhook,
          Math.max(1, Math.floor(webhookConcurrency / 2)),
        ),
      ),
    ),
    webhookSecretGraceMs: positive('webhookSecretGraceMs', options.webhookSecretGraceMs, 24 * HOUR),
    webhookTargets: webhookTargets(options.webhookTargets),
    dashboard: options.dashboard ?? true,
    adminToken: adminToken(options.adminToken ?? options.config?.adminToken),
    publicUrl: publicUrl(options.publicUrl),
    historyLimit: Math.floor(positive('historyLimit', options.historyLimit, 10_000)),
    historyBytes: Math.floor(positive('historyBytes', options.historyBytes, 16 * 1024 * 1024)),
    usage: usageOptions(options.usage),
    people: peopleOptions(options.people),
    changeRequests: changeRequestOptions(options.changeRequests),
    oidc: oidcOptions(options.oidc),
    logger: options.logger === false ? silent : (options.logger ?? toStderr),
  };
}
