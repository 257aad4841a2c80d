/**
 * What the server and the web provider share, with no OpenFeature package imported (so the web
 * provider's bundle carries no server SDK): the user of an evaluation context, the resolution of
 * an evaluation of any type (`../core/openfeature-outcome.ts`), and the client's events as
 * provider events.
 */
import { createClient } from '../client/create-client.js';
import type { ClientOptions } from '../client/options.js';
import type { FlagDetail, FlagwireClient, User } from '../client/types.js';
import { openFeatureOutcome } from '../core/openfeature-outcome.js';
import type { JsonValue } from '../core/targeting/types.js';

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
    value: outcome.value ?? defaultValue,
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

/**
 * Turns the client's events into provider events: a change → CONFIGURATION_CHANGED with the
 * key, a dropped stream → STALE, back → READY, a fatal failure → ERROR. Returns the unsubscribers.
 */
export function followClient(
  client: FlagwireClient,
  emit: (event: ProviderEventName, details?: { message?: string; flagsChanged?: string[] }) => void,
): Array<() => void> {
  let wasStale = false;
  return [
    client.on('change', (change) => emit('PROVIDER_CONFIGURATION_CHANGED', { flagsChanged: [change.key] })),
    client.on('status', (status) => {
      if (status.state === 'failed') {
        emit('PROVIDER_ERROR', { message: status.lastError?.message ?? 'the client failed' });
      } else if (status.state === 'stale' || status.state === 'reconnecting') {
        wasStale = true;
        emit('PROVIDER_STALE', { message: `flagwire client ${status.state}` });
      } else if (status.state === 'connected' && wasStale) {
        wasStale = false;
        emit('PROVIDER_READY');
      }
    }),
  ];
}

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

  async start(emit: Parameters<typeof followClient>[1]): Promise<void> {
    this.#offs.push(...followClient(this.client, emit));
    await this.client.ready({ timeoutMs: this.#readyTimeoutMs });
  }

  async stop(): Promise<void> {
    for (const off of this.#offs.splice(0)) off();
    if (this.#owned) await this.client.close();
  }
}
