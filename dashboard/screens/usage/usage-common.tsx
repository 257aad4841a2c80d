/**
 * What the usage screens share (`docs/protocol.md` §13.7 through the admin API, §10.3): a read
 * that tells "usage is off" (`null`: the server's `404` says `usage: false`) from other failures
 * (an unknown environment's `404` keeps its own words), a refresh on flag changes and every 30 s
 * (reports raise no event), and the sub-navigation between the apps and the stale flags.
 */
import { useEffect, useRef } from 'preact/hooks';
import { envApi } from '../../api.js';
import { EmptyState } from '../../components/page-parts.js';
import { useEnvChanges } from '../../events.js';
import { envHref } from '../../route.js';
import { usageRead } from '../../usage/api.js';
import './usage.css';

/** Loads `/usage/<path>` of the environment; `null` when the server keeps no usage. */
export function usageLoad<T>(project: string, env: string, path: string): () => Promise<T | null> {
  return () => usageRead<T>(envApi(project, env, 'usage', path), true);
}

/** Reloads after a flag of the environment changes (revisions move) and every 30 s while shown. */
export function useUsageRefresh(project: string, env: string, reload: () => void): void {
  const ref = useRef(reload);
  ref.current = reload;
  useEnvChanges(`${project}/${env}`, reload);
  useEffect(() => {
    const timer = setInterval(() => document.hidden || ref.current(), 30_000);
    return () => clearInterval(timer);
  }, []);
}

/** The heading and the links between the usage screens. */
export function UsageHeader({ project, env, stale }: { project: string; env: string; stale: boolean }) {
  const link = (on: boolean, href: string, text: string) => (
    <li>
      <a href={href} aria-current={on ? 'page' : undefined}>
        {text}
      </a>
    </li>
  );
  return (
    <>
      <h2>Usage</h2>
      <nav aria-label="Usage" class="usage-nav">
        <ul>
          {link(!stale, envHref(project, env, 'usage'), 'Apps and SDKs')}
          {link(stale, envHref(project, env, 'usage', 'stale'), 'Stale flags')}
        </ul>
      </nav>
    </>
  );
}

/** Said instead of the screen when the server keeps no usage. */
export function UsageOff() {
  return (
    <EmptyState text="Usage is off on this server: it was started with --no-usage (or usage: false), so SDK reports are refused and nothing is kept. Start it without that option to see which apps evaluate which flags, and which flags are stale." />
  );
}
