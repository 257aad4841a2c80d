/**
 * A flag's usage chart (dashboard/usage/series.ts): its series, one per
 * variant (per variant and reason for rollouts and the caller's default), the caller's default
 * last; past the chart's eight colours, the 7 largest and the rest as one series, so no two
 * series share a colour.
 */
import { expect, it } from 'vitest';
import type { UsageSeries } from '../../../dashboard/usage/api.js';
import { chartSeries } from '../../../dashboard/usage/series.js';

const row = (variant: string | null, reason: string, points: number[]): UsageSeries =>
  ({ variant, value: variant, reason, points }) as UsageSeries;

it('draws one series per variant, the caller default last', () => {
  const series = chartSeries('string', [
    row(null, 'ERROR', [1, 0]),
    row('red', 'FALLTHROUGH', [2, 3]),
    row('red', 'RULE_MATCH', [1, 1]),
    row('blue', 'RULE_MATCH', [0, 4]),
  ]);
  expect(series).toEqual([
    { name: 'red', points: [3, 4] },
    { name: 'blue', points: [0, 4] },
    { name: "caller's default, error", points: [1, 0] },
  ]);
});

it('keeps the 7 largest of more than 8 series and draws the rest as one', () => {
  // 10 variants, the n-th evaluated n times in each of 2 hours.
  const rows = Array.from({ length: 10 }, (_, n) => row(`v${n + 1}`, 'RULE_MATCH', [n + 1, n + 1]));
  const series = chartSeries('string', rows);
  expect(series).toHaveLength(8);
  expect(series.slice(0, 7).map((s) => s.name)).toEqual(['v10', 'v9', 'v8', 'v7', 'v6', 'v5', 'v4']);
  expect(series[7]).toEqual({ name: '3 others', points: [6, 6] });
  // Nothing is lost: every evaluation is in one series.
  const sum = (list: typeof series) => list.reduce((a, s) => a + s.points[0]! + s.points[1]!, 0);
  expect(sum(series)).toBe(2 * 55);
});
