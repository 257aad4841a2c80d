/**
 * `flagwire-server`: the reference server's command line (`docs/protocol.md` §7).
 * Prints the keys, then `flagwire-server listening on http://HOST:PORT` once ready;
 * exits 0 on SIGINT/SIGTERM after closing streams and flushing the store, 1 on a bad
 * flag, a malformed config or a port in use.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ADMIN_TOKEN_RULE, parseConfig } from './config.js';
import { issuerProblem } from './dashboard/oidc-settings.js';
import { originOf } from './dashboard/origins.js';
import type { StartServerOptions } from './options.js';
import { startServer } from './start-server.js';
import { describeDatabaseUrl } from './store/postgres/database-url.js';

const USAGE = `Usage: flagwire-server [options]

  --port PORT              TCP port (default 8787; 0 picks a free one)
  --host HOST              interface to listen on (default 127.0.0.1)
  --config FILE            JSON file of projects, environments, API keys and seed flags
  --data DIR               durable data directory (default ./.flagwire)
  --memory                 keep everything in memory instead
  --database URL           share a Postgres database with other instances:
                           postgres://USER:PASSWORD@HOST:PORT/DB (default:
                           FLAGWIRE_DATABASE_URL); not with --data or --memory
  --database-wait SECONDS  how long start-up waits for the database (default 10)
  --ping-interval SECONDS  interval of stream pings (default 15)
  --webhook-retry-delays MS,MS,...
                           delays between webhook delivery attempts, in milliseconds
                           (default 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h)
  --webhook-timeout MS     time a receiver has to answer a delivery (default 15000)
  --webhook-targets any|public
                           where webhooks may deliver (default any); public refuses
                           loopback, link-local, private and metadata addresses: use it
                           in production
  --admin-token TOKEN      the dashboard's admin token (default: FLAGWIRE_ADMIN_TOKEN, the
                           config's adminToken, else one generated and kept in the store)
  --public-url URL         the server's own origin as browsers reach it, such as
                           https://flags.example.com behind a proxy (default:
                           FLAGWIRE_PUBLIC_URL, else the address it listens on): the only
                           Origin the dashboard takes sign-ins and changes from
  --oidc-issuer URL        single sign-on to the dashboard through this OpenID Connect
                           provider (default: FLAGWIRE_OIDC_ISSUER); https://, or http://
                           on a loopback address only. Register the redirect URI
                           <public URL>/admin/oidc/callback with the provider
  --oidc-client-id ID      the client id it registered (default: FLAGWIRE_OIDC_CLIENT_ID)
  --oidc-client-secret SECRET
                           its secret (default: FLAGWIRE_OIDC_CLIENT_SECRET; prefer the
                           variable: a flag shows in the process list)
  --oidc-default-role admin|editor|viewer
                           the role of an account made at its first sign-in (default viewer)
  --oidc-allowed-domains DOMAIN,DOMAIN,...
                           the e-mail domains that may sign in (default: any verified address)
  --headers-timeout SECONDS
                           time a client has to send a request's headers (default 20);
                           then 408 and the connection closed
  --request-timeout SECONDS
                           time a client has to send a whole request, body included
                           (default 30; at least --headers-timeout)
  --max-connections N      open connections (default: the open-file limit less 256); at
                           the bound the oldest slow one makes way, and when all are busy
                           a newcomer gets 503 (docs/protocol.md §4.1)
  --no-dashboard           serve no dashboard at / and no admin API
  --no-usage               take no usage reports and keep no usage (docs/protocol.md §13)
  -h, --help               show this help`;

class UsageError extends Error {}

function fail(message: string): never {
  process.stderr.write(`flagwire-server: ${message}\n`);
  process.exit(1);
}

function number(name: string, text: string | undefined, check: (n: number) => boolean): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === '' || !check(value)) throw new UsageError(`invalid --${name} ${JSON.stringify(text)}`);
  return value;
}

function parse(argv: string[]): StartServerOptions | undefined {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      config: { type: 'string' },
      data: { type: 'string' },
      memory: { type: 'boolean' },
      database: { type: 'string' },
      'database-wait': { type: 'string' },
      'ping-interval': { type: 'string' },
      'webhook-retry-delays': { type: 'string' },
      'webhook-timeout': { type: 'string' },
      'webhook-targets': { type: 'string' },
      'admin-token': { type: 'string' },
      'public-url': { type: 'string' },
      'oidc-issuer': { type: 'string' },
      'oidc-client-id': { type: 'string' },
      'oidc-client-secret': { type: 'string' },
      'oidc-default-role': { type: 'string' },
      'oidc-allowed-domains': { type: 'string' },
      'headers-timeout': { type: 'string' },
      'request-timeout': { type: 'string' },
      'max-connections': { type: 'string' },
      'no-dashboard': { type: 'boolean' },
      'no-usage': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return undefined;
  if (values.memory && values.data !== undefined)
    throw new UsageError('give either --data DIR or --memory, not both');
  const options: StartServerOptions = {
    port: number('port', values.port, (n) => Number.isInteger(n) && n >= 0 && n <= 65535) ?? 8787,
    host: values.host ?? '127.0.0.1',
  };
  const database = values.database ?? (process.env.FLAGWIRE_DATABASE_URL || undefined);
  if (database !== undefined) {
    if (values.memory || values.data !== undefined) {
      const source = values.database !== undefined ? '--database' : 'FLAGWIRE_DATABASE_URL';
      throw new UsageError(`give either ${source} or ${values.memory ? '--memory' : '--data'}, not both`);
    }
    try {
      describeDatabaseUrl(database);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    options.databaseUrl = database;
    const wait = number('database-wait', values['database-wait'], (n) => Number.isFinite(n) && n > 0);
    if (wait !== undefined) options.databaseConnectTimeoutMs = wait * 1000;
  } else if (values.memory) options.memory = true;
  else options.dataDir = values.data ?? './.flagwire';
  const ping = number('ping-interval', values['ping-interval'], (n) => Number.isFinite(n) && n > 0);
  if (ping !== undefined) options.pingIntervalMs = ping * 1000;
  const delays = values['webhook-retry-delays'];
  if (delays !== undefined) {
    options.webhookRetryDelaysMs = delays.split(',').map((part) => {
      const ms = Number(part);
      if (part.trim() === '' || !Number.isFinite(ms) || ms < 0) {
        throw new UsageError(
          `invalid --webhook-retry-delays ${JSON.stringify(delays)}: milliseconds separated by commas`,
        );
      }
      return ms;
    });
  }
  const timeout = number('webhook-timeout', values['webhook-timeout'], (n) => Number.isFinite(n) && n > 0);
  if (timeout !== undefined) options.webhookTimeoutMs = timeout;
  const targets = values['webhook-targets'];
  if (targets !== undefined) {
    if (targets !== 'any' && targets !== 'public')
      throw new UsageError(`invalid --webhook-targets ${JSON.stringify(targets)}: "any" or "public"`);
    options.webhookTargets = targets;
  }
  const seconds = (n: number) => Number.isFinite(n) && n > 0;
  const headersTimeout = number('headers-timeout', values['headers-timeout'], seconds);
  if (headersTimeout !== undefined) options.headersTimeoutMs = headersTimeout * 1000;
  const requestTimeout = number('request-timeout', values['request-timeout'], seconds);
  if (requestTimeout !== undefined) options.requestTimeoutMs = requestTimeout * 1000;
  if ((requestTimeout ?? 30) < (headersTimeout ?? 20))
    throw new UsageError('--request-timeout must be at least --headers-timeout');
  const connections = number(
    'max-connections',
    values['max-connections'],
    (n) => Number.isInteger(n) && n > 0,
  );
  if (connections !== undefined) options.maxConnections = connections;
  if (values['no-dashboard']) options.dashboard = false;
  if (values['no-usage']) options.usage = false;
  const adminToken = values['admin-token'] ?? (process.env.FLAGWIRE_ADMIN_TOKEN || undefined);
  if (adminToken !== undefined) {
    if (!ADMIN_TOKEN_RULE.test(adminToken))
      throw new UsageError('the admin token must be 16 to 256 printable characters without spaces');
    options.adminToken = adminToken;
  }
  const origin = values['public-url'] ?? (process.env.FLAGWIRE_PUBLIC_URL || undefined);
  if (origin !== undefined) {
    const checked = originOf(origin);
    if (checked === undefined)
      throw new UsageError(
        `invalid --public-url ${JSON.stringify(origin)}: an http:// or https:// origin without a path, ` +
          'such as https://flags.example.com',
      );
    options.publicUrl = checked;
  }
  const oidc = oidcOptions(values);
  if (oidc) options.oidc = oidc;
  if (values.config !== undefined) {
    let text: string;
    try {
      text = readFileSync(values.config, 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read config ${values.config}: ${(error as Error).message}`);
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new UsageError(`config ${values.config} is not valid JSON: ${(error as Error).message}`);
    }
    try {
      options.config = parseConfig(raw);
    } catch (error) {
      throw new UsageError(`config ${values.config}: ${(error as Error).message}`);
    }
  }
  return options;
}

/** Single sign-on's flags and variables: the issuer, client id and secret all three, or none. */
function oidcOptions(values: Record<string, string | boolean | undefined>): StartServerOptions['oidc'] {
  const given = (flag: string, variable?: string): string | undefined => {
    const value = values[flag];
    if (typeof value === 'string') return value;
    return (variable && process.env[variable]) || undefined;
  };
  const issuer = given('oidc-issuer', 'FLAGWIRE_OIDC_ISSUER');
  const clientId = given('oidc-client-id', 'FLAGWIRE_OIDC_CLIENT_ID');
  const clientSecret = given('oidc-client-secret', 'FLAGWIRE_OIDC_CLIENT_SECRET');
  const role = given('oidc-default-role');
  const domains = given('oidc-allowed-domains');
  if (issuer === undefined && clientId === undefined && clientSecret === undefined) {
    if (role !== undefined || domains !== undefined)
      throw new UsageError('--oidc-default-role and --oidc-allowed-domains need --oidc-issuer');
    return undefined;
  }
  if (issuer === undefined || clientId === undefined || clientSecret === undefined)
    throw new UsageError(
      'single sign-on needs --oidc-issuer, --oidc-client-id and --oidc-client-secret (or FLAGWIRE_OIDC_ISSUER, ' +
        'FLAGWIRE_OIDC_CLIENT_ID, FLAGWIRE_OIDC_CLIENT_SECRET), all three',
    );
  const problem = issuerProblem(issuer.trim());
  if (problem) throw new UsageError(`invalid --oidc-issuer ${JSON.stringify(issuer)}: it ${problem}`);
  if (role !== undefined && role !== 'admin' && role !== 'editor' && role !== 'viewer')
    throw new UsageError(`invalid --oidc-default-role ${JSON.stringify(role)}: admin, editor or viewer`);
  const allowedDomains = domains
    ?.split(',')
    .map((d) => d.trim())
    .filter((d) => d !== '');
  return {
    issuer,
    clientId,
    clientSecret,
    ...(role !== undefined && { defaultRole: role }),
    ...(allowedDomains !== undefined && { allowedDomains }),
  };
}

async function main(): Promise<void> {
  let options: StartServerOptions | undefined;
  try {
    options = parse(process.argv.slice(2));
  } catch (error) {
    fail(`${(error as Error).message}\n\n${USAGE}`);
  }
  if (!options) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  // Signals are handled from the first moment, so one that arrives during start-up
  // still shuts down cleanly once the server is up.
  let starting: ReturnType<typeof startServer> | undefined;
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    process.stderr.write(`flagwire-server: ${signal}, shutting down\n`);
    if (!starting) process.exit(0);
    starting
      .then((server) => server.close())
      .then(
        () => process.exit(0),
        (error: unknown) => fail(`shutdown failed: ${(error as Error).message}`),
      );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));

  starting = startServer(options);
  let server: Awaited<typeof starting>;
  try {
    server = await starting;
  } catch (error) {
    fail((error as Error).message);
  }
  const lines = [`storage: ${server.storage}`];
  for (const key of server.keys) {
    lines.push(`${key.project}/${key.environment} ${ACCESS_LABEL[key.access]} key: ${key.key}`);
  }
  lines.push(`management API: ${server.url}/api/v1`);
  if (server.dashboardUrl) lines.push(`dashboard: ${server.dashboardUrl}`);
  process.stdout.write(`${lines.join('\n')}\nflagwire-server listening on ${server.url}\n`);
}

/** How the start-up lines name each access level, padded to one width. */
const ACCESS_LABEL = { full: 'full-access', 'read-only': 'read-only  ', client: 'client     ' } as const;

void main();
