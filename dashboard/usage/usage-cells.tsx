/**
 * A flag's usage in the flags list: when it was last evaluated ("3 min ago", "never"), with a
 * stale badge and the server's reason when it is stale; and its last 24 hours as a sparkline.
 */
import { CellLabel } from '../components/page-parts.js';
import type { FlagUsage, StaleFlag } from './api.js';
import { Age } from './relative-time.js';
import { Sparkline } from './sparkline.js';
import './usage.css';

/** Why a flag is stale, in a word (the badge's "Stale: one value"; the stale view's "One value only"). */
export const STALE: Record<StaleFlag['reason'], string> = {
  UNUSED: 'not evaluated',
  NEVER_EVALUATED: 'never evaluated',
  SINGLE_VALUE: 'one value',
};

const NONE = new Array<number>(24).fill(0);

export function UsageCells({ usage, now }: { usage: FlagUsage | undefined; now: number }) {
  const last = usage?.lastEvaluatedAt ?? null;
  const stale = usage?.stale;
  return (
    <>
      <td class="last-evaluated">
        <CellLabel text="Last evaluated" />
        <Age iso={last} now={now} />
        {stale && (
          <span class="stale">
            <span class="badge">Stale: {STALE[stale.reason] ?? stale.reason}</span>
            <span class="hint">{stale.message}</span>
          </span>
        )}
      </td>
      <td class="spark">
        <CellLabel text="Last 24 h" />
        <Sparkline points={usage?.last24h ?? NONE} />
      </td>
    </>
  );
}
