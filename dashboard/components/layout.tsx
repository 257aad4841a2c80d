/** The frame around every signed-in screen: the header and the environment's tabs. */
import { envHref, type Tab } from '../route.js';

export function Header({ onSignOut }: { onSignOut: (() => void) | undefined }) {
  return (
    <header class="top">
      <h1>{onSignOut ? <a href="#/">Flagwire</a> : 'Flagwire'}</h1>
      {onSignOut && (
        <button type="button" class="quiet" onClick={onSignOut}>
          Sign out
        </button>
      )}
    </header>
  );
}

const LINKS: Array<[Tab, string]> = [
  ['flags', 'Flags'],
  ['segments', 'Segments'],
  ['usage', 'Usage'],
  ['history', 'History'],
  ['keys', 'API keys'],
  ['webhooks', 'Webhooks'],
  ['connect', 'Connect'],
];

export function EnvNav({ project, env, tab }: { project: string; env: string; tab: Tab }) {
  return (
    <nav aria-label="Environment" class="env-nav">
      <p class="env-name">
        <a href="#/">Projects</a> <span aria-hidden="true">›</span>{' '}
        <strong>
          {project} / {env}
        </strong>
      </p>
      <ul>
        {LINKS.map(([key, text]) => (
          <li key={key}>
            <a href={envHref(project, env, key)} aria-current={key === tab ? 'page' : undefined}>
              {text}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
