/**
 * A flag's last 24 hours as 24 small bars (one per hour, oldest first), drawn inline. Named for
 * screen readers by its total: "1,240 evaluations in the last 24 hours".
 */
import { number } from '../format.js';

const W = 96;
const H = 24;

export function sparklineLabel(points: readonly number[]): string {
  const total = points.reduce((a, b) => a + b, 0);
  return `${number(total)} ${total === 1 ? 'evaluation' : 'evaluations'} in the last 24 hours`;
}

export function Sparkline({ points }: { points: readonly number[] }) {
  const max = Math.max(1, ...points);
  const bar = W / points.length;
  let d = '';
  points.forEach((n, i) => {
    // Any evaluation shows (at least a pixel); an hour without any is the baseline.
    const h = n === 0 ? 0 : Math.max(1, (n / max) * (H - 1));
    if (h > 0)
      d += `M${(i * bar).toFixed(1)} ${(H - h).toFixed(1)}h${(bar - 1).toFixed(1)}V${H}h-${(bar - 1).toFixed(1)}z`;
  });
  return (
    <svg
      class="sparkline"
      role="img"
      aria-label={sparklineLabel(points)}
      viewBox={`0 0 ${W} ${H}`}
      width={W}
      height={H}
    >
      <path class="base" d={`M0 ${H - 0.5}H${W}`} />
      {d && <path d={d} />}
    </svg>
  );
}
