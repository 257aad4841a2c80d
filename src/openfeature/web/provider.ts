/**
 * `FlagwireWebProvider`: an OpenFeature provider for `@openfeature/web-sdk` (browsers, and React
 * through `@openfeature/react-sdk`). It evaluates locally on the Flagwire client, which follows
 * changes over the stream, so a resolution is synchronous, never a request, and a context change
 * needs no round trip: the new `targetingKey` is simply the next evaluations' user key. Events
 * are the server provider's (`../follow.ts`). No `node:` import, no server SDK.
 */
import {
  type EvaluationContext,
  type JsonValue,
  OpenFeatureEventEmitter,
  type Provider,
  ProviderFatalError,
  type ResolutionDetails,
} from '@openfeature/web-sdk';
import type {
  BooleanFlagKey,
  FlagwireClient,
  JsonFlagKey,
  NumberFlagKey,
  StringFlagKey,
} from '../../client/types.js';
import { ProviderClient, type ProviderClientOptions, resolve } from '../follow.js';

/** Options of a provider that creates its own client (`readyTimeoutMs`: 10000 by default). */
export type FlagwireWebProviderOptions = ProviderClientOptions;

export class FlagwireWebProvider implements Provider {
  readonly metadata = { name: 'flagwire' } as const;
  readonly runsOn = 'client' as const;
  readonly events = new OpenFeatureEventEmitter();
  readonly hooks = [];
  readonly client: FlagwireClient;
  readonly #held: ProviderClient;

  /** From client options (the provider creates and closes the client), or from a client you own. */
  constructor(clientOrOptions: FlagwireClient | FlagwireWebProviderOptions) {
    this.#held = new ProviderClient(clientOrOptions);
    this.client = this.#held.client;
  }

  /**
   * Resolves once flags are loaded; a refused key (401/403) rejects with `ProviderFatalError`
   * (status `FATAL`). Events: `docs/protocol.md` §12.7.
   */
  initialize(): Promise<void> {
    return this.#held.start(
      (event, details) => this.events.emit(event as Parameters<OpenFeatureEventEmitter['emit']>[0], details),
      (message, cause) => new ProviderFatalError(message, { cause }),
    );
  }

  /** Local evaluation: the new context applies to the next resolutions, with nothing to fetch. */
  onContextChange(): void {}

  onClose(): Promise<void> {
    return this.#held.stop();
  }

  resolveBooleanEvaluation(
    flagKey: BooleanFlagKey,
    defaultValue: boolean,
    context: EvaluationContext,
  ): ResolutionDetails<boolean> {
    return resolve(this.client, flagKey, defaultValue, context) as ResolutionDetails<boolean>;
  }

  resolveStringEvaluation(
    flagKey: StringFlagKey,
    defaultValue: string,
    context: EvaluationContext,
  ): ResolutionDetails<string> {
    return resolve(this.client, flagKey, defaultValue, context) as ResolutionDetails<string>;
  }

  resolveNumberEvaluation(
    flagKey: NumberFlagKey,
    defaultValue: number,
    context: EvaluationContext,
  ): ResolutionDetails<number> {
    return resolve(this.client, flagKey, defaultValue, context) as ResolutionDetails<number>;
  }

  resolveObjectEvaluation<T extends JsonValue>(
    flagKey: JsonFlagKey,
    defaultValue: T,
    context: EvaluationContext,
  ): ResolutionDetails<T> {
    return resolve(this.client, flagKey, defaultValue, context) as ResolutionDetails<T>;
  }
}
