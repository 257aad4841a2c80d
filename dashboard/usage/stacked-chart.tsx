/**
 * Counts over time as stacked bars, one colour per series, drawn as SVG by this code (no chart
 * library): a y axis in counts per step with its unit, time labels, a legend with each series'
 * total, and marks on the time axis where something changed (`marks`, each with a title). It is
 * as wide as its box (measured), so text stays legible on a phone. Screen readers get a summary
 * (`summary`) and the numbers as a table (`ChartTable`).
 */
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { number } from '../format.js';
import { compact, DAY, HOUR, niceMax, xLabels } from './axis.js';
import type { ChartProps } from './chart-data.js';
import { ChartTable } from './chart-table.js';
import './usage.css';

const H = 210;
const TOP = 24;
const BOTTOM = 24;
const LEFT = 44;
const RIGHT = 10;

const sum = (points: readonly number[]) => points.reduce((a, b) => a + b, 0);

export function StackedChart({ what, series, from, step, marks }: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(640);
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => setWidth(Math.max(240, el.clientWidth));
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  const count = series[0]?.points.length ?? 0;
  const size = step === 'hour' ? HOUR : DAY;
  const to = from + count * size;
  const totals = Array.from({ length: count }, (_, i) => series.reduce((a, s) => a + (s.points[i] ?? 0), 0));
  const top = niceMax(Math.max(0, ...totals));
  const plotW = width - LEFT - RIGHT;
  const plotH = H - TOP - BOTTOM;
  const bw = count > 0 ? plotW / count : plotW;
  const gap = bw > 4 ? 1 : 0;
  const y = (v: number) => TOP + plotH - (v / top) * plotH;
  const x = (at: number) => LEFT + ((at - from) / (to - from)) * plotW;
  const unit = `Evaluations per ${step}`;
  const base = new Array<number>(count).fill(0);
  const paths = series.map((s) => {
    let d = '';
    s.points.forEach((n, i) => {
      if (n <= 0) return;
      const y0 = y(base[i]!);
      base[i]! += n;
      d += `M${(LEFT + i * bw).toFixed(1)} ${y0.toFixed(1)}V${y(base[i]!).toFixed(1)}h${(bw - gap).toFixed(2)}V${y0.toFixed(1)}z`;
    });
    return d;
  });
  const shown = marks.filter((m) => m.at >= from && m.at < to);
  const peak = Math.max(0, ...totals);
  const summary = `${what}, ${unit.toLowerCase()}: ${number(sum(totals))} in all${
    peak > 0 ? `, at most ${number(peak)} in one ${step}` : ''
  }; ${shown.length} ${shown.length === 1 ? 'change' : 'changes'} marked. The table below has the numbers.`;

  return (
    <div class="chart">
      <div class="chart-box" ref={box}>
        <svg role="img" aria-label={summary} width={width} height={H} viewBox={`0 0 ${width} ${H}`}>
          <text class="unit" x={0} y={12}>
            {unit}
          </text>
          {[0, 1, 2, 3, 4].map((g) => {
            const v = (top / 4) * g;
            return (
              <g key={g} class="grid">
                <line x1={LEFT} x2={width - RIGHT} y1={y(v)} y2={y(v)} />
                <text x={LEFT - 6} y={y(v) + 4} text-anchor="end">
                  {compact(v)}
                </text>
              </g>
            );
          })}
          {paths.map((d, i) => d && <path key={series[i]!.name} class={`c${i % 8}`} d={d} />)}
          {xLabels(from, count, step, plotW / 80).map(
            ({ index, text }) =>
              LEFT + index * bw < width - 30 && (
                <text key={index} x={LEFT + index * bw} y={H - 6} text-anchor="middle">
                  {text}
                </text>
              ),
          )}
          {shown.map((m) => (
            <g key={`${m.at}${m.title}`} class="mark">
              <title>{m.title}</title>
              <line x1={x(m.at)} x2={x(m.at)} y1={TOP} y2={TOP + plotH + 6} />
              <path d={`M${x(m.at) - 5} ${TOP + plotH + 10}h10l-5-7z`} />
            </g>
          ))}
        </svg>
      </div>
      <ul class="legend" aria-label="Legend">
        {series.map((s, i) => (
          <li key={s.name}>
            <span class={`swatch c${i % 8}`} aria-hidden="true" />
            <bdi>{s.name}</bdi>: {number(sum(s.points))}
          </li>
        ))}
      </ul>
      <ChartTable what={what} series={series} from={from} step={step} marks={shown} />
    </div>
  );
}
