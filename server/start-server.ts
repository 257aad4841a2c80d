/**
 * `startServer()`: load the store, set up environments and keys, seed config flags,
 * and listen (`docs/protocol.md` §7).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseConfig } from './config.js';
import { ApiError } from './errors.js';
import { createRequestHandler } from './http/app.js';
import { type Grant, KeyRing } from './http/auth.js';
import { ClientErrorResponder } from './http/client-errors.js';
import { flagRoutes } from './http/handlers/flags.js';
import { sdkRoutes } from './http/handlers/sdk.js';
import { webhookRoutes } from './http/handlers/webhooks.js';
import { sendError } from './http/respond.js';
import { resolveServerOptions, type StartServerOptions } from './options.js';
import type { Access, Environment } from './state/model.js';
import { applyOp, type Database, fromSnapshot, toSnapshot } from './state/ops.js';
import { FlagService } from './state/service.js';
import { createFileStorage } from './store/file-storage.js';
import { createMemoryStorage } from './store/memory-storage.js';
import type { Storage } from './store/storage.js';
import { StreamHub } from './stream/hub.js';
import { Dispatcher } from './webhooks/dispatcher.js';

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
  /** Stops listening, ends streams, flushes and closes the store. Idempotent. */
  close(): Promise<void>;
}

export const DEFAULT_PROJECT = 'default';
export const DEFAULT_ENVIRONMENT = 'development';

async function setUpEnvironments(
  service: FlagService,
  options: ReturnType<typeof resolveServerOptions>,
): Promise<{ envs: Environment[]; grants: Grant[] }> {
  const envs: Environment[] = [];
  const grants: Grant[] = [];
  if (!options.config) {
    const env = await service.ensureEnvironment(DEFAULT_PROJECT, DEFAULT_ENVIRONMENT, true);
    envs.push(env);
    for (const { key, access } of env.generatedKeys) grants.push({ env, key, access });
    return { envs, grants };
  }
  for (const project of options.config.projects) {
    for (const environment of project.environments) {
      const env = await service.ensureEnvironment(project.key, environment.key, false);
      envs.push(env);
      for (const { key, access } of environment.apiKeys ?? []) grants.push({ env, key, access });
    }
  }
  return { envs, grants };
}

async function seedFlags(
  service: FlagService,
  envs: Environment[],
  options: ReturnType<typeof resolveServerOptions>,
) {
  if (!options.config) return;
  for (const project of options.config.projects) {
    for (const environment of project.environments) {
      const env = envs.find((e) => e.id === `${project.key}/${environment.key}`)!;
      for (const flag of environment.flags ?? [])
        await service.seedFlag(env, { ...flag, enabled: flag.enabled ?? false });
    }
  }
}

function listen(server: Server, port: number, host: string, backlog: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE')
        reject(new Error(`port ${port} on ${host} is already in use; pick another with --port`));
      else if (error.code === 'EADDRNOTAVAIL')
        reject(new Error(`cannot listen on ${host}: no such local address`));
      else reject(error);
    };
    server.once('error', onError);
    server.listen({ port, host, backlog }, () => {
      server.off('error', onError);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** Starts a reference server. See `StartServerOptions` for every option and its default. */
export async function startServer(options: StartServerOptions = {}): Promise<FlagwireServer> {
  const resolved = resolveServerOptions(options);
  if (resolved.config) resolved.config = parseConfig(resolved.config);
  const { logger } = resolved;
  const storage: Storage = resolved.dataDir
    ? createFileStorage({
        dir: resolved.dataDir,
        compactAfterEntries: resolved.compactAfterEntries,
        compactAfterBytes: resolved.compactAfterBytes,
        warn: (message) => logger.warn(message),
      })
    : createMemoryStorage();
  let server: Server | undefined;
  let stopDispatcher: (() => Promise<void>) | undefined;
  try {
    const loaded = await storage.load();
    const db: Database = loaded.snapshot ? fromSnapshot(loaded.snapshot) : new Map();
    for (const entry of loaded.entries) for (const op of entry) applyOp(db, op);
    storage.setSnapshotSource(() => toSnapshot(db));

    const service = new FlagService(db, storage, (error) =>
      logger.error(`a change listener threw: ${(error as Error)?.stack ?? error}`),
    );
    const hub = new StreamHub({
      pingIntervalMs: resolved.pingIntervalMs,
      historySize: resolved.streamHistorySize,
      maxBufferedBytes: resolved.streamMaxBufferedBytes,
      maxTotalBufferedBytes: resolved.streamMaxTotalBufferedBytes,
      retryMs: resolved.streamRetryMs,
      maxStreams: resolved.maxStreams,
    });
    service.onChange((change) => hub.publish(change));
    const dispatcher = new Dispatcher(db, service, {
      retryDelaysMs: resolved.webhookRetryDelaysMs,
      timeoutMs: resolved.webhookTimeoutMs,
      concurrency: resolved.webhookConcurrency,
      concurrencyPerWebhook: resolved.webhookConcurrencyPerWebhook,
      logger,
    });
    service.setPlanner(dispatcher.plan);
    service.onChange(dispatcher.committed);
    const { envs, grants } = await setUpEnvironments(service, resolved);
    for (const env of envs) hub.addEnvironment(env);
    await seedFlags(service, envs, resolved);
    const keyRing = new KeyRing(grants);

    dispatcher.start();
    stopDispatcher = () => dispatcher.close();
    const routes = [
      ...sdkRoutes(hub),
      ...flagRoutes(service),
      ...webhookRoutes(service, dispatcher, resolved.webhookSecretGraceMs),
    ];
    const handle = createRequestHandler(routes, keyRing, logger);
    const clientErrors = new ClientErrorResponder();
    const http = createServer(
      // A request without Host is served like any other (HTTP/1.0 clients, raw tools).
      { requestTimeout: 30_000, headersTimeout: 20_000, keepAliveTimeout: 5_000, requireHostHeader: false },
      (req, res) => {
        clientErrors.track(req.socket, res);
        handle(req, res);
      },
    );
    server = http;
    http.on('clientError', clientErrors.onClientError);
    http.on('checkExpectation', (_req, res) =>
      sendError(
        res,
        new ApiError(417, 'EXPECTATION_FAILED', 'only "Expect: 100-continue" is supported'),
        true,
      ),
    );
    const address = await listen(http, resolved.port, resolved.host, resolved.listenBacklog);
    const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    const url = `http://${shownHost === '0.0.0.0' ? '127.0.0.1' : shownHost === '[::]' ? '[::1]' : shownHost}:${address.port}`;
    const keys: ServerKey[] = grants.map(({ env, key, access }) => ({
      project: env.project,
      environment: env.environment,
      key,
      access,
    }));

    let closing: Promise<void> | undefined;
    const close = async (): Promise<void> => {
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      hub.close();
      http.closeIdleConnections();
      await dispatcher.close();
      await storage.close();
      const grace = setTimeout(() => http.closeAllConnections(), 1000);
      grace.unref();
      await closed;
      clearTimeout(grace);
    };
    return {
      url,
      port: address.port,
      keys,
      get streamCount() {
        return hub.size;
      },
      close() {
        closing ??= close();
        return closing;
      },
    };
  } catch (error) {
    server?.close();
    await stopDispatcher?.().catch(() => {});
    await storage.close().catch(() => {});
    throw error;
  }
}
