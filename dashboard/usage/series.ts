/**
 * What a flag's usage read means on its page: the chart's series (per variant; for a rollout
 * flag per variant and reason, so "off, out of rollout" and "off, flag off" differ), the share of
 * `true` observed, and the share its configuration asks for.
 */
import type { Flag } from '../types.js';
import type { UsageSeries } from './api.js';
import type { ChartSeries } from './chart-data.js';

/** Counts added as the server adds them: saturating at 2^53 - 1 (`docs/protocol.md` §13.4). */
const add = (a: number, b: number): number => Math.min(Number.MAX_SAFE_INTEGER, a + b);

const REASONS: Record<string, string> = {
  ON: 'flag on',
  OFF: 'flag off',
  ROLLOUT_IN: 'in rollout',
  ROLLOUT_OUT: 'out of rollout',
  MISSING_USER_KEY: 'no user key',
  PREREQUISITE_FAILED: 'prerequisite failed',
  TARGET_MATCH: 'target',
  RULE_MATCH: 'rule',
  FALLTHROUGH: 'default rule',
  ERROR: 'error',
};

const DEFAULT = "caller's default";

/** Colours of the chart's series (`usage.css`, `c0` to `c7`). */
const COLOURS = 8;

export function chartSeries(type: Flag['type'], rows: readonly UsageSeries[]): ChartSeries[] {
  const byName = new Map<string, number[]>();
  for (const row of rows) {
    const variant = row.variant ?? DEFAULT;
    const name =
      type === 'rollout' || row.variant === null
        ? `${variant}, ${REASONS[row.reason] ?? row.reason}`
        : variant;
    const points = byName.get(name);
    if (!points) byName.set(name, [...row.points]);
    else
      row.points.forEach((n, i) => {
        points[i] = add(points[i] ?? 0, n);
      });
  }
  let series = [...byName].map(([name, points]) => ({ name, points }));
  if (series.length > COLOURS) {
    // Eight colours tell series apart at a glance: the 7 largest, and the rest as one.
    const total = (p: readonly number[]) => p.reduce(add, 0);
    series.sort((a, b) => total(b.points) - total(a.points));
    const rest = series.slice(COLOURS - 1);
    const points = rest[0]!.points.map((_, i) => rest.reduce((sum, r) => add(sum, r.points[i] ?? 0), 0));
    series = [...series.slice(0, COLOURS - 1), { name: `${rest.length} others`, points }];
  }
  // The caller's default last, after the variants.
  return series.sort((a, b) => Number(a.name.startsWith(DEFAULT)) - Number(b.name.startsWith(DEFAULT)));
}

/** The share of evaluations that served `true` (of those that served `true` or `false`), in percent. */
export function observedTrue(rows: readonly UsageSeries[]): number | undefined {
  let yes = 0;
  let served = 0;
  for (const row of rows) {
    if (typeof row.value !== 'boolean') continue;
    const n = row.points.reduce(add, 0);
    served = add(served, n);
    if (row.value) yes = add(yes, n);
  }
  return served > 0 ? (yes / served) * 100 : undefined;
}

/** The percentage of users a boolean or rollout flag's default rule serves `true` (0 while off). */
export function configuredTrue(flag: Flag): number | undefined {
  if (flag.type === 'rollout') return flag.enabled ? flag.percentage : 0;
  if (flag.type !== 'boolean') return undefined;
  if (!flag.enabled) return 0;
  const serve = flag.fallthrough ?? { variant: 'on' };
  if ('variant' in serve) return serve.variant === 'on' ? 100 : 0;
  return serve.split.reduce((a, s) => a + (s.variant === 'on' ? s.weight : 0), 0) / 1000;
}

/** A percentage as the reader's locale writes it: `24.8 %` with `digits`, else as precise as set (`12.5 %`). */
export const percent = (p: number, digits?: number) =>
  `${p.toLocaleString(undefined, { minimumFractionDigits: digits ?? 0, maximumFractionDigits: digits ?? 3 })}\u00a0%`;
