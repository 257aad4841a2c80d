/**
 * Hash routes: `#/`, `#/env/PROJECT/ENV/TAB`, `#/env/P/E/flags/FLAG` (a flag's page),
 * `#/env/P/E/segments/SEGMENT` (a segment's page), `#/env/P/E/history/FLAG` (one flag's history,
 * `segment:KEY` for a segment's), `#/env/P/E/new-flag` (a flag with variants),
 * `#/env/P/E/new-flag/KEY` (a flag of any type, its key filled in: a key SDKs evaluated that is
 * not a flag), `#/env/P/E/usage/stale` (the stale flags, beside the apps of `#/env/P/E/usage`) and
 * `#/env/P/E/changes[/ID]` (change requests, or one);
 * `#/members` (people, for admins), `#/audit` (every change across projects, for admins) and
 * `#/profile` (one's own password, tokens and sessions).
 */
import { useEffect, useState } from 'preact/hooks';

export const TABS = [
  'flags',
  'segments',
  'usage',
  'history',
  'changes',
  'keys',
  'webhooks',
  'connect',
] as const;
export type Tab = (typeof TABS)[number];

/** Tabs whose page may name one item (a flag, a segment) after the tab. */
const WITH_ITEM: readonly Tab[] = ['flags', 'segments', 'history', 'usage', 'changes'];

export type Route =
  | {
      name: 'env';
      project: string;
      env: string;
      tab: Tab;
      /** The flag (or segment) the page is about. */
      flag: string | undefined;
      /** The page that creates a flag with variants (under the flags tab). */
      creating?: true;
      /** The key that page starts with (`#/env/P/E/new-flag/KEY`). */
      newKey?: string;
    }
  | { name: 'overview' }
  /** `#/members`: people and their roles (admins). */
  | { name: 'members' }
  /** `#/audit`: every change across projects (admins). */
  | { name: 'audit' }
  /** `#/profile`: one's password, personal tokens and sessions. */
  | { name: 'profile' }
  | { name: 'not-found' };

function decode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

export function parseHash(hash: string): Route {
  const path = hash.replace(/^#\/?/, '').replace(/\/$/, '');
  // `#token=...` and `#invite=...` are sign-in fragments, removed as soon as they are read.
  if (path === '' || path.startsWith('token=') || path.startsWith('invite=')) return { name: 'overview' };
  if (path === 'members') return { name: 'members' };
  if (path === 'audit') return { name: 'audit' };
  if (path === 'profile') return { name: 'profile' };
  const parts = path.split('/').map(decode);
  const [head, project, env, tab, flag, ...rest] = parts;
  if (head !== 'env' || !project || !env || rest.length > 0) return { name: 'not-found' };
  if (tab === undefined || parts.length === 3)
    return { name: 'env', project, env, tab: 'flags', flag: undefined };
  if (tab === 'new-flag') {
    const creating = { name: 'env', project, env, tab: 'flags', flag: undefined, creating: true } as const;
    if (parts.length === 4) return creating;
    // A key that does not decode, or an empty one, is no address of this page.
    return flag ? { ...creating, newKey: flag } : { name: 'not-found' };
  }
  if (!(TABS as readonly string[]).includes(tab)) return { name: 'not-found' };
  if (flag !== undefined && (!WITH_ITEM.includes(tab as Tab) || flag === '')) return { name: 'not-found' };
  if (tab === 'usage' && flag !== undefined && flag !== 'stale') return { name: 'not-found' };
  return { name: 'env', project, env, tab: tab as Tab, flag };
}

/** `#/env/P/E/TAB[/ITEM]`, each part encoded. */
export function envHref(project: string, env: string, tab: Tab | 'new-flag', item?: string): string {
  const parts = ['#', 'env', project, env, tab, ...(item ? [item] : [])];
  return parts.map((p, i) => (i === 0 ? p : encodeURIComponent(p))).join('/');
}

/** A page of the environment the address bar shows now (for a row that is not told which). */
export function hereHref(tab: Tab, item?: string): string {
  const route = parseHash(location.hash);
  return route.name === 'env' ? envHref(route.project, route.env, tab, item) : '#/';
}

export function navigate(href: string): void {
  location.hash = href;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseHash(location.hash));
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}
