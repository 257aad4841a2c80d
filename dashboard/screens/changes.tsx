/**
 * Change requests (`docs/protocol.md` §10.7): `#/env/P/E/changes` lists an environment's requests
 * (open, scheduled, recent), `#/env/P/E/changes/ID` shows one: what it would change now, in the
 * review's sentences, its reviews and conflicts, and what the viewer may do with it (approve or
 * reject, apply, schedule; its author rebases and withdraws it). Times read in the viewer's zone
 * and in UTC. `RequestDialog` is the flag page's "Request change", in an environment whose
 * changes need approval (`useApprovals`).
 */
import type { ComponentChildren } from 'preact';
import { useId, useState } from 'preact/hooks';
import { api, envApi, messageOf } from '../api.js';
import { ErrorText, TableWrap } from '../components/page-parts.js';
import { ChangeList, ReviewDialog } from '../components/review-dialog.js';
import { useEnvChanges, useStructureChanges } from '../events.js';
import { actorText, zoned } from '../format.js';
import { useResource } from '../resource.js';
import { type Allowed, useCan, useSession } from '../roles.js';
import { envHref, navigate } from '../route.js';
import { countedChanges, type FieldChange, fieldChanges, fieldName, isCounted } from '../targeting/diff.js';
import type { ChangeInput, ChangeRequest, Overview } from '../types.js';
import { useAction } from '../use-action.js';

/** How many approvals a change of the environment needs (`0` until the overview is loaded). */
export function useApprovals(project: string, env: string): number {
  const overview = useResource(() => api<Overview>('/admin/api/overview'), 'overview');
  useStructureChanges(overview.reload);
  return (
    overview.data?.projects.find((p) => p.key === project)?.environments.find((e) => e.key === env)
      ?.approvals ?? 0
  );
}

/** "changes here need 2 approvals: ..." */
const needs = (n: number) =>
  `changes here need ${n} approval${n > 1 ? 's' : ''}: request them on a flag's page`;

/** Whether flags and segments may be written directly here: the role, and no approvals needed. */
export function useDirect(project: string, env: string): Allowed {
  const editor = useCan(project, 'editor');
  const approvals = useApprovals(project, env);
  return editor.ok && approvals > 0 ? { ok: false, reason: needs(approvals) } : editor;
}

/** A labelled input (or text area), `datetime-local` for a time in the viewer's zone. */
function Field({
  label,
  value,
  set,
  type = 'text',
  children,
}: {
  label: string;
  value: string;
  set: (v: string) => void;
  type?: 'text' | 'area' | 'datetime-local' | 'number';
  children?: ComponentChildren;
}) {
  const id = useId();
  const props = { id, value, onInput: (e: Event) => set((e.currentTarget as HTMLInputElement).value) };
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {type === 'area' ? <textarea rows={2} {...props} /> : <input type={type} {...props} />}
      {children}
    </div>
  );
}

/** A `datetime-local` value (the viewer's zone; the browser leaves it empty until whole) as ISO 8601 UTC. */
const isoOf = (local: string): string | undefined => (local ? new Date(local).toISOString() : undefined);

/** "Apply at": a date and time in the viewer's zone, read back in that zone and in UTC. */
function WhenField({ label, value, set }: { label: string; value: string; set: (v: string) => void }) {
  const iso = isoOf(value);
  return (
    <Field label={label} value={value} set={set} type="datetime-local">
      {iso && <small class="hint">{zoned(iso)}</small>}
    </Field>
  );
}

interface RequestProps {
  project: string;
  env: string;
  /** The one change asked for: its `key` begins the title (`Update KEY`). */
  change: ChangeInput;
  changes: readonly FieldChange[];
  onClose: () => void;
}

/**
 * The review before a change request (a flag's or a segment's page, where changes need approval):
 * the changes in sentences, a title, a description, a time; made, it opens the request's page.
 */
export function RequestDialog({ project, env, change, changes, onClose }: RequestProps) {
  const [title, setTitle] = useState(`Update ${change.key}`);
  const [description, setDescription] = useState('');
  const [when, setWhen] = useState('');
  const at = isoOf(when);
  const request = () =>
    api<ChangeRequest>(envApi(project, env, 'change-requests'), {
      method: 'POST',
      body: {
        title,
        ...(description.trim() && { description }),
        ...(at && { scheduledAt: at }),
        changes: [change],
      },
    }).then((made) => navigate(envHref(project, env, 'changes', made.id)) as undefined, messageOf);
  return (
    <ReviewDialog
      title={`Request changes to ${change.key}?`}
      changes={changes}
      saveLabel="Request change"
      onSave={request}
      onClose={onClose}
    >
      <Field label="Title" value={title} set={setTitle} />
      <Field label="Description (optional)" value={description} set={setDescription} type="area" />
      <WhenField label="Apply at (optional)" value={when} set={setWhen} />
    </ReviewDialog>
  );
}

const GROUPS: Array<[string, string[]]> = [
  ['Open', ['open', 'approved']],
  ['Scheduled', ['scheduled']],
  ['Recent', ['applied', 'rejected', 'withdrawn', 'failed']],
];

interface EnvProps {
  project: string;
  env: string;
}

/** `#/env/P/E/changes`: the environment's requests, open, scheduled and recent. */
export function ChangesScreen({ project, env }: EnvProps) {
  const path = envApi(project, env, 'change-requests');
  const list = useResource(() => api<ChangeRequest[]>(path), path);
  useEnvChanges(`${project}/${env}`, list.reload, true);
  const approvals = useApprovals(project, env);
  return (
    <>
      <h2>Change requests</h2>
      {approvals > 0 && <p class="hint">{needs(approvals)}.</p>}
      {useCan(project, 'admin').ok && <ApprovalsSetting project={project} env={env} approvals={approvals} />}
      <ErrorText message={list.error} />
      {!list.data
        ? !list.error && <p>Loading…</p>
        : GROUPS.map(([name, states]) => {
            const shown = list.data!.filter((r) => states.includes(r.state));
            return (
              <section key={name} aria-label={name}>
                <h3>{name}</h3>
                {shown.length === 0 ? (
                  <p class="empty">None.</p>
                ) : (
                  <TableWrap label={`${name} requests`}>
                    <table>
                      <thead>
                        <tr>
                          {['Title', 'Author', 'State', 'Approvals', 'Scheduled'].map((h) => (
                            <th key={h} scope="col">
                              {h}
                            </th>
                          ))}
                        </tr>
                      </thead>
                      <tbody>
                        {shown.map((r) => (
                          <tr key={r.id}>
                            <td>
                              <a href={envHref(project, env, 'changes', r.id)}>
                                <bdi>{r.title}</bdi>
                              </a>
                            </td>
                            <td>
                              <bdi>{actorText(r.author)}</bdi>
                            </td>
                            <td>{r.state}</td>
                            <td class="num">
                              {r.approvals.received}/{r.approvals.required}
                            </td>
                            <td>{zoned(r.scheduledAt)}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </TableWrap>
                )}
              </section>
            );
          })}
    </>
  );
}

/** An admin's setting: how many approvals a change here needs (0: changes are saved directly). */
function ApprovalsSetting({ project, env, approvals }: EnvProps & { approvals: number }) {
  const [value, setValue] = useState('');
  const { busy, error, run } = useAction();
  const shown = value === '' ? String(approvals) : value;
  const save = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      await api(envApi(project, env), { method: 'PATCH', body: { approvals: Number(shown) } });
      setValue('');
    });
  };
  return (
    <form class="row" onSubmit={save}>
      <Field label="Approvals needed (0: none)" value={shown} set={setValue} type="number" />
      <button type="submit" disabled={busy || shown === String(approvals)}>
        Save setting
      </button>
      <ErrorText message={error} />
    </form>
  );
}

const DONE = ['applied', 'withdrawn'];

/** `#/env/P/E/changes/ID`: one request, and what the viewer may do with it. */
export function ChangeRequestPage({ project, env, id }: EnvProps & { id: string }) {
  const path = envApi(project, env, 'change-requests', id);
  const request = useResource(() => api<ChangeRequest>(path), path);
  useEnvChanges(`${project}/${env}`, request.reload, true);
  const editor = useCan(project, 'editor');
  const session = useSession();
  const { busy, error, run } = useAction();
  const [comment, setComment] = useState('');
  const [when, setWhen] = useState('');
  const r = request.data;
  if (!r)
    return (
      <>
        <h2>Change request</h2>
        {request.error ? <ErrorText message={request.error} /> : <p>Loading…</p>}
      </>
    );
  const a = r.author;
  // The author: a token acts as its user; the admin token is itself.
  const mine = session?.user
    ? (a.type === 'token' ? a.user?.id : a.id) === session.user.id
    : a.type === 'adminToken';
  const at = isoOf(when);
  const act = (sub: string, body?: unknown, method: 'POST' | 'PATCH' | 'DELETE' = 'POST') =>
    run(() => api(sub ? `${path}/${sub}` : path, { method, body }).finally(request.reload));
  const button = (label: string, onClick: () => unknown, show: unknown) =>
    show ? (
      <button type="button" disabled={busy} onClick={onClick}>
        {label}
      </button>
    ) : null;
  return (
    <>
      <p>
        <a href={envHref(project, env, 'changes')}>← All change requests</a>
      </p>
      <h2>
        <bdi>{r.title}</bdi> <span class="badge">{r.state}</span>
      </h2>
      <dl class="facts">
        {(
          [
            ['Author', actorText(a)],
            ['Approvals', `${r.approvals.received} of ${r.approvals.required}`],
            ['Created', zoned(r.createdAt)],
            ['Scheduled for', r.scheduledAt && zoned(r.scheduledAt) + (r.late ? ' (applied late)' : '')],
            ['Applied', r.appliedAt && `${zoned(r.appliedAt)} by ${actorText(r.appliedBy ?? a)}`],
          ] as const
        ).map(
          ([dt, dd]) =>
            dd && (
              <div key={dt}>
                <dt>{dt}</dt>
                <dd>
                  <bdi>{dd}</bdi>
                </dd>
              </div>
            ),
        )}
      </dl>
      {r.description && <p class="user-text">{r.description}</p>}
      <ErrorText message={r.failure && `Not applied: ${r.failure}`} />
      <ErrorText message={r.problem} />
      {r.conflicts?.map((c) => (
        <p key={c.key} class="error">
          <bdi>
            {c.kind} {c.key} moved since: version {c.baseVersion ?? 'none'} → {c.currentVersion ?? 'none'}
          </bdi>
        </p>
      ))}
      <h3>Changes</h3>
      <ul class="plain-list">
        {(r.preview ?? r.changes).map((c) => (
          <li key={c.key}>
            <strong>
              {c.action} {c.kind} <bdi class="mono">{c.key}</bdi>
            </strong>
            {'changes' in c && (
              <ChangeList
                changes={c.changes.map((f) => ({
                  field: f.field,
                  name: fieldName(f.field),
                  lines: isCounted(f)
                    ? countedChanges(f)
                    : fieldChanges(f.field, f.from, f.to, c.kind === 'segment'),
                }))}
              />
            )}
          </li>
        ))}
      </ul>
      <h3>Reviews</h3>
      {r.reviews.length === 0 && <p class="empty">None.</p>}
      <ul>
        {r.reviews.map((v) => (
          <li key={v.actor.id}>
            <strong>
              <bdi>{actorText(v.actor)}</bdi> {v.decision === 'approve' ? 'approved' : 'rejected'}
            </strong>{' '}
            {zoned(v.at)}
            {v.comment && <p class="user-text">{v.comment}</p>}
          </li>
        ))}
      </ul>
      {editor.ok && !DONE.includes(r.state) && (
        <section class="panel stack" aria-label="Act on this request">
          {!mine && (
            <>
              <Field label="Comment (optional)" value={comment} set={setComment} type="area" />
              <div class="actions">
                {['Approve', 'Reject'].map((label) =>
                  button(
                    label,
                    () =>
                      act('reviews', {
                        decision: label.toLowerCase(),
                        ...(comment.trim() && { comment }),
                      }).then((done) => done && setComment('')),
                    true,
                  ),
                )}
              </div>
            </>
          )}
          <WhenField label="Apply at" value={when} set={setWhen} />
          <div class="actions">
            {button('Schedule', () => act('schedule', { at }), at)}
            {button(
              'Apply now',
              () => act('apply'),
              r.approvals.received >= r.approvals.required && r.state !== 'open' && r.state !== 'rejected',
            )}
            {button('Rebase', () => act('', { rebase: true }, 'PATCH'), mine && r.conflicts?.length)}
            {button('Withdraw', () => act('', undefined, 'DELETE'), mine)}
          </div>
          <ErrorText message={error} />
        </section>
      )}
    </>
  );
}
