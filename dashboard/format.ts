/** How values read on screen. */
import type { Actor, EnvSource } from './types.js';

export function dateTime(iso: string | null): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** A history value as JSON: `true`, `25`, `"text"`, `null`. */
export function jsonish(value: unknown): string {
  return value === undefined ? 'null' : (JSON.stringify(value) ?? String(value));
}

export function actorText(actor: Actor): string {
  switch (actor.type) {
    case 'token':
      return actor.user ? `${actor.user.name} (token ${actor.name})` : `Token ${actor.name}`;
    case 'apiKey':
      return actor.hint && actor.name !== `API key ${actor.hint}`
        ? `API key ${actor.hint} (${actor.name})`
        : actor.name;
    case 'adminToken':
      return 'Admin token';
    case 'system':
      return actor.id === 'config' ? 'Config file' : actor.name;
    default:
      return actor.name;
  }
}

const SOURCES: Record<string, string> = {
  config: 'config file',
  default: 'default',
  dashboard: 'created here',
  generated: 'generated',
};

export function sourceText(source: EnvSource | 'generated'): string {
  return SOURCES[source] ?? source;
}

/** A count as the reader's locale writes it (`5,040`). */
export function number(n: number): string {
  return n.toLocaleString();
}

const WHEN = {
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
} as const;

/** A time in the viewer's zone and in UTC: `Fri, 4 Dec 2026, 10:00 (09:00 UTC)`, the date again when UTC's differs. */
export function zoned(iso: string | undefined): string {
  if (!iso) return '—';
  const [here, utc] = [undefined, 'UTC'].map((timeZone) =>
    new Date(iso).toLocaleString('en-GB', { ...WHEN, timeZone }).split(/, (?=\d+:)/),
  ) as [string[], string[]];
  return `${here.join(', ')} (${here[0] === utc[0] ? utc[1] : utc.join(', ')} UTC)`;
}
