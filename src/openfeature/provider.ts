/**
 * `FlagwireProvider`: an OpenFeature provider for `@openfeature/server-sdk` on the Flagwire
 * client. Booleans map onto `isEnabledDetail` with the context's `targetingKey` as the user
 * key; Flagwire reasons map onto OpenFeature's; flags are booleans, so other types resolve to
 * the default with `TYPE_MISMATCH`. Client events become provider events.
 */
import {
  type EvaluationContext,
  type JsonValue,
  OpenFeatureEventEmitter,
  type Provider,
  type ProviderEvents,
  type ResolutionDetails,
} from '@openfeature/server-sdk';
import { createClient } from '../client/create-client.js';
import type { ClientOptions } from '../client/options.js';
import type { EvaluationDetail, FlagwireClient } from '../client/types.js';
import { followClient, mismatch, resolutionOf, userOf } from './follow.js';

export interface FlagwireProviderOptions extends ClientOptions {
  /**
   * How long `initialize()` waits for flags before the provider reports an error.
   * @default 10000
   */
  readyTimeoutMs?: number;
}

/** Flagwire's evaluation outcome in OpenFeature's vocabulary (`./outcome.ts`). */
export function toResolution(detail: EvaluationDetail, defaultValue: boolean): ResolutionDetails<boolean> {
  return resolutionOf(detail, defaultValue) as ResolutionDetails<boolean>;
}

export class FlagwireProvider implements Provider {
  readonly metadata = { name: 'flagwire' } as const;
  readonly runsOn = 'server' as const;
  readonly events = new OpenFeatureEventEmitter();
  readonly hooks = [];
  readonly client: FlagwireClient;
  readonly #owned: boolean;
  readonly #readyTimeoutMs: number;
  #offs: Array<() => void> = [];

  /** From client options (the provider creates and closes the client), or from a client you own. */
  constructor(clientOrOptions: FlagwireClient | FlagwireProviderOptions) {
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

  async initialize(): Promise<void> {
    this.#offs.push(
      ...followClient(this.client, (event, details) => this.events.emit(event as ProviderEvents, details)),
    );
    await this.client.ready({ timeoutMs: this.#readyTimeoutMs });
  }

  async onClose(): Promise<void> {
    for (const off of this.#offs.splice(0)) off();
    if (this.#owned) await this.client.close();
  }

  async resolveBooleanEvaluation(
    flagKey: string,
    defaultValue: boolean,
    context: EvaluationContext,
  ): Promise<ResolutionDetails<boolean>> {
    return toResolution(this.client.isEnabledDetail(flagKey, userOf(context), defaultValue), defaultValue);
  }

  async resolveStringEvaluation(flagKey: string, defaultValue: string): Promise<ResolutionDetails<string>> {
    return mismatch(flagKey, defaultValue) as ResolutionDetails<typeof defaultValue>;
  }

  async resolveNumberEvaluation(flagKey: string, defaultValue: number): Promise<ResolutionDetails<number>> {
    return mismatch(flagKey, defaultValue) as ResolutionDetails<typeof defaultValue>;
  }

  async resolveObjectEvaluation<T extends JsonValue>(
    flagKey: string,
    defaultValue: T,
  ): Promise<ResolutionDetails<T>> {
    return mismatch(flagKey, defaultValue) as ResolutionDetails<typeof defaultValue>;
  }
}
