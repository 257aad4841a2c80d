/** `#/env/P/E/connect`: how an app reaches this environment, and how many SDKs are connected now. */
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { api, envApi } from '../api.js';
import { CopyButton } from '../components/copy-button.js';
import { useEnvChanges, useStreamCounts } from '../events.js';
import { useResource } from '../resource.js';
import { envHref } from '../route.js';
import type { Flag, Overview } from '../types.js';
import { type SnippetFlag, type Snippets, snippetFlag, snippets } from './connect-snippets.js';

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
  const flagsPath = envApi(project, env, 'flags');
  const flags = useResource(() => api<Flag[]>(flagsPath), flagsPath);
  useEnvChanges(id, flags.reload);
  const count = counts[id] ?? initial;
  const origin = location.origin;
  // Without the list (still loading, or refused) the snippet waits; a failure falls back to the placeholder.
  const named: SnippetFlag | undefined = flags.data
    ? snippetFlag(flags.data)
    : flags.error
      ? snippetFlag([])
      : undefined;

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
          Install the SDK with <code>npm install flagwire</code>, create an API key for <bdi>{id}</bdi> in the{' '}
          <a href={envHref(project, env, 'keys')}>API keys tab</a>, and start a client. Pass the key in the{' '}
          <code>FLAGWIRE_KEY</code> environment variable.
        </p>
        {!named ? (
          <p>Loading…</p>
        ) : (
          <>
            <p class="snippet-flag">
              {named.placeholder ? (
                <>
                  {flags.error ? 'The flags could not be loaded' : 'This environment has no flags yet'}, so
                  the snippet names <code>{named.key}</code>, a placeholder:{' '}
                  <a href={envHref(project, env, 'flags')}>create a flag</a> and it names yours.
                </>
              ) : (
                <>
                  The snippet reads the flag <code>{named.key}</code> of <bdi>{id}</bdi> for the user{' '}
                  <code>user-42</code> and prints its value.
                </>
              )}
            </p>
            <SnippetTabs code={snippets(origin, id, named)} />
          </>
        )}
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

const LANGUAGES = [
  { lang: 'javascript', label: 'JavaScript' },
  { lang: 'typescript', label: 'TypeScript' },
] as const;
type Lang = (typeof LANGUAGES)[number]['lang'];

/**
 * The snippet in tabs (WAI-ARIA tabs pattern, automatic activation): one tab stop, Left/Right
 * move between tabs, Home/End go to the first and last.
 */
function SnippetTabs({ code }: { code: Snippets }) {
  const id = useId();
  const [selected, setSelected] = useState<Lang>('javascript');
  const tabs = useRef<Partial<Record<Lang, HTMLButtonElement | null>>>({});
  const select = (index: number) => {
    const n = LANGUAGES.length;
    const next = LANGUAGES[((index % n) + n) % n]!.lang;
    setSelected(next);
    tabs.current[next]?.focus();
  };
  const onKeyDown = (e: KeyboardEvent, index: number) => {
    const to =
      e.key === 'ArrowRight'
        ? index + 1
        : e.key === 'ArrowLeft'
          ? index - 1
          : e.key === 'Home'
            ? 0
            : e.key === 'End'
              ? LANGUAGES.length - 1
              : undefined;
    if (to === undefined) return;
    e.preventDefault();
    select(to);
  };
  return (
    <div class="snippet-tabs">
      <div role="tablist" aria-label="Snippet language" class="tablist">
        {LANGUAGES.map(({ lang, label }, index) => (
          <button
            key={lang}
            ref={(el) => {
              tabs.current[lang] = el;
            }}
            type="button"
            role="tab"
            id={`${id}-${lang}-tab`}
            aria-selected={selected === lang ? 'true' : 'false'}
            aria-controls={`${id}-${lang}`}
            tabIndex={selected === lang ? 0 : -1}
            onClick={() => setSelected(lang)}
            onKeyDown={(e) => onKeyDown(e, index)}
          >
            {label}
          </button>
        ))}
      </div>
      {LANGUAGES.map(({ lang, label }) => (
        <div
          key={lang}
          role="tabpanel"
          id={`${id}-${lang}`}
          aria-labelledby={`${id}-${lang}-tab`}
          hidden={selected !== lang}
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a tab panel that starts with no focusable element is a tab stop (WAI-ARIA tabs pattern)
          tabIndex={0}
          class="tabpanel"
        >
          <pre class="snippet">
            <code>{code[lang]}</code>
          </pre>
          <CopyButton label={`Copy ${label} snippet`} text={code[lang]} />
        </div>
      ))}
    </div>
  );
}
