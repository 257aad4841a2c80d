/**
 * The chart's text alternative, for screen readers (visually hidden): its numbers per step and
 * series (steps without any left out), and the changes it marks.
 */
import { number } from '../format.js';
import { DAY, HOUR, stepText } from './axis.js';
import type { ChartProps } from './chart-data.js';

export function ChartTable({ what, series, from, step, marks }: ChartProps) {
  const size = step === 'hour' ? HOUR : DAY;
  const rows = (series[0]?.points ?? [])
    .map((_, i) => ({ i, total: series.reduce((a, s) => a + (s.points[i] ?? 0), 0) }))
    .filter((r) => r.total > 0);
  return (
    <div class="visually-hidden">
      <table>
        <caption>
          {what} per {step}
          {rows.length === 0 ? ': none in this range' : ` (${step}s without any left out)`}
        </caption>
        <thead>
          <tr>
            <th scope="col">{step === 'hour' ? 'Hour from' : 'Day (UTC)'}</th>
            {series.map((s) => (
              <th key={s.name} scope="col">
                {s.name}
              </th>
            ))}
            <th scope="col">Total</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(({ i, total }) => (
            <tr key={i}>
              <th scope="row">{stepText(from + i * size, step)}</th>
              {series.map((s) => (
                <td key={s.name}>{number(s.points[i] ?? 0)}</td>
              ))}
              <td>{number(total)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {marks.length > 0 && (
        <ul aria-label="Changes marked on the chart">
          {marks.map((m) => (
            <li key={`${m.at}${m.title}`}>{m.title}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
