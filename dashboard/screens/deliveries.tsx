/**
 * The deliveries of one webhook (`docs/protocol.md` §8.3), refreshed every second while open:
 * what each is about, how it went, and per attempt what was sent and what came back; filtered
 * by status and by flag (or segment) key through the API's own `?status=` and `?flag=`.
 */
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { api, envApi, messageOf } from '../api.js';
import { ErrorText, TableWrap } from '../components/page-parts.js';
import { dateTime } from '../format.js';
import { useResource } from '../resource.js';
import { useCan } from '../roles.js';
import type { Delivery, Webhook } from '../types.js';
import { DeliveryAttempts } from './delivery-attempts.js';

interface Props {
  project: string;
  env: string;
  hook: Webhook;
  /** Changes when the screen did something that makes a delivery (a test event). */
  refresh: number;
  /** Move the focus to the panel's heading when it opens (it was asked for, not a side effect). */
  focus: boolean;
  onClose: () => void;
}

const STATUSES = ['pending', 'succeeded', 'failed'] as const;
type StatusFilter = '' | (typeof STATUSES)[number];

function lastResponse(d: Delivery): string {
  if (d.lastStatusCode !== null && d.lastError) return `${d.lastStatusCode} (${d.lastError})`;
  if (d.lastStatusCode !== null) return String(d.lastStatusCode);
  return d.lastError ?? '—';
}

function About({ d }: { d: Delivery }) {
  if (d.flag !== null)
    return (
      <>
        flag <bdi class="mono">{d.flag}</bdi>
      </>
    );
  if (d.segment !== null)
    return (
      <>
        segment <bdi class="mono">{d.segment}</bdi>
      </>
    );
  return <span class="empty">—</span>;
}

export function Deliveries({ project, env, hook, refresh, focus, onClose }: Props) {
  const id = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  const [status, setStatus] = useState<StatusFilter>('');
  const [flagDraft, setFlagDraft] = useState('');
  const [flag, setFlag] = useState('');
  const editor = useCan(project, 'editor');
  const base = envApi(project, env, 'webhooks', hook.id, 'deliveries');
  const query = new URLSearchParams();
  if (status !== '') query.set('status', status);
  if (flag !== '') query.set('flag', flag);
  const search = query.toString();
  const path = search === '' ? base : `${base}?${search}`;
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
  // biome-ignore lint/correctness/useExhaustiveDependencies: only when the panel opens
  useEffect(() => {
    if (focus) heading.current?.focus();
  }, []);

  const redeliver = async (delivery: Delivery) => {
    try {
      await api(`${base}/${encodeURIComponent(delivery.id)}/redeliver`, { method: 'POST' });
      setError(undefined);
    } catch (err) {
      setError(messageOf(err));
    }
    reload();
  };
  const applyFlag = (e: Event) => {
    e.preventDefault();
    setFlag(flagDraft.trim());
  };
  const clear = () => {
    setStatus('');
    setFlag('');
    setFlagDraft('');
  };
  const filtered = status !== '' || flag !== '';

  const rows = list.data;
  return (
    <section class="panel" aria-labelledby={id}>
      <div class="project-head">
        <h3 id={id} ref={heading} tabIndex={-1}>
          Deliveries to <bdi>{hook.url}</bdi>
        </h3>
        <button type="button" class="small" onClick={onClose}>
          Close deliveries
        </button>
      </div>
      <form class="row delivery-filters" onSubmit={applyFlag}>
        <div class="field">
          <label for={`${id}-s`}>Delivery status</label>
          <select
            id={`${id}-s`}
            value={status}
            onChange={(e) => setStatus(e.currentTarget.value as StatusFilter)}
          >
            <option value="">Any status</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for={`${id}-f`}>Flag or segment key</label>
          <input
            id={`${id}-f`}
            type="search"
            autocomplete="off"
            spellcheck={false}
            value={flagDraft}
            onInput={(e) => setFlagDraft(e.currentTarget.value)}
            onChange={(e) => setFlag(e.currentTarget.value.trim())}
          />
        </div>
        <button type="submit">Filter</button>
        {filtered && (
          <button type="button" onClick={clear}>
            Clear filters
          </button>
        )}
      </form>
      <ErrorText message={error ?? list.error} />
      {!rows ? (
        !list.error && <p>Loading…</p>
      ) : rows.length === 0 ? (
        <p class="empty">{filtered ? 'No delivery matches these filters.' : 'No deliveries yet.'}</p>
      ) : (
        <TableWrap label="Delivery list">
          <table class="deliveries">
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">About</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last response</th>
                <th scope="col">Created</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            {rows.map((d) => (
              <tbody key={d.id} class="delivery">
                <tr class="delivery-main">
                  <td class="mono" data-label="Event">
                    <bdi>{d.type}</bdi>
                  </td>
                  <td data-label="About">
                    <About d={d} />
                  </td>
                  <td data-label="Status">
                    <span class={`status ${d.status}`}>{d.status}</span>
                    {d.status === 'pending' && d.nextAttemptAt && (
                      <span class="hint next-try">
                        next try <time dateTime={d.nextAttemptAt}>{dateTime(d.nextAttemptAt)}</time>
                      </span>
                    )}
                  </td>
                  <td class="num" data-label="Attempts">
                    {d.attempts}
                  </td>
                  <td data-label="Last response">
                    <bdi>{lastResponse(d)}</bdi>
                  </td>
                  <td data-label="Created">
                    <time dateTime={d.createdAt}>{dateTime(d.createdAt)}</time>
                  </td>
                  <td data-label="Actions">
                    <button
                      type="button"
                      class="small"
                      aria-label={`Redeliver ${d.id}`}
                      disabled={!editor.ok}
                      title={editor.reason}
                      onClick={() => redeliver(d)}
                    >
                      Redeliver
                    </button>
                  </td>
                </tr>
                <tr class="delivery-more">
                  <td colSpan={7}>
                    <DeliveryAttempts delivery={d} />
                  </td>
                </tr>
              </tbody>
            ))}
          </table>
        </TableWrap>
      )}
    </section>
  );
}
