/**
 * What the server and the web provider share, with no OpenFeature package imported (so the web
 * provider's bundle carries no server SDK): the user of an evaluation context, the resolution of
 * an evaluation of any type (`../core/openfeature-outcome.ts`), and the provider's lifecycle:
 * `initialize()` and the client's events as provider events (`docs/protocol.md` §12.7).
 */
import { createClient } from '../client/create-client.js';
import type { ClientOptions } from '../client/options.js';
import type { FlagDetail, FlagwireClient, User } from '../client/types.js';
import { openFeatureOutcome } from '../core/openfeature-outcome.js';
import type { JsonValue } from '../core/targeting/types.js';
import { type FlagwireError, isFlagwireError } from '../errors.js';

/** An evaluation context's `targetingKey` as the user key, its other attributes as attributes. */
export function userOf(context: Readonly<Record<string, unknown>> | undefined): User {
  const { targetingKey, ...attributes } = context ?? {};
  return { ...attributes, key: typeof targetingKey === 'string' ? targetingKey : undefined };
}

/** OpenFeature's `ResolutionDetails`, structurally (both SDKs' types accept it). */
export interface Resolution<T> {
  value: T;
  reason: string;
  variant?: string;
  errorCode?: string;
  errorMessage?: string;
  flagMetadata: Record<string, string | number>;
}

export function resolutionOf<T>(detail: FlagDetail<T>, defaultValue: T): Resolution<T> {
  const outcome = openFeatureOutcome(detail);
  const resolution: Resolution<T> = {
    // Absent on an error only: a served `null` is the flag's value (spec 2.2.3).
    value: outcome.value === undefined ? defaultValue : outcome.value,
    reason: outcome.reason,
    flagMetadata: outcome.metadata,
  };
  if (outcome.variant) resolution.variant = outcome.variant;
  if (outcome.errorCode) resolution.errorCode = outcome.errorCode;
  if (outcome.errorMessage) resolution.errorMessage = outcome.errorMessage;
  return resolution;
}

/**
 * How both providers resolve a flag of any type: the client's `getDetail` (the context's
 * `targetingKey` as the user key, its other attributes as attributes) in OpenFeature's terms.
 */
export function resolve<T extends JsonValue>(
  client: FlagwireClient,
  flagKey: string,
  defaultValue: T,
  context: Readonly<Record<string, unknown>> | undefined,
): Resolution<T> {
  return resolutionOf(client.getDetail<T>(flagKey, userOf(context), defaultValue), defaultValue);
}

/** Provider event names; the same strings in the server and the web SDK. */
export type ProviderEventName =
  | 'PROVIDER_READY'
  | 'PROVIDER_ERROR'
  | 'PROVIDER_STALE'
  | 'PROVIDER_CONFIGURATION_CHANGED';

/** OpenFeature's `EventDetails`, structurally: what a provider event carries. */
export type ProviderEventDetails = {
  message?: string;
  /** On every `PROVIDER_ERROR` (spec 5.1.5); the SDK reads `PROVIDER_FATAL` as status `FATAL`. */
  errorCode?: string;
  flagsChanged?: string[];
};

/** How a provider emits on its own `OpenFeatureEventEmitter`. */
export type EmitProviderEvent = (event: ProviderEventName, details?: ProviderEventDetails) => void;

/** Whether `error` is the key refused (401/403): the client has stopped for good. */
const isRefusal = (error: unknown): error is FlagwireError =>
  isFlagwireError(error) && (error.status === 401 || error.status === 403);

/** What a refused key means, then the request that said so (no key in it). */
const refusalMessage = (error: FlagwireError): string =>
  `the server refused the API key (${error.status}): unknown, revoked or without access; stopped: ${error.message}`;

/** Options of a provider that creates its own client: the client's, and how long to wait for it. */
export interface ProviderClientOptions extends ClientOptions {
  /**
   * How long `initialize()` waits for flags before the provider reports an error.
   * @default 10000
   */
  readyTimeoutMs?: number;
}

/**
 * The client of a provider: made from options (then the provider owns and closes it) or given;
 * `start` follows it and waits until it is ready, `stop` lets it go.
 */
export class ProviderClient {
  readonly client: FlagwireClient;
  readonly #owned: boolean;
  readonly #readyTimeoutMs: number;
  #offs: Array<() => void> = [];

  constructor(clientOrOptions: FlagwireClient | ProviderClientOptions) {
    if ('isEnabled' in clientOrOptions) {
      this.client = clientOrOptions;
      this.#owned = false;
      this.#readyTimeoutMs = 10_000;
    } else {
      const { readyTimeoutMs, ...options } = clientOrOptions;
      this.client = createClient(options);
      this.#owned = true;
      this.#readyTimeoutMs = readyTimeoutMs ?? 10_000;
    }
  }

  /**
   * `initialize()`: resolves once flags are loaded; a refused key rejects with `fatal(...)`, the
   * SDK's `ProviderFatalError` (status `FATAL`, spec 1.7.5), anything else with the client's error.
   * Until it settles the provider emits nothing: the SDK emits `READY` or the one `ERROR` of the
   * failed initialize (spec 2.8.1), and the flags of the first load are no change. Then the
   * client's events become provider events: a change → `CONFIGURATION_CHANGED` with the key; a
   * dropped or stale stream → `STALE`, back → `READY`; flags loaded after a failed initialize →
   * `READY`; the key refused (revoked, say) → `ERROR` with `PROVIDER_FATAL`, once: the client has
   * stopped. Connection errors the client retries are no `ERROR`: `STALE` says them.
   */
  async start(
    emit: EmitProviderEvent,
    fatal: (message: string, cause: FlagwireError) => Error,
  ): Promise<void> {
    const { client } = this;
    let settled = false;
    let stale = false;
    this.#offs.push(
      client.on('change', (change) => {
        if (settled) emit('PROVIDER_CONFIGURATION_CHANGED', { flagsChanged: [change.key] });
      }),
      client.on('ready', () => {
        if (settled) emit('PROVIDER_READY');
      }),
      // `error` comes after the `failed` status, with the refusal itself.
      client.on('error', (error) => {
        if (settled && isRefusal(error))
          emit('PROVIDER_ERROR', { errorCode: 'PROVIDER_FATAL', message: refusalMessage(error) });
      }),
      client.on('status', ({ state }) => {
        if (!settled) return;
        if (state === 'stale' || state === 'reconnecting') {
          stale = true;
          emit('PROVIDER_STALE', { message: `flagwire client ${state}` });
        } else if (state === 'connected' && stale) {
          stale = false;
          emit('PROVIDER_READY');
        }
      }),
    );
    try {
      await client.ready({ timeoutMs: this.#readyTimeoutMs });
    } catch (error) {
      throw isRefusal(error) ? fatal(refusalMessage(error), error) : error;
    } finally {
      settled = true;
    }
  }

  async stop(): Promise<void> {
    for (const off of this.#offs.splice(0)) off();
    if (this.#owned) await this.client.close();
  }
}
