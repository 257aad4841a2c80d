/**
 * A browser page that follows a flag live: bundle it (esbuild, Vite, ...) and use a
 * read-only key. The SDK sends the key in the `Authorization` header over `fetch`, which a
 * browser's native EventSource cannot do.
 *
 * followFlag({ baseUrl, apiKey: READ_ONLY_KEY, flagKey: 'new-checkout', user: 'user-42',
 *   render: (on) => { document.body.dataset.checkout = on ? 'new' : 'old'; } });
 */
import { createClient, type FlagwireClient, type User } from 'flagwire';

export interface FollowFlagOptions {
  baseUrl: string;
  apiKey: string;
  flagKey: string;
  user: User;
  /** Called with the flag's value once loaded, then on every change. */
  render: (enabled: boolean) => void;
}

export async function followFlag(options: FollowFlagOptions): Promise<FlagwireClient> {
  const client = createClient({ baseUrl: options.baseUrl, apiKey: options.apiKey });
  client.on(`change:${options.flagKey}`, () =>
    options.render(client.isEnabled(options.flagKey, options.user)),
  );
  await client.ready({ timeoutMs: 10_000 });
  options.render(client.isEnabled(options.flagKey, options.user));
  return client;
}
