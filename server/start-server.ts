/**
 * `startServer()`: open the store, set up environments and keys, seed config flags, wire the
 * layers (`docs/architecture.md`) and listen (`docs/protocol.md` §7).
 */
import { createServer, type Server } from 'node:http';
import { checkPattern } from '../src/core/targeting/patterns.js';
import { parseConfig } from './config.js';
import { auditRoutes } from './dashboard/audit-routes.js';
import { changeRequestRoutes } from './dashboard/change-routes.js';
import { AdminEvents } from './dashboard/events.js';
import { createDashboardHandler } from './dashboard/handler.js';
import { OidcRelyingParty } from './dashboard/oidc.js';
import { OwnOrigins } from './dashboard/origins.js';
import { peopleRoutes } from './dashboard/people-routes.js';
import { adminRoutes } from './dashboard/routes.js';
import { AdminAuth } from './dashboard/session.js';
import { SignInThrottle } from './dashboard/sign-in-throttle.js';
import { DashboardAssets } from './dashboard/static.js';
import { ApiError } from './errors.js';
import { createApiHandler, guarded } from './http/app.js';
import { ClientErrorResponder } from './http/client-errors.js';
import { ConnectionGuard } from './http/connections.js';
import { flagRoutes } from './http/handlers/flags.js';
import { documentRoute } from './http/handlers/openapi.js';
import { sdkRoutes } from './http/handlers/sdk.js';
import { segmentRoutes } from './http/handlers/segments.js';
import { usageOffRoutes, usageRoutes } from './http/handlers/usage.js';
import { webhookRoutes } from './http/handlers/webhooks.js';
import { openApiDocument } from './http/openapi.js';
import { RateLimiter } from './http/rate-limit.js';
import { sendError } from './http/respond.js';
import { type Authenticated, type Route, splitTarget } from './http/router.js';
import { listen, urlOf } from './listen.js';
import { createOfrepHandler } from './ofrep/handler.js';
import { OfrepStreams } from './ofrep/stream.js';
import { resolveServerOptions, type StartServerOptions } from './options.js';
import { approvalsFromConfig, openStorage, seedFlags, setUpEnvironments, streamSecret } from './set-up.js';
import { AdminService } from './state/admin/admin-service.js';
import { KeyRing } from './state/admin/key-ring.js';
import { LifecycleService } from './state/admin/lifecycle-service.js';
import { SessionService } from './state/admin/session-service.js';
import { ChangeRequestService } from './state/changes/change-request-service.js';
import type { ChangeOp } from './state/changes/ops.js';
import { ChangeScheduler } from './state/changes/scheduler.js';
import { CopyService } from './state/copy/copy-service.js';
import { Applier, restoreState } from './state/domains.js';
import { FlagService } from './state/flags/flag-service.js';
import { damagedLine } from './state/kernel/damaged.js';
import { nameOf } from './state/kernel/env-names.js';
import { StorageLedger } from './state/kernel/ledger.js';
import type { Access } from './state/kernel/model.js';
import { PeopleService } from './state/people/people-service.js';
import { SegmentService } from './state/segments/segment-service.js';
import { OfrepUsage } from './state/usage/ofrep.js';
import { UsageService } from './state/usage/usage-service.js';
import { WebhookService } from './state/webhooks/webhook-service.js';
import { SseGroup } from './stream/channel.js';
import { StreamHub } from './stream/hub.js';
import { Dispatcher } from './webhooks/dispatcher.js';
import { targetProblem } from './webhooks/targets.js';

/** An API key the server accepts, with what it opens. */
export interface ServerKey {
  project: string;
  environment: string;
  key: string;
  access: Access;
}

/** A running reference server. */
export interface FlagwireServer {
  /** `http://HOST:PORT`, no path; the management base is `${url}/api/v1`. */
  readonly url: string;
  readonly port: number;
  /** Every API key this server accepts. */
  readonly keys: readonly ServerKey[];
  /** Number of open event streams. */
  readonly streamCount: number;
  /** The dashboard's admin token (`docs/protocol.md` §10.2); `undefined` with `dashboard: false`. */
  readonly adminToken: string | undefined;
  /** Where the data is kept: `in memory`, the data directory, or `postgres (HOST:PORT/DB)`. */
  readonly storage: string;
  /**
   * The URL that opens the dashboard signed in (`${publicUrl ?? url}/#token=...`); `undefined`
   * when it is off.
   */
  readonly dashboardUrl: string | undefined;
  /** Stops listening, ends streams, flushes and closes the store. Idempotent. */
  close(): Promise<void>;
}

export { DEFAULT_ENVIRONMENT, DEFAULT_PROJECT } from './set-up.js';

/** The routes each running server serves, for the tests that hold its documents to them. */
const served = new WeakMap<
  FlagwireServer,
  { api: readonly Route[]; admin: readonly Route<Authenticated>[] }
>();

/** The routes `server` serves under `/api/v1` and `/admin/api` (not in the package's API: `server/index.ts`). */
export const routesOf = (server: FlagwireServer) => served.get(server);

/** The words atop `GET /api/v1/openapi.json`. */
const API_DESCRIPTION =
  "Flagwire's service API: flags, segments, webhooks, usage and the SDK endpoints of one environment, " +
  'the one the API key belongs to. The protocol, in words: docs/protocol.md.';
const API_KEY_WORDS =
  '`Authorization: Bearer fw_live_...`: a full key writes; a read-only key reads and serves SDKs; a client key evaluates through OFREP only.';

/** How often Node looks for connections past their deadlines: every second, or more often for short ones. */
function checkingInterval(o: { headersTimeoutMs: number; requestTimeoutMs: number }): number {
  return Math.max(10, Math.min(1000, Math.floor(Math.min(o.headersTimeoutMs, o.requestTimeoutMs) / 4)));
}

/** Starts a reference server. See `StartServerOptions` for every option and its default. */
export async function startServer(options: StartServerOptions = {}): Promise<FlagwireServer> {
  const resolved = resolveServerOptions(options);
  if (resolved.config) resolved.config = parseConfig(resolved.config);
  const { logger } = resolved;
  const storage = await openStorage(resolved);
  let server: Server | undefined;
  let stopDispatcher: (() => Promise<void>) | undefined;
  let stopScheduler: (() => Promise<void>) | undefined;
  let ofrepUsage: OfrepUsage | undefined;
  try {
    const db = restoreState(await storage.load(), resolved.historyLimit, resolved.historyBytes);
    for (const env of db.damaged.values()) logger.error(damagedLine(env));
    const applier = new Applier(db, (error) =>
      logger.error(`a change listener threw: ${(error as Error)?.stack ?? error}`),
    );
    storage.attach(applier);
    // The one write protocol, for every domain's service (and the reads of the fronts).
    const ledger = new StorageLedger(db, storage);
    const service = new FlagService(ledger, checkPattern);
    // Every event stream (SDK, OFREP, dashboard) honours these; they share maxStreams and the total budget.
    const sse = new SseGroup({
      pingIntervalMs: resolved.pingIntervalMs,
      retryMs: resolved.streamRetryMs,
      maxBufferedBytes: resolved.streamMaxBufferedBytes,
      maxTotalBufferedBytes: resolved.streamMaxTotalBufferedBytes,
      maxStreams: resolved.maxStreams,
    });
    const hub = new StreamHub({
      historySize: resolved.streamHistorySize,
      historyBytes: resolved.streamHistoryBytes,
      group: sse,
    });
    applier.onChange((change) => hub.publish(change));
    const publicOnly = resolved.webhookTargets === 'public';
    const dispatcher = new Dispatcher(db, ledger, {
      publicOnly,
      leases: storage,
      retryDelaysMs: resolved.webhookRetryDelaysMs,
      timeoutMs: resolved.webhookTimeoutMs,
      concurrency: resolved.webhookConcurrency,
      concurrencyPerWebhook: resolved.webhookConcurrencyPerWebhook,
      logger,
    });
    const { envs, grants } = await setUpEnvironments(ledger, db, resolved);
    for (const env of envs) hub.addEnvironment(env);
    await seedFlags(service, envs, resolved);
    const keyRing = new KeyRing(grants);
    const adminEvents = new AdminEvents(
      () => {
        const counts: Record<string, number> = {};
        for (const env of admin.environments) counts[nameOf(env)] = hub.countOf(env.id);
        return counts;
      },
      { group: sse },
    );
    const admin = new AdminService(db, ledger, keyRing, envs, {
      environment: (env) => hub.addEnvironment(env),
      removed: (env) => hub.removeEnvironment(env),
      structure: () => adminEvents.structure(),
      revoked: (grant) => {
        hub.closeStreamsOf(grant);
        ofrepStreams.revoked(grant);
      },
    });
    applier.onChange((change) => adminEvents.change(change));
    hub.onCountChange(() => adminEvents.countsChanged());
    const adminToken = resolved.dashboard ? await admin.adminToken(resolved.adminToken) : undefined;
    const serverSecret = await streamSecret(db, ledger);
    const ofrepStreams = new OfrepStreams(serverSecret, keyRing, { group: sse });
    applier.onChange((change) => ofrepStreams.changed(change));
    applier.onCommitted(admin.committed);
    // Dashboard sessions ended on the server (§10.2), whichever instance ended them.
    const sessions = new SessionService(db, ledger);
    applier.onCommitted(sessions.committed);
    applier.onCommitted(dispatcher.committed);
    // What other instances committed while this one was setting up, before anyone listened.
    admin.reconcile();

    dispatcher.start();
    stopDispatcher = () => dispatcher.close();
    const segments = new SegmentService(ledger, checkPattern);
    // Change requests (§10.7), and the scheduler that applies them at their time.
    const changes = new ChangeRequestService(
      ledger,
      { flags: service, segments },
      resolved.changeRequests.now,
    );
    const scheduler = new ChangeScheduler(changes, {
      environments: () => admin.environments,
      now: resolved.changeRequests.now,
      pollMs: resolved.changeRequests.pollMs,
      onError: (error) =>
        logger.error(
          `a scheduled change request could not be applied yet: ${(error as Error)?.message ?? error}`,
        ),
    });
    applier.onCommitted(scheduler.committed);
    // The dashboard's pages of change requests follow them live (§10.5), whoever moved them.
    applier.onCommitted((op) => {
      const env = (op as ChangeOp).t === 'cr' ? db.get((op as ChangeOp).env) : undefined;
      if (env) adminEvents.changeRequest(env, (op as ChangeOp).cr.id, (op as ChangeOp).cr.state);
    });
    scheduler.start();
    stopScheduler = () => scheduler.close();
    const envRoutes = [
      ...flagRoutes(service),
      ...segmentRoutes(segments),
      ...webhookRoutes(
        new WebhookService(ledger, publicOnly ? targetProblem : undefined),
        dispatcher,
        resolved.webhookSecretGraceMs,
      ),
    ];
    // Usage insights (docs/protocol.md §13): reports, OFREP's counts, reads; off: their paths are
    // 404, the admin API's with `usage: false`.
    const usageSettings = resolved.usage;
    const usage = usageSettings && new UsageService(db, ledger, usageSettings.now);
    ofrepUsage = usage && new OfrepUsage(usage, logger, usageSettings.ofrepFlushIntervalMs);
    const usageApi = usage
      ? usageRoutes(usage, new RateLimiter(usageSettings.reportsPerSecond, usageSettings.burst))
      : [];
    const apiRoutes = [...sdkRoutes(hub), ...usageApi, ...envRoutes];
    const apiDocument: Route = documentRoute(
      'openapi.json',
      () =>
        openApiDocument({
          title: 'Flagwire API',
          description: API_DESCRIPTION,
          server: '/api/v1',
          routes: [...apiRoutes, apiDocument],
          security: {
            name: 'apiKey',
            scheme: { type: 'http', scheme: 'bearer', description: API_KEY_WORDS },
          },
        }),
      true,
    );
    const api = createApiHandler([...apiRoutes, apiDocument], keyRing);
    // The origins the admin API takes changes from (§10.2), learnt once listening.
    const origins = new OwnOrigins(resolved.publicUrl);
    // People (§10.6): accounts, sessions kept on the server, personal tokens.
    const people = new PeopleService(db, ledger, resolved.people);
    // People's session cookies are signed with the server's own secret, not the admin token's.
    const auth =
      adminToken && new AdminAuth(adminToken, (id, expires) => sessions.isEnded(id, expires), serverSecret);
    const dashboard = auth
      ? createDashboardHandler({
          auth,
          sessions,
          people,
          throttle: new SignInThrottle({ now: resolved.people.now ?? Date.now }),
          origins,
          admin,
          assets: new DashboardAssets(),
          routes: [
            ...adminRoutes({
              admin,
              flags: service,
              ledger,
              hub,
              events: adminEvents,
              lifecycle: new LifecycleService(db, ledger, admin, (env) => approvalsFromConfig(resolved, env)),
              copies: new CopyService(db, ledger, checkPattern),
            }),
            ...changeRequestRoutes(admin, changes),
            ...peopleRoutes({ people, origins }),
            ...auditRoutes({ db, ledger }),
          ],
          // The usage reads and marks too (§13.7), as the dashboard's (not the SDKs' report endpoint).
          envRoutes: [
            ...envRoutes,
            ...(usage ? usageApi.filter((route) => route.pattern.startsWith('usage/')) : usageOffRoutes()),
          ],
          // Single sign-on (§10.6): the provider is asked for its configuration at the first sign-in.
          oidc:
            resolved.oidc && new OidcRelyingParty({ settings: resolved.oidc, people, auth, origins, logger }),
        })
      : undefined;
    if (dashboard) applier.onCommitted(dashboard.committed);
    const ofrep = createOfrepHandler({
      logger,
      keys: keyRing,
      flags: service,
      ledger,
      streams: ofrepStreams,
      usage: ofrepUsage,
    });
    const handle = guarded((req, res) => {
      const target = splitTarget(req.url);
      if (target) {
        const answered = ofrep(req, res, target.path, target.query);
        if (answered !== false) return answered;
        if (dashboard) {
          const shown = dashboard(req, res, target.path, target.query);
          if (shown !== false) return shown;
        }
      }
      return api(req, res);
    }, logger);
    const clientErrors = new ClientErrorResponder();
    const connections = new ConnectionGuard(resolved.maxConnections);
    const http = createServer(
      {
        // Deadlines for every connection, with or without a key (docs/protocol.md §4.1).
        requestTimeout: resolved.requestTimeoutMs,
        headersTimeout: resolved.headersTimeoutMs,
        connectionsCheckingInterval: checkingInterval(resolved),
        keepAliveTimeout: 5_000,
        // A request without Host is served like any other (HTTP/1.0 clients, raw tools).
        requireHostHeader: false,
      },
      (req, res) => {
        clientErrors.track(req.socket, res);
        if (!connections.admit(req, res)) handle(req, res);
      },
    );
    server = http;
    http.on('connection', connections.onConnection);
    http.on('clientError', clientErrors.onClientError);
    http.on('checkExpectation', (_req, res) =>
      sendError(
        res,
        new ApiError(417, 'EXPECTATION_FAILED', 'only "Expect: 100-continue" is supported'),
        true,
      ),
    );
    const address = await listen(http, resolved.port, resolved.host, resolved.listenBacklog);
    const url = urlOf(address);
    const guessed = dashboard && origins.listening(address);
    if (guessed) logger.warn(guessed);
    /** The keys whose value the server knows (config and generated ones), as they are now. */
    const currentKeys = (): ServerKey[] => {
      const keys: ServerKey[] = [];
      for (const env of admin.environments) {
        const configEnv = resolved.config?.projects
          .find((p) => p.key === env.project)
          ?.environments.find((e) => e.key === env.environment);
        for (const { key, access } of [...(configEnv?.apiKeys ?? []), ...env.generatedKeys]) {
          keys.push({ project: env.project, environment: env.environment, key, access });
        }
      }
      return keys;
    };

    let closing: Promise<void> | undefined;
    const close = async (): Promise<void> => {
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      await scheduler.close();
      hub.close();
      adminEvents.close();
      ofrepStreams.close();
      http.closeIdleConnections();
      await dispatcher.close();
      // OFREP's last counts go in before the store closes.
      await ofrepUsage?.close();
      await storage.close();
      const grace = setTimeout(() => http.closeAllConnections(), 1000);
      grace.unref();
      await closed;
      clearTimeout(grace);
    };
    const running: FlagwireServer = {
      url,
      port: address.port,
      get keys() {
        return currentKeys();
      },
      get streamCount() {
        return hub.size;
      },
      adminToken,
      storage: storage.description,
      dashboardUrl: adminToken ? `${resolved.publicUrl ?? url}/#token=${adminToken}` : undefined,
      close() {
        closing ??= close();
        return closing;
      },
    };
    served.set(running, { api: [...apiRoutes, apiDocument], admin: dashboard?.routes ?? [] });
    return running;
  } catch (error) {
    server?.close();
    await ofrepUsage?.close().catch(() => {});
    await stopScheduler?.().catch(() => {});
    await stopDispatcher?.().catch(() => {});
    await storage.close().catch(() => {});
    throw error;
  }
}
