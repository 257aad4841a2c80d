/**
 * `flagwire/openfeature/web`: an OpenFeature provider for browsers (`@openfeature/web-sdk`, an
 * optional peer dependency), and so for React through `@openfeature/react-sdk`.
 *
 * ```ts
 * import { OpenFeature } from '@openfeature/web-sdk';
 * import { FlagwireWebProvider } from 'flagwire/openfeature/web';
 * await OpenFeature.setContext({ targetingKey: 'user-42' });
 * await OpenFeature.setProviderAndWait(new FlagwireWebProvider({ baseUrl, apiKey: readOnlyKey }));
 * OpenFeature.getClient().getBooleanValue('new-checkout', false);
 * ```
 */

export type { FlagwireWebProviderOptions } from './provider.js';
export { FlagwireWebProvider } from './provider.js';
