/**
 * What a usage chart draws: series of counts per step and marks on the time axis, the same for
 * the bars (`stacked-chart.tsx`) and their text alternative (`chart-table.tsx`).
 */

export interface ChartSeries {
  name: string;
  /** One count per step, oldest first. */
  points: number[];
}

export interface ChartMark {
  at: number;
  title: string;
}

export interface ChartProps {
  /** What is counted, for the summary and the table: "Evaluations of checkout". */
  what: string;
  series: readonly ChartSeries[];
  /** When the first step starts (epoch ms). */
  from: number;
  step: 'hour' | 'day';
  marks: readonly ChartMark[];
}
