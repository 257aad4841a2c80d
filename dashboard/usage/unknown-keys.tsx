/**
 * Keys SDKs evaluated that are not flags of the environment (`GET usage/unknown`), most evaluated
 * first: code still asking for a flag deleted while in use, or for one never created here (a
 * typo, or a flag of another environment). One table, for the environment's Usage tab (which
 * loads the keys itself) and for the flags list's filter (`UnknownKeys`, which loads them here);
 * `flag` heads the last column and words each key's cell in it.
 */
import type { ComponentChildren } from 'preact';
import { envApi } from '../api.js';
import { CellLabel, EmptyState, ErrorText } from '../components/page-parts.js';
import { useEnvChanges } from '../events.js';
import { dateTime, number } from '../format.js';
import { useResource } from '../resource.js';
import { type UnknownKey, usageRead } from './api.js';
import { CardTable } from './card-table.js';
import { Age } from './relative-time.js';

export function UnknownKeysTable({
  keys,
  now,
  flag: [head, cell],
}: {
  keys: UnknownKey[];
  now: number;
  flag: [string, (key: UnknownKey) => ComponentChildren];
}) {
  return (
    <CardTable
      label="Keys evaluated that are not flags"
      heads={['Key', 'Evaluations', 'Last evaluated', head]}
    >
      {keys.map((k) => (
        <tr key={k.key}>
          <td class="mono key">
            <bdi>{k.key}</bdi>
          </td>
          <td class="num">
            <CellLabel text="Evaluations" />
            {number(k.count)}
          </td>
          <td>
            <CellLabel text="Last evaluated" />
            <Age iso={k.lastEvaluatedAt} now={now} />
          </td>
          <td>
            <CellLabel text={head} />
            {cell(k)}
          </td>
        </tr>
      ))}
    </CardTable>
  );
}

/** The flags list's "Keys evaluated that are not flags": when each flag was deleted, if the history knows. */
export function UnknownKeys({ project, env, now }: { project: string; env: string; now: number }) {
  const path = envApi(project, env, 'usage', 'unknown');
  const keys = useResource(() => usageRead<UnknownKey[]>(path), path);
  useEnvChanges(`${project}/${env}`, keys.reload);
  const list = keys.data;
  if (keys.error) return <ErrorText message={keys.error} />;
  if (list === undefined) return <p>Loading…</p>;
  if (list === null || list.length === 0)
    return <EmptyState text="No key that is not a flag was evaluated in the last 30 days." />;
  return (
    <UnknownKeysTable
      keys={list}
      now={now}
      flag={['Flag deleted', (k) => (k.deletedAt ? dateTime(k.deletedAt) : 'not in the history')]}
    />
  );
}
