/**
 * `flagwire/openfeature`: an OpenFeature provider (`@openfeature/server-sdk`, an optional peer
 * dependency).
 *
 * ```ts
 * import { OpenFeature } from '@openfeature/server-sdk';
 * import { FlagwireProvider } from 'flagwire/openfeature';
 * await OpenFeature.setProviderAndWait(new FlagwireProvider({ baseUrl, apiKey }));
 * await OpenFeature.getClient().getBooleanValue('new-checkout', false, { targetingKey: 'user-42' });
 * ```
 */

export type { FlagwireProviderOptions } from './provider.js';
export { FlagwireProvider, toResolution } from './provider.js';
