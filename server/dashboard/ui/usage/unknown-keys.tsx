/**
 * Keys SDKs evaluated that are not flags of the environment (`GET usage/unknown`), most
 * evaluated first: a typo in code, or a flag deleted while still asked about (when it was
 * deleted, if the history knows).
 */
import { envApi } from '../api.js';
import { CellLabel, EmptyState, ErrorText, TableWrap } from '../components/bits.js';
import { useEnvChanges } from '../events.js';
import { dateTime, number } from '../format.js';
import { useResource } from '../resource.js';
import { type UnknownKey, usageRead } from './api.js';
import { relativeTime } from './relative-time.js';

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
    <TableWrap label="Keys evaluated that are not flags" cards>
      <table>
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col">Evaluations</th>
            <th scope="col">Last evaluated</th>
            <th scope="col">Flag deleted</th>
          </tr>
        </thead>
        <tbody>
          {list.map((k) => (
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
                <time dateTime={k.lastEvaluatedAt} title={dateTime(k.lastEvaluatedAt)}>
                  {relativeTime(k.lastEvaluatedAt, now)}
                </time>
              </td>
              <td>
                <CellLabel text="Flag deleted" />
                {k.deletedAt ? dateTime(k.deletedAt) : 'not in the history'}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}
