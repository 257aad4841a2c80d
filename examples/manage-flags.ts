/**
 * A management script: create a rollout, widen it, and register a webhook.
 *
 * manageFlags({ baseUrl: 'http://127.0.0.1:8787/api/v1', apiKey: process.env.FLAGWIRE_FULL_KEY! });
 */
import { createManagementClient, isFlagwireError } from 'flagwire';

export async function manageFlags(options: { baseUrl: string; apiKey: string; webhookUrl?: string }) {
  const admin = createManagementClient(options);
  try {
    await admin.flags.create({
      key: 'new-checkout',
      type: 'rollout',
      percentage: 10,
      description: 'the new checkout',
    });
  } catch (error) {
    if (!isFlagwireError(error) || error.code !== 'CONFLICT') throw error; // already there: fine
  }
  const flag = await admin.flags.update('new-checkout', { enabled: true, percentage: 25 });
  const webhook = options.webhookUrl
    ? await admin.webhooks.create({ url: options.webhookUrl, events: ['flag.enabled', 'flag.disabled'] })
    : undefined;
  return { flag, webhookSecret: webhook?.secret };
}
