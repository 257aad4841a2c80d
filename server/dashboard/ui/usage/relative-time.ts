/** When something last happened, as a person says it: `just now`, `3 min ago`, `5 h ago`, `never`. */
import { useEffect, useState } from 'preact/hooks';

const MINUTE = 60_000;

export function relativeTime(iso: string | null, now: number): string {
  if (iso === null) return 'never';
  const ago = now - Date.parse(iso);
  if (Number.isNaN(ago)) return iso;
  if (ago < MINUTE) return 'just now';
  if (ago < 60 * MINUTE) return `${Math.floor(ago / MINUTE)} min ago`;
  if (ago < 24 * 60 * MINUTE) return `${Math.floor(ago / (60 * MINUTE))} h ago`;
  const days = Math.floor(ago / (24 * 60 * MINUTE));
  return days === 1 ? '1 day ago' : `${days} days ago`;
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
