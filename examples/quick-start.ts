/**
 * Quick start: load the flags, follow changes, evaluate locally.
 *
 * quickStart({ baseUrl: 'http://127.0.0.1:8787/api/v1', apiKey: process.env.FLAGWIRE_KEY! });
 */
import { createClient } from 'flagwire';

export async function quickStart(options: { baseUrl: string; apiKey: string }): Promise<boolean> {
  const client = createClient(options);
  await client.ready({ timeoutMs: 5000 });

  client.on('change', ({ key, after }) => console.log(`${key} is now ${after?.enabled ? 'on' : 'off'}`));
  const enabled = client.isEnabled('new-checkout', { key: 'user-42', plan: 'pro' });
  const { reason, bucket } = client.isEnabledDetail('new-checkout', { key: 'user-42' });
  console.log(`new-checkout for user-42: ${enabled} (${reason}${bucket ? `, bucket ${bucket}` : ''})`);

  await client.close();
  return enabled;
}
