/** Hash routes: `#/` and `#/env/PROJECT/ENV/TAB[/FLAG]`. */
import { useEffect, useState } from 'preact/hooks';

export const TABS = ['flags', 'history', 'keys', 'webhooks', 'connect'] as const;
export type Tab = (typeof TABS)[number];

export type Route =
  | { name: 'overview' }
  | { name: 'env'; project: string; env: string; tab: Tab; flag: string | undefined }
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
  // `#token=...` is the sign-in fragment, removed as soon as it is read.
  if (path === '' || path.startsWith('token=')) return { name: 'overview' };
  const parts = path.split('/').map(decode);
  const [head, project, env, tab, flag, ...rest] = parts;
  if (head !== 'env' || !project || !env || rest.length > 0) return { name: 'not-found' };
  if (tab === undefined || parts.length === 3)
    return { name: 'env', project, env, tab: 'flags', flag: undefined };
  if (!(TABS as readonly string[]).includes(tab)) return { name: 'not-found' };
  if (flag !== undefined && (tab !== 'history' || flag === '')) return { name: 'not-found' };
  return { name: 'env', project, env, tab: tab as Tab, flag };
}

export function envHref(project: string, env: string, tab: Tab, flag?: string): string {
  const parts = ['#', 'env', project, env, tab, ...(flag ? [flag] : [])];
  return parts.map((p, i) => (i === 0 ? p : encodeURIComponent(p))).join('/');
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
