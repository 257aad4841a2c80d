/** The deliveries of one webhook (`docs/protocol.md` §8.3), refreshed every second while open. */
import { useEffect, useId, useState } from 'preact/hooks';
import { api, envApi, messageOf } from '../api.js';
import { ErrorText, TableWrap } from '../components/bits.js';
import { dateTime } from '../format.js';
import { useResource } from '../resource.js';
import type { Delivery, Webhook } from '../types.js';

interface Props {
  project: string;
  env: string;
  hook: Webhook;
  /** Changes when the screen did something that makes a delivery (a test event). */
  refresh: number;
  onClose: () => void;
}

function lastResponse(d: Delivery): string {
  if (d.lastStatusCode !== null && d.lastError) return `${d.lastStatusCode} (${d.lastError})`;
  if (d.lastStatusCode !== null) return String(d.lastStatusCode);
  return d.lastError ?? '—';
}

export function Deliveries({ project, env, hook, refresh, onClose }: Props) {
  const id = useId();
  const path = envApi(project, env, 'webhooks', hook.id, 'deliveries');
  const list = useResource(() => api<Delivery[]>(path), path);
  const [error, setError] = useState<string>();
  const { reload } = list;
  useEffect(() => {
    const timer = setInterval(reload, 1000);
    return () => clearInterval(timer);
  }, [reload]);
  useEffect(() => {
    if (refresh > 0) reload();
  }, [refresh, reload]);

  const redeliver = async (delivery: Delivery) => {
    try {
      await api(`${path}/${encodeURIComponent(delivery.id)}/redeliver`, { method: 'POST' });
      setError(undefined);
    } catch (err) {
      setError(messageOf(err));
    }
    reload();
  };

  const rows = list.data;
  return (
    <section class="panel" aria-labelledby={id}>
      <div class="project-head">
        <h3 id={id}>Deliveries to {hook.url}</h3>
        <button type="button" class="small" onClick={onClose}>
          Close deliveries
        </button>
      </div>
      <ErrorText message={error ?? list.error} />
      {!rows ? (
        !list.error && <p>Loading…</p>
      ) : rows.length === 0 ? (
        <p class="empty">No deliveries yet</p>
      ) : (
        <TableWrap label="Delivery list">
          <table>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last response</th>
                <th scope="col">Next attempt</th>
                <th scope="col">When</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((d) => (
                <tr key={d.id}>
                  <td class="mono">{d.type}</td>
                  <td>
                    <span class={`status ${d.status}`}>{d.status}</span>
                  </td>
                  <td class="num">{d.attempts}</td>
                  <td>{lastResponse(d)}</td>
                  <td>{dateTime(d.nextAttemptAt)}</td>
                  <td>
                    <time dateTime={d.createdAt}>{dateTime(d.createdAt)}</time>
                  </td>
                  <td>
                    <button
                      type="button"
                      class="small"
                      aria-label={`Redeliver ${d.id}`}
                      onClick={() => redeliver(d)}
                    >
                      Redeliver
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </section>
  );
}
