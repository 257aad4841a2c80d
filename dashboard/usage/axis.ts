/** The chart's scales: a round top for the y axis, and which steps of the time axis get a label. */

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

/** The y axis' top: the smallest round step (1, 1.5, 2, 2.5 ... 10 × 10^n, whole) per gridline (4 of them) at or above `max`. */
export function niceMax(max: number): number {
  const raw = Math.max(1, max / 4);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step =
    [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].map((m) => m * mag).find((s) => s >= raw && Number.isInteger(s)) ??
    10 * mag;
  return step * 4;
}

/** A count as an axis writes it: `950`, `12K`, `1.2M`. */
export const compact = (n: number) =>
  n.toLocaleString(undefined, { notation: 'compact' } as Intl.NumberFormatOptions);

const dateText = (at: number, utc: boolean) =>
  new Date(at).toLocaleDateString(undefined, {
    month: 'short',
    day: 'numeric',
    ...(utc ? { timeZone: 'UTC' } : {}),
  });
const timeText = (at: number) =>
  new Date(at).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });

/** When a step starts, in full: hours in local time, days as the server counts them (UTC days). */
export const stepText = (at: number, step: 'hour' | 'day') =>
  step === 'day' ? dateText(at, true) : `${dateText(at, false)} ${timeText(at)}`;

/**
 * The steps (indexes) to label so that at most about `fits` labels show: every 1, 2, 3, 6,
 * 12, 24 or 48 hours on local hour boundaries (24 and 48: midnights, labelled with the date), or
 * every 1, 2, 7, 14 or 30 days.
 */
export function xLabels(
  from: number,
  count: number,
  step: 'hour' | 'day',
  fits: number,
): Array<{ index: number; text: string }> {
  const every =
    (step === 'hour' ? [1, 2, 3, 6, 12, 24, 48] : [1, 2, 7, 14, 30]).find(
      (k) => count / k <= Math.max(2, fits),
    ) ?? (step === 'hour' ? 48 : 30);
  const size = step === 'hour' ? HOUR : DAY;
  const shift = step === 'hour' ? -new Date(from).getTimezoneOffset() / 60 : 0;
  const labels: Array<{ index: number; text: string }> = [];
  for (let i = 0; i < count; i++) {
    const at = from + i * size;
    if (Math.floor(at / size + shift) % every !== 0) continue;
    labels.push({
      index: i,
      text: step === 'day' ? dateText(at, true) : every >= 24 ? dateText(at, false) : timeText(at),
    });
  }
  return labels;
}
