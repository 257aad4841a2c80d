/**
 * `#/audit` (admins, `docs/protocol.md` §10.6): every committed change across projects, newest
 * first: when, who, what, where, and the changed fields before → after. Filtered by project,
 * actor (a person, the admin token, or any actor's id) and day. "Load more" asks for more (up to
 * the 1000 a JSON answer holds); the export downloads the same filter as JSON lines: fetched
 * (`connect-src 'self'`), then saved through a `blob:` link, a download no CSP directive governs.
 * Someone else opening the address reads the server's refusal ("needs the admin role").
 */
import { useId, useRef, useState } from 'preact/hooks';
import type { AuditRecord } from '../../src/core/wire/audit.js';
import { api } from '../api.js';
import { CellLabel, ErrorText, TableWrap } from '../components/page-parts.js';
import { actorText, dateTime } from '../format.js';
import { useResource } from '../resource.js';
import type { Overview, User } from '../types.js';
import { useAction } from '../use-action.js';
import { Value } from './history.js';

const PAGE = 200;
const OTHER = '?';

/** "updated flag checkout", "invited user Vera", "created api key key_1", "secret rotated webhook wh_1". */
function what({ action, target }: AuditRecord, names: Map<string, string>): string {
  const [kind, verb] = action.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`).split('.');
  return `${verb} ${kind} ${target ? (names.get(target.key) ?? target.key) : ''}`;
}

export function AuditScreen() {
  const [filter, setFilter] = useState({ project: '', actor: '', since: '' });
  const [other, setOther] = useState(false);
  const limit = useRef(PAGE);
  const id = useId();
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(filter))
    if (v) q.set(k, k === 'since' ? new Date(`${v}T00:00`).toISOString() : v);
  const query = `/admin/api/audit?${q}`;
  const rows = useResource(async () => {
    const n = limit.current;
    return { n, list: await api<AuditRecord[]>(`${query}&limit=${n}`) };
  }, query);
  const users = useResource(() => api<User[]>('/admin/api/users'), 'u');
  const overview = useResource(() => api<Overview>('/admin/api/overview'), 'o');
  const exporting = useAction();
  const names = new Map((users.data ?? []).map((u) => [u.id, u.name]));
  const set = (k: keyof typeof filter, v: string) => {
    limit.current = PAGE;
    setFilter({ ...filter, [k]: v });
  };
  const data = rows.data;

  const download = () =>
    exporting.run(async () => {
      const res = await fetch(`${query}&limit=100000`, { headers: { Accept: 'application/x-ndjson' } });
      if (!res.ok) throw new Error(`Export failed: ${res.status}`);
      const a = document.createElement('a');
      a.href = URL.createObjectURL(await res.blob());
      a.download = 'audit.ndjson';
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 60_000);
    });

  return (
    <>
      <h2>Audit</h2>
      <div class="row">
        <div class="field">
          <label for={`${id}1`}>Project</label>
          <select
            id={`${id}1`}
            value={filter.project}
            onChange={(e) => set('project', e.currentTarget.value)}
          >
            <option value="">All projects</option>
            {overview.data?.projects.map((p) => (
              <option key={p.key}>{p.key}</option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for={`${id}2`}>Who</label>
          <select
            id={`${id}2`}
            value={other ? OTHER : filter.actor}
            onChange={(e) => {
              const v = e.currentTarget.value;
              setOther(v === OTHER);
              set('actor', v === OTHER ? '' : v);
            }}
          >
            <option value="">Anyone</option>
            {users.data?.map((u) => (
              <option key={u.id} value={u.id}>
                {u.name}
              </option>
            ))}
            <option value="admin-token">Admin token</option>
            <option value={OTHER}>Another id…</option>
          </select>
        </div>
        {other && (
          <div class="field">
            <label for={`${id}3`}>Actor id</label>
            <input
              id={`${id}3`}
              class="mono"
              value={filter.actor}
              onChange={(e) => set('actor', e.currentTarget.value.trim())}
            />
          </div>
        )}
        <div class="field">
          <label for={`${id}4`}>Since</label>
          <input
            id={`${id}4`}
            type="date"
            value={filter.since}
            onChange={(e) => set('since', e.currentTarget.value)}
          />
        </div>
        <button type="button" disabled={exporting.busy} onClick={download}>
          Export JSON lines
        </button>
      </div>
      <ErrorText message={rows.error ?? exporting.error} />
      {!data ? (
        !rows.error && <p>Loading…</p>
      ) : data.list.length === 0 ? (
        <p class="empty">No changes.</p>
      ) : (
        <TableWrap label="Audit log" cards>
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
                <th scope="col">Where</th>
                <th scope="col">Change</th>
              </tr>
            </thead>
            <tbody>
              {data.list.map((r) => (
                <tr key={r.id}>
                  <td class="nowrap">{dateTime(r.at)}</td>
                  <td>
                    <CellLabel text="Who" />
                    <bdi>{actorText(r.actor)}</bdi>
                  </td>
                  <td>
                    <CellLabel text="What" />
                    <bdi>{what(r, names)}</bdi>
                  </td>
                  <td>
                    <CellLabel text="Where" />
                    {[r.project, r.environment].filter(Boolean).join(' / ') || '—'}
                  </td>
                  <td>
                    <CellLabel text="Change" />
                    <ul class="changes">
                      {Object.keys({ ...r.before, ...r.after }).map((k) => (
                        <li key={k}>
                          {k}:{' '}
                          {r.before && (
                            <>
                              <Value value={r.before[k]} what={k} /> →{' '}
                            </>
                          )}
                          {r.after ? <Value value={r.after[k]} what={k} /> : '—'}
                        </li>
                      ))}
                    </ul>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {data && data.list.length >= data.n && data.n < 1000 && (
        <p class="actions">
          <button
            type="button"
            onClick={() => {
              limit.current = data.n + PAGE;
              rows.reload();
            }}
          >
            Load more
          </button>
        </p>
      )}
    </>
  );
}
