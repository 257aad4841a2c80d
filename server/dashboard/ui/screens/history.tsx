/** `#/env/P/E/history[/FLAG]`: every committed change, newest first, of one flag or all. */
import { useId } from 'preact/hooks';
import { api, envApi } from '../api.js';
import { ErrorText, TableWrap } from '../components/bits.js';
import { useEnvChanges } from '../events.js';
import { actorText, dateTime, jsonish } from '../format.js';
import { useResource } from '../resource.js';
import { envHref, navigate } from '../route.js';
import type { Flag, HistoryEntry } from '../types.js';

interface Props {
  project: string;
  env: string;
  flag: string | undefined;
}

export function HistoryScreen({ project, env, flag }: Props) {
  const id = useId();
  const path = envApi(project, env, 'history') + (flag ? `?flag=${encodeURIComponent(flag)}` : '');
  const history = useResource(() => api<HistoryEntry[]>(path), path);
  const flagsPath = envApi(project, env, 'flags');
  const flags = useResource(() => api<Flag[]>(flagsPath), flagsPath);
  useEnvChanges(`${project}/${env}`, () => {
    history.reload();
    flags.reload();
  });

  const keys = (flags.data ?? []).map((f) => f.key);
  // A deleted flag keeps its history: still offer the one asked for.
  if (flag && !keys.includes(flag)) keys.push(flag);
  const entries = history.data;

  return (
    <>
      <h2>History</h2>
      <div class="field">
        <label for={id}>History of flag</label>
        <select
          id={id}
          value={flag ?? ''}
          onChange={(e) => navigate(envHref(project, env, 'history', e.currentTarget.value || undefined))}
        >
          <option value="">All flags</option>
          {keys.map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
      </div>
      <ErrorText message={history.error ?? flags.error} />
      {!entries ? (
        !history.error && <p>Loading…</p>
      ) : entries.length === 0 ? (
        <p class="empty">No changes yet</p>
      ) : (
        <TableWrap label="History">
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Flag</th>
                <th scope="col">Action</th>
                <th scope="col">Changes</th>
                <th scope="col">By</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr key={entry.revision}>
                  <td class="nowrap">
                    <time dateTime={entry.at}>{dateTime(entry.at)}</time>
                  </td>
                  <td class="mono">{entry.flag}</td>
                  <td>{entry.action}</td>
                  <td>
                    <ul class="changes">
                      {entry.changes.map((c) => (
                        <li key={c.field}>
                          {c.field}: {jsonish(c.from)} → {jsonish(c.to)}
                        </li>
                      ))}
                    </ul>
                  </td>
                  <td>{actorText(entry.actor)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </>
  );
}
