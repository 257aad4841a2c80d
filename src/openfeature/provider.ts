/**
 * `FlagwireProvider`: an OpenFeature provider for `@openfeature/server-sdk` on the Flagwire
 * client. Every type resolves through the client's `getDetail`, decided locally, with the
 * context's `targetingKey` as the user key and its other attributes as attributes; Flagwire
 * reasons map onto OpenFeature's (`docs/protocol.md` §12.7); a flag of another type resolves to
 * the default with `TYPE_MISMATCH`; a served `null` stays `null`. Client events become provider
 * events; a refused key is `PROVIDER_FATAL` (`./follow.ts`). With `FlagwireFlags`
 * augmented, each `resolve...Evaluation` takes only the keys of flags of its type; OpenFeature's own
 * client takes any string (typed accessors for it: the OpenFeature CLI, `docs/protocol.md` §11.5).
 */
import {
  type EvaluationContext,
  type JsonValue,
  OpenFeatureEventEmitter,
  type Provider,
  type ProviderEvents,
  ProviderFatalError,
  type ResolutionDetails,
} from '@openfeature/server-sdk';
import type {
  BooleanFlagKey,
  EvaluationDetail,
  FlagwireClient,
  JsonFlagKey,
  NumberFlagKey,
  StringFlagKey,
} from '../client/types.js';
import { ProviderClient, type ProviderClientOptions, resolutionOf, resolve } from './follow.js';

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

  /**
   * Resolves once flags are loaded; a refused key (401/403) rejects with `ProviderFatalError`
   * (status `FATAL`). Events: `docs/protocol.md` §12.7.
   */
  initialize(): Promise<void> {
    return this.#held.start(
      (event, details) => this.events.emit(event as ProviderEvents, details),
      (message, cause) => new ProviderFatalError(message, { cause }),
    );
  }

  onClose(): Promise<void> {
    return this.#held.stop();
  }

  async resolveBooleanEvaluation(
    flagKey: BooleanFlagKey,
    defaultValue: boolean,
    context: EvaluationContext,
  ): Promise<ResolutionDetails<boolean>> {
    return resolve(this.client, flagKey, defaultValue, context) as ResolutionDetails<boolean>;
  }

  async resolveStringEvaluation(
    flagKey: StringFlagKey,
    defaultValue: string,
    context: EvaluationContext,
  ): Promise<ResolutionDetails<string>> {
    return resolve(this.client, flagKey, defaultValue, context) as ResolutionDetails<string>;
  }

  async resolveNumberEvaluation(
    flagKey: NumberFlagKey,
    defaultValue: number,
    context: EvaluationContext,
  ): Promise<ResolutionDetails<number>> {
    return resolve(this.client, flagKey, defaultValue, context) as ResolutionDetails<number>;
  }

  async resolveObjectEvaluation<T extends JsonValue>(
    flagKey: JsonFlagKey,
    defaultValue: T,
    context: EvaluationContext,
  ): Promise<ResolutionDetails<T>> {
    return resolve(this.client, flagKey, defaultValue, context) as ResolutionDetails<T>;
  }
}
