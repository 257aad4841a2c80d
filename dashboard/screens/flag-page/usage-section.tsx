/**
 * The flag page's usage (`docs/protocol.md` §13.7): what it served over 24 hours, 7, 30 or 90
 * days as a stacked chart (per variant; a rollout flag's also per reason), its history's changes
 * marked on the time axis, the share of `true` observed beside the share configured (boolean and
 * rollout flags), and the apps that evaluate it. Left out when the server keeps no usage.
 */
import { useRef, useState } from 'preact/hooks';
import { api, envApi } from '../../api.js';
import { ErrorText } from '../../components/page-parts.js';
import { useEnvChanges } from '../../events.js';
import { dateTime, number } from '../../format.js';
import { useResource } from '../../resource.js';
import { FIELD_NAMES } from '../../targeting/diff.js';
import type { Flag, HistoryEntry } from '../../types.js';
import { type FlagSeries, RANGES, type UsageRange, usageRead } from '../../usage/api.js';
import type { ChartMark } from '../../usage/chart-data.js';
import { Age } from '../../usage/relative-time.js';
import { chartSeries, configuredTrue, observedTrue, percent } from '../../usage/series.js';
import { StackedChart } from '../../usage/stacked-chart.js';
import { Section } from './flag-sections.js';

const SPANS: Record<UsageRange, string> = {
  '24h': 'the last 24 hours',
  '7d': 'the last 7 days',
  '30d': 'the last 30 days',
  '90d': 'the last 90 days',
};

/** A change of the flag as its mark's title says it: "12 Nov, 10:02: rollout 10 % → 25 %, turned on". */
function markOf(entry: HistoryEntry): ChartMark {
  const what = entry.changes.map(({ field, from, to }) =>
    field === 'enabled'
      ? to
        ? 'turned on'
        : 'turned off'
      : field === 'percentage'
        ? `rollout ${percent(Number(from))} → ${percent(Number(to))}`
        : `${(FIELD_NAMES[field] ?? field).toLowerCase()} changed`,
  );
  const said = entry.action === 'updated' && what.length > 0 ? what.join(', ') : entry.action;
  return { at: Date.parse(entry.at), title: `${dateTime(entry.at)}: ${said}` };
}

export function UsageSection({ project, env, flag }: { project: string; env: string; flag: Flag }) {
  const [range, setRange] = useState<UsageRange>('24h');
  const path = `${envApi(project, env, 'usage', 'flags', flag.key)}?range=${range}`;
  const usage = useResource(() => usageRead<FlagSeries>(path), path);
  const historyPath = `${envApi(project, env, 'history')}?flag=${encodeURIComponent(flag.key)}`;
  const history = useResource(() => api<HistoryEntry[]>(historyPath), historyPath);
  useEnvChanges(`${project}/${env}`, history.reload);
  // The range shown until the next one has loaded, so the page does not jump.
  const last = useRef<FlagSeries | null>();
  if (usage.data !== undefined) last.current = usage.data;
  const data = last.current;
  // Nothing until the first answer (usage off leaves no trace); failures are shown.
  if (data === null || (data === undefined && !usage.error)) return null;

  const observed = data && observedTrue(data.series);
  const configured = configuredTrue(flag);
  const ruled = (flag.targets?.length ?? 0) + (flag.rules?.length ?? 0) > 0;
  return (
    <Section title="Usage" hint="What SDKs report evaluating, counted by the server.">
      <fieldset class="ranges">
        <legend class="visually-hidden">Time range</legend>
        {RANGES.map((r) => (
          <button key={r} type="button" class="small" aria-pressed={r === range} onClick={() => setRange(r)}>
            {r.replace(/(\d+)/, '$1\u00a0')}
          </button>
        ))}
      </fieldset>
      <ErrorText message={usage.error ?? history.error} />
      {data && (
        <>
          <p class="usage-facts">
            {number(data.total)} {data.total === 1 ? 'evaluation' : 'evaluations'} in {SPANS[data.range]} ·
            last evaluated <Age iso={data.lastEvaluatedAt} now={Date.now()} />
          </p>
          {configured !== undefined && (
            <p class="share">
              {observed === undefined ? 'Observed: nothing served' : `Observed ${percent(observed, 1)} true`}{' '}
              · configured {percent(configured)}
              {!flag.enabled ? ' (the flag is off)' : ruled ? ' (users no target or rule matched)' : ''}
            </p>
          )}
          <StackedChart
            what={`Evaluations of ${flag.key}`}
            series={chartSeries(flag.type, data.series)}
            from={Date.parse(data.from)}
            step={data.step}
            marks={(history.data ?? []).map(markOf)}
          />
          <h4>Apps</h4>
          {data.apps.length === 0 ? (
            <p class="hint">No app evaluated it in {SPANS[data.range]}.</p>
          ) : (
            <ul class="apps">
              {data.apps.map((a) => (
                <li key={`${a.app}\t${a.sdk}`}>
                  <bdi>{a.app ?? 'no app name'}</bdi> ({a.sdk}): {number(a.count)}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </Section>
  );
}
