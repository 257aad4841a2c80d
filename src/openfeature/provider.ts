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
import type { EvaluationDetail, FlagwireClient } from '../client/types.js';
import { mismatch, ProviderClient, type ProviderClientOptions, resolutionOf, userOf } from './follow.js';

/** Options of a provider that creates its own client (`readyTimeoutMs`: 10000 by default). */
export type FlagwireProviderOptions = ProviderClientOptions;

/** Flagwire's evaluation outcome in OpenFeature's vocabulary (`../core/openfeature-outcome.ts`). */
export function toResolution(detail: EvaluationDetail, defaultValue: boolean): ResolutionDetails<boolean> {
  return resolutionOf(detail, defaultValue) as ResolutionDetails<boolean>;
}

export class FlagwireProvider implements Provider {
  readonly metadata = { name: 'flagwire' } as const;
  readonly runsOn = 'server' as const;
  readonly events = new OpenFeatureEventEmitter();
  readonly hooks = [];
  readonly client: FlagwireClient;
  readonly #held: ProviderClient;

  /** From client options (the provider creates and closes the client), or from a client you own. */
  constructor(clientOrOptions: FlagwireClient | FlagwireProviderOptions) {
    this.#held = new ProviderClient(clientOrOptions);
    this.client = this.#held.client;
  }

  initialize(): Promise<void> {
    return this.#held.start((event, details) => this.events.emit(event as ProviderEvents, details));
  }

  onClose(): Promise<void> {
    return this.#held.stop();
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
