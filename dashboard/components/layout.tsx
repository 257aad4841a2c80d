/** The frame around every signed-in screen: the header and the environment's tabs. */
import { can } from '../roles.js';
import { envHref, type Tab } from '../route.js';
import type { SessionAnswer } from '../types.js';

interface HeaderProps {
  /** Who is signed in; `undefined` before anyone is. */
  session: SessionAnswer | undefined;
  onSignOut: (() => void) | undefined;
}

/**
 * The title, and once signed in who is (the person's name, or "Admin token") with what they may
 * open: Members and Audit (admins), their Profile, Sign out.
 */
export function Header({ session, onSignOut }: HeaderProps) {
  const signedIn = session !== undefined && onSignOut !== undefined;
  return (
    <header class="top">
      <h1>{signedIn ? <a href="#/">Flagwire</a> : 'Flagwire'}</h1>
      {signedIn && (
        <nav aria-label="Account" class="account">
          <span class="account-who">
            <span class="who-name">{session.user ? session.user.name : 'Admin token'}</span>
            {session.user && <span class="badge">{session.user.role}</span>}
          </span>
          <ul>
            {can(session, undefined, 'admin') && (
              <>
                <li>
                  <a href="#/members">Members</a>
                </li>
                <li>
                  <a href="#/audit">Audit</a>
                </li>
              </>
            )}
            <li>
              <a href="#/profile">Profile</a>
            </li>
            <li>
              <button type="button" class="quiet" onClick={onSignOut}>
                Sign out
              </button>
            </li>
          </ul>
        </nav>
      )}
    </header>
  );
}

const LINKS: Array<[Tab, string]> = [
  ['flags', 'Flags'],
  ['segments', 'Segments'],
  ['usage', 'Usage'],
  ['history', 'History'],
  ['changes', 'Changes'],
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
