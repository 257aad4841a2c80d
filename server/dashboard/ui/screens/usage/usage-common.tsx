/**
 * What the usage screens share (`docs/protocol.md` §13.7 through the admin API, §10.3): the
 * answers' shapes, a load that tells "usage is off" (`404` of a route the server does not have)
 * from other failures, a refresh on flag changes and every 30 s (reports raise no event), ages
 * by the server's clock, and the sub-navigation between the apps and the stale flags.
 */
import { useEffect, useRef } from 'preact/hooks';
import type { clientList, FlagUsageSummary, unknownKeys } from '../../../../state/usage-reads.js';
import type { staleReport } from '../../../../state/usage-stale.js';
import { ApiError, api, envApi } from '../../api.js';
import { EmptyState } from '../../components/bits.js';
import { useEnvChanges } from '../../events.js';
import { dateTime } from '../../format.js';
import { envHref } from '../../route.js';
import './usage.css';

export type ClientsAnswer = ReturnType<typeof clientList>;
export type UsageClient = ClientsAnswer['clients'][number];
export type UnknownKey = ReturnType<typeof unknownKeys>[number];
export type StaleAnswer = ReturnType<typeof staleReport>;
export type StaleEntry = StaleAnswer['flags'][number];
export type FlagUsage = FlagUsageSummary;

/** What a usage read answers when the server keeps no usage (`--no-usage`). */
export const OFF = 'off';

/** Loads `/usage/<path>` of the environment; `OFF` when the server keeps no usage. */
export function usageLoad<T>(project: string, env: string, path: string): () => Promise<T | typeof OFF> {
  return () =>
    api<T>(envApi(project, env, 'usage', path)).catch((error: unknown) => {
      // An unknown environment is a 404 too, but with its own message.
      if (error instanceof ApiError && error.status === 404 && /^no admin route/.test(error.message))
        return OFF;
      throw error;
    });
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

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
const relative = new Intl.RelativeTimeFormat('en', { numeric: 'always' });

/** `3 minutes ago`, `in 7 days`: the time `iso` from `now` (the server's clock). */
export function fromNow(iso: string, now: number): string {
  const ms = Date.parse(iso) - now;
  const abs = Math.abs(ms);
  if (abs < MINUTE) return 'just now';
  const [unit, size] =
    abs < HOUR
      ? (['minute', MINUTE] as const)
      : abs < DAY
        ? (['hour', HOUR] as const)
        : (['day', DAY] as const);
  return relative.format(Math.round(ms / size), unit);
}

/** A time as an age, the date and time it is on hover and to tools. */
export function Age({ iso, now }: { iso: string; now: number }) {
  return (
    <time dateTime={iso} title={dateTime(iso)}>
      {fromNow(iso, now)}
    </time>
  );
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
