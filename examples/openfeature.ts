/**
 * Flagwire behind the OpenFeature API.
 *
 * openFeatureExample({ baseUrl: 'http://127.0.0.1:8787/api/v1', apiKey: process.env.FLAGWIRE_KEY! });
 */
import { OpenFeature } from '@openfeature/server-sdk';
import { FlagwireProvider } from 'flagwire/openfeature';

export async function openFeatureExample(options: { baseUrl: string; apiKey: string }): Promise<boolean> {
  await OpenFeature.setProviderAndWait(new FlagwireProvider(options));
  const client = OpenFeature.getClient();
  const details = await client.getBooleanDetails('new-checkout', false, { targetingKey: 'user-42' });
  console.log(`new-checkout: ${details.value} (${details.reason})`);
  await OpenFeature.close();
  return details.value;
}
