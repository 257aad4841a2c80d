/**
 * `flagwire/server`: the reference server, Node only.
 *
 * ```ts
 * import { startServer } from 'flagwire/server';
 * const server = await startServer({ port: 0, config });
 * // ... server.url, server.keys
 * await server.close();
 * ```
 */

export type { ConfigApiKey, ConfigEnvironment, ConfigFlag, ConfigProject, FlagwireConfig } from './config.js';
export { ConfigError, parseConfig } from './config.js';
export type { Logger } from './logger.js';
export type { OidcServerOptions, StartServerOptions } from './options.js';
export type { FlagwireServer, ServerKey } from './start-server.js';
export { DEFAULT_ENVIRONMENT, DEFAULT_PROJECT, startServer } from './start-server.js';
export type { Access } from './state/kernel/model.js';
