/**
 * `FlagwireProvider`: an OpenFeature provider for `@openfeature/server-sdk` on the Flagwire
 * client. Booleans map onto `isEnabledDetail` with the context's `targetingKey` as the user
 * key; Flagwire reasons map onto OpenFeature's; flags are booleans, so other types resolve to
 * the default with `TYPE_MISMATCH`. Client events become provider events.
 */
import {
  ErrorCode,
  type EvaluationContext,
  type JsonValue,
  OpenFeatureEventEmitter,
  type Provider,
  ProviderEvents,
  type ResolutionDetails,
  StandardResolutionReasons,
} from '@openfeature/server-sdk';
import { createClient } from '../client/create-client.js';
import type { ClientOptions } from '../client/options.js';
import type { EvaluationDetail, FlagwireClient, User } from '../client/types.js';
import { openFeatureOutcome } from './outcome.js';

export interface FlagwireProviderOptions extends ClientOptions {
  /**
   * How long `initialize()` waits for flags before the provider reports an error.
   * @default 10000
   */
  readyTimeoutMs?: number;
}

function userOf(context: EvaluationContext): User {
  const { targetingKey, ...attributes } = context;
  return { ...attributes, key: typeof targetingKey === 'string' ? targetingKey : undefined };
}

/** Flagwire's evaluation outcome in OpenFeature's vocabulary (`./outcome.ts`). */
export function toResolution(detail: EvaluationDetail, defaultValue: boolean): ResolutionDetails<boolean> {
  const outcome = openFeatureOutcome(detail);
  const resolution: ResolutionDetails<boolean> = {
    value: outcome.value ?? defaultValue,
    reason: outcome.reason,
    flagMetadata: outcome.metadata,
  };
  if (outcome.variant) resolution.variant = outcome.variant;
  if (outcome.errorCode) resolution.errorCode = outcome.errorCode as ErrorCode;
  if (outcome.errorMessage) resolution.errorMessage = outcome.errorMessage;
  return resolution;
}

const mismatch = <T>(flagKey: string, defaultValue: T): ResolutionDetails<T> => ({
  value: defaultValue,
  reason: StandardResolutionReasons.ERROR,
  errorCode: ErrorCode.TYPE_MISMATCH,
  errorMessage: `flag ${JSON.stringify(flagKey)} is a boolean flag; Flagwire flags resolve only as booleans`,
});

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
    let wasStale = false;
    this.#offs.push(
      this.client.on('change', (change) =>
        this.events.emit(ProviderEvents.ConfigurationChanged, { flagsChanged: [change.key] }),
      ),
      this.client.on('status', (status) => {
        if (status.state === 'failed') {
          this.events.emit(ProviderEvents.Error, {
            message: status.lastError?.message ?? 'the client failed',
          });
        } else if (status.state === 'stale' || status.state === 'reconnecting') {
          wasStale = true;
          this.events.emit(ProviderEvents.Stale, { message: `flagwire client ${status.state}` });
        } else if (status.state === 'connected' && wasStale) {
          wasStale = false;
          this.events.emit(ProviderEvents.Ready);
        }
      }),
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
    return mismatch(flagKey, defaultValue);
  }

  async resolveNumberEvaluation(flagKey: string, defaultValue: number): Promise<ResolutionDetails<number>> {
    return mismatch(flagKey, defaultValue);
  }

  async resolveObjectEvaluation<T extends JsonValue>(
    flagKey: string,
    defaultValue: T,
  ): Promise<ResolutionDetails<T>> {
    return mismatch(flagKey, defaultValue);
  }
}
