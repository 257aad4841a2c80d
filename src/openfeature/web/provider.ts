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
  type ResolutionDetails,
} from '@openfeature/web-sdk';
import { createClient } from '../../client/create-client.js';
import type { ClientOptions } from '../../client/options.js';
import type { FlagwireClient } from '../../client/types.js';
import { followClient, mismatch, resolutionOf, userOf } from '../follow.js';

export interface FlagwireWebProviderOptions extends ClientOptions {
  /**
   * How long `initialize()` waits for flags before the provider reports an error.
   * @default 10000
   */
  readyTimeoutMs?: number;
}

export class FlagwireWebProvider implements Provider {
  readonly metadata = { name: 'flagwire' } as const;
  readonly runsOn = 'client' as const;
  readonly events = new OpenFeatureEventEmitter();
  readonly hooks = [];
  readonly client: FlagwireClient;
  readonly #owned: boolean;
  readonly #readyTimeoutMs: number;
  #offs: Array<() => void> = [];

  /** From client options (the provider creates and closes the client), or from a client you own. */
  constructor(clientOrOptions: FlagwireClient | FlagwireWebProviderOptions) {
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
      ...followClient(this.client, (event, details) =>
        this.events.emit(event as Parameters<OpenFeatureEventEmitter['emit']>[0], details),
      ),
    );
    await this.client.ready({ timeoutMs: this.#readyTimeoutMs });
  }

  /** Local evaluation: the new context applies to the next resolutions, with nothing to fetch. */
  onContextChange(): void {}

  async onClose(): Promise<void> {
    for (const off of this.#offs.splice(0)) off();
    if (this.#owned) await this.client.close();
  }

  resolveBooleanEvaluation(
    flagKey: string,
    defaultValue: boolean,
    context: EvaluationContext,
  ): ResolutionDetails<boolean> {
    const detail = this.client.isEnabledDetail(flagKey, userOf(context), defaultValue);
    return resolutionOf(detail, defaultValue) as ResolutionDetails<boolean>;
  }

  resolveStringEvaluation(flagKey: string, defaultValue: string): ResolutionDetails<string> {
    return mismatch(flagKey, defaultValue) as ResolutionDetails<string>;
  }

  resolveNumberEvaluation(flagKey: string, defaultValue: number): ResolutionDetails<number> {
    return mismatch(flagKey, defaultValue) as ResolutionDetails<number>;
  }

  resolveObjectEvaluation<T extends JsonValue>(flagKey: string, defaultValue: T): ResolutionDetails<T> {
    return mismatch(flagKey, defaultValue) as ResolutionDetails<T>;
  }
}
