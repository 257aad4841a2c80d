/** `#/env/P/E/connect`: how an app reaches this environment, and how many SDKs are connected now. */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { CopyButton } from '../components/copy-button.js';
import { useStreamCounts } from '../events.js';
import type { Overview } from '../types.js';

export function ConnectScreen({ project, env }: { project: string; env: string }) {
  const id = `${project}/${env}`;
  const counts = useStreamCounts();
  // Until the event stream reports counts, the overview's number stands in.
  const [initial, setInitial] = useState<number>();
  useEffect(() => {
    api<Overview>('/admin/api/overview')
      .then((o) => {
        const found = o.projects
          .flatMap((p) => p.environments)
          .find((e) => e.project === project && e.key === env);
        if (found) setInitial(found.streams);
      })
      .catch(() => {});
  }, [project, env]);
  const count = counts[id] ?? initial;
  const origin = location.origin;
  const snippet = `import { createClient } from 'flagwire';

const client = createClient({
  baseUrl: '${origin}/api/v1',
  apiKey: process.env.FLAGWIRE_KEY!, // a key of ${id} (API keys tab); read-only in browsers
});
await client.ready();
client.isEnabled('my-flag', { key: 'user-42' });`;

  return (
    <>
      <h2>Connect your app</h2>
      <p id="stream-count" class="live" aria-live="polite">
        <span data-testid="stream-count">{count ?? '…'}</span> connected SDK{' '}
        {count === 1 ? 'stream' : 'streams'}
      </p>
      <section class="panel" aria-labelledby="connect-snippet">
        <h3 id="connect-snippet">Start a client</h3>
        <p>
          Install the SDK with <code>npm install flagwire</code>, create an API key for {id} in the API keys
          tab, and start a client:
        </p>
        <pre>
          <code>{snippet}</code>
        </pre>
        <CopyButton label="Copy snippet" text={snippet} />
      </section>
      <section class="panel" aria-labelledby="connect-endpoints">
        <h3 id="connect-endpoints">SDK endpoints</h3>
        <p>Any HTTP client can read the flags with an API key as a bearer token:</p>
        <ul>
          <li>
            Flags snapshot: <code>{origin}/sdk/flags</code>
          </li>
          <li>
            Live updates (server-sent events): <code>{origin}/sdk/events</code>
          </li>
        </ul>
      </section>
    </>
  );
}
