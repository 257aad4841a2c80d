/**
 * When something happened, as a person says it: `just now`, `3 min ago`, `5 h ago`, `3 days ago`,
 * `in 7 days`, `never`; told from `now`, the server's clock where the caller has it (`at` of
 * `usage/clients` and `usage/stale`), else the page's.
 */
import { useEffect, useState } from 'preact/hooks';
import { dateTime } from '../format.js';
import { DAY, HOUR } from './axis.js';

const MINUTE = 60_000;

export function relativeTime(iso: string | null, now: number): string {
  if (iso === null) return 'never';
  const ms = Date.parse(iso) - now;
  if (Number.isNaN(ms)) return iso;
  const abs = Math.abs(ms);
  if (abs < MINUTE) return 'just now';
  // Rounded, and in the larger unit once rounding reaches it: 59.7 minutes is `1 h`.
  const m = Math.round(abs / MINUTE);
  const h = Math.round(abs / HOUR);
  const d = Math.round(abs / DAY);
  const text = m < 60 ? `${m} min` : h < 24 ? `${h} h` : d === 1 ? '1 day' : `${d} days`;
  return ms < 0 ? `${text} ago` : `in ${text}`;
}

/** A time as `relativeTime` says it; the date and time on hover and to tools. */
export function Age({ iso, now }: { iso: string | null; now: number }) {
  return (
    <time dateTime={iso ?? undefined} title={iso ? dateTime(iso) : undefined}>
      {relativeTime(iso, now)}
    </time>
  );
}

/** The time now, again every minute, so that "3 min ago" keeps true while the page stays open. */
export function useNow(): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), MINUTE);
    return () => clearInterval(timer);
  }, []);
  return now;
}
