/**
 * The instances that report: grouped by app (its instances, how many reported lately, its
 * versions), one row each; and the call-out of those holding an older revision than the
 * environment's, told apart by whether they still run (then they missed changes) or stopped.
 */
import { CellLabel } from '../../components/page-parts.js';
import { number } from '../../format.js';
import type { UsageClient } from '../../usage/api.js';
import { CardTable } from '../../usage/card-table.js';
import { Age } from '../../usage/relative-time.js';

const appName = (c: UsageClient) => c.app?.name ?? '';
const appText = (c: UsageClient) =>
  c.app ? (c.app.version ? `${c.app.name} ${c.app.version}` : c.app.name) : 'An app without a name';
const short = (instance: string) => (instance.length > 12 ? `${instance.slice(0, 10)}…` : instance);
const plural = (n: number, one: string, many: string) => `${number(n)} ${n === 1 ? one : many}`;
const still = (c: UsageClient) => c.connected && c.state !== 'closed';

export function BehindCallout({
  clients,
  revision,
  now,
}: {
  clients: UsageClient[];
  revision: number;
  now: number;
}) {
  const behind = clients
    .filter((c) => (c.behind ?? 0) > 0)
    .sort((a, b) => Number(still(b)) - Number(still(a)) || b.behind! - a.behind!);
  if (behind.length === 0)
    return <p class="ok">No instance holds an older revision than {number(revision)}.</p>;
  const running = behind.filter(still).length;
  return (
    <section class="callout" aria-labelledby="usage-behind">
      <h4 id="usage-behind">
        {plural(behind.length, 'instance', 'instances')} behind revision {number(revision)}
        {running > 0 && `, ${number(running)} still running`}
      </h4>
      <ul>
        {behind.map((c) => (
          <li key={c.instance}>
            <strong>
              <bdi>{appText(c)}</bdi>
            </strong>{' '}
            (<span class="mono">{short(c.instance)}</span>, {c.sdk.name} {c.sdk.version}) holds revision{' '}
            {number(c.revision!)}, {plural(c.behind!, 'revision', 'revisions')} behind; {c.state}, last seen{' '}
            <Age iso={c.lastSeenAt} now={now} />.{' '}
            {still(c)
              ? 'Still reporting, so it has missed changes: check its connection to the stream, or how often it polls.'
              : 'Stopped: it loads the current flags when it starts again.'}
          </li>
        ))}
      </ul>
    </section>
  );
}

export function AppGroups({ clients, now }: { clients: UsageClient[]; now: number }) {
  const groups = new Map<string, UsageClient[]>();
  for (const c of clients) groups.set(appName(c), [...(groups.get(appName(c)) ?? []), c]);
  const names = [...groups.keys()].sort((a, b) => (a === '' ? 1 : b === '' ? -1 : a.localeCompare(b)));
  return (
    <>
      {names.map((name) => {
        const list = groups.get(name)!;
        const versions = [...new Set(list.map((c) => c.app?.version ?? ''))]
          .filter(Boolean)
          .sort((x, y) => y.localeCompare(x, 'en', { numeric: true }));
        const label = name === '' ? 'Apps without a name' : name;
        return (
          <section key={name} class="usage-app" aria-label={`App ${label}`}>
            <h4>
              <bdi>{label}</bdi>
            </h4>
            <p class="hint">
              {plural(list.length, 'instance', 'instances')}, {number(list.filter((c) => c.connected).length)}{' '}
              reported in the last 10 minutes
              {versions.length > 0 &&
                `; ${versions.length === 1 ? 'version' : 'versions'} ${versions.join(', ')}`}
              {name === '' && '. Name an app with createClient({ usage: { app: { name, version } } }).'}
            </p>
            <CardTable
              label={`Instances of ${label}`}
              heads={['Instance', 'App version', 'SDK', 'Runtime', 'State', 'Revision', 'Last seen']}
            >
              {list.map((c) => (
                <tr key={c.instance}>
                  <td class="mono key" title={c.instance}>
                    {short(c.instance)}
                  </td>
                  <td>
                    <CellLabel text="App version" />
                    <bdi>{c.app?.version ?? '—'}</bdi>
                  </td>
                  <td>
                    <CellLabel text="SDK" />
                    {c.sdk.name} {c.sdk.version}
                  </td>
                  <td>
                    <CellLabel text="Runtime" />
                    {c.runtime}
                  </td>
                  <td>
                    <CellLabel text="State" />
                    {c.state}
                  </td>
                  <td>
                    <CellLabel text="Revision" />
                    {c.revision === null
                      ? '—'
                      : `${number(c.revision)} (${c.behind ? `${number(c.behind)} behind` : 'current'})`}
                  </td>
                  <td>
                    <CellLabel text="Last seen" />
                    <Age iso={c.lastSeenAt} now={now} />
                    {!c.connected && c.state !== 'closed' && ' (no report since)'}
                  </td>
                </tr>
              ))}
            </CardTable>
          </section>
        );
      })}
    </>
  );
}
