/** `#/env/P/E/webhooks`: the environment's webhooks, their deliveries and secrets. */
import { useState } from 'preact/hooks';
import { api, envApi, messageOf } from '../api.js';
import { ConfirmDialog } from '../components/confirm.js';
import { Behind, CellLabel, ErrorText, TableWrap } from '../components/page-parts.js';
import { RoleNote } from '../components/role-note.js';
import { SecretPanel } from '../components/secret-panel.js';
import { Switch } from '../components/switch.js';
import { useResource } from '../resource.js';
import { useCan } from '../roles.js';
import type { Webhook } from '../types.js';
import { Deliveries } from './deliveries.js';
import { EditEventsDialog, NewWebhookForm } from './webhook-forms.js';

type Open = { kind: 'events' | 'delete' | 'rotate'; hook: Webhook };

export function WebhooksScreen({ project, env }: { project: string; env: string }) {
  const base = envApi(project, env, 'webhooks');
  const at = (hook: Webhook, ...rest: string[]) => envApi(project, env, 'webhooks', hook.id, ...rest);
  const hooks = useResource(() => api<Webhook[]>(base), base);
  const [dialog, setDialog] = useState<Open>();
  const [secret, setSecret] = useState<{ title: string; value: string }>();
  const [watching, setWatching] = useState<{ hook: Webhook; focus: boolean }>();
  const [refresh, setRefresh] = useState(0);
  const [status, setStatus] = useState('');
  const [error, setError] = useState<string>();
  const editor = useCan(project, 'editor');
  const locked = editor.reason;

  const run = async (work: () => Promise<unknown>) => {
    try {
      await work();
      setError(undefined);
    } catch (err) {
      setError(messageOf(err));
      setStatus('');
    }
    hooks.reload();
  };
  const patch = (hook: Webhook, body: Partial<Pick<Webhook, 'active' | 'events'>>) =>
    api<Webhook>(at(hook), { method: 'PATCH', body }).then((updated) =>
      hooks.mutate((list) => list.map((h) => (h.id === hook.id ? updated : h))),
    );
  const setActive = (hook: Webhook, active: boolean) => {
    hooks.mutate((list) => list.map((h) => (h.id === hook.id ? { ...h, active } : h)));
    run(() => patch(hook, { active }));
  };
  const sendTest = (hook: Webhook) =>
    run(async () => {
      await api(at(hook, 'test'), { method: 'POST' });
      setStatus('Test event queued');
      setWatching((w) => (w?.hook.id === hook.id ? w : { hook, focus: false }));
      setRefresh((n) => n + 1);
    });

  const list = hooks.data;
  const shownWatching = watching && list?.find((h) => h.id === watching.hook.id);
  return (
    <>
      <h2>Webhooks</h2>
      <Behind dialogOpen={dialog !== undefined}>
        <RoleNote allowed={editor} what="Adding, changing, testing and deleting webhooks" />
        <ErrorText message={error ?? hooks.error} />
        <p role="status" class="ok">
          {status}
        </p>
        {secret && (
          <SecretPanel
            title={secret.title}
            value={secret.value}
            valueLabel="Webhook secret value"
            copyLabel="Copy secret"
            note="This secret is shown once."
            onDone={() => setSecret(undefined)}
          />
        )}
        {!list ? (
          !hooks.error && <p>Loading…</p>
        ) : list.length === 0 ? (
          <p class="empty">No webhooks yet</p>
        ) : (
          <TableWrap label="Webhooks" cards>
            <table>
              <thead>
                <tr>
                  <th scope="col">URL</th>
                  <th scope="col">Events</th>
                  <th scope="col">Active</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {list.map((hook) => (
                  <tr key={hook.id}>
                    <td class="url key">
                      <bdi>{hook.url}</bdi>
                    </td>
                    <td>
                      <CellLabel text="Events" />
                      {hook.events.join(', ')}
                    </td>
                    <td>
                      <CellLabel text="Active" />
                      <Switch
                        label={`Active: ${hook.url}`}
                        checked={hook.active}
                        disabled={!editor.ok}
                        title={locked}
                        onChange={(on) => setActive(hook, on)}
                      />
                    </td>
                    <td class="buttons row-actions">
                      <Act
                        label="Edit events"
                        url={hook.url}
                        locked={locked}
                        onClick={() => setDialog({ kind: 'events', hook })}
                      />
                      <Act
                        label="Deliveries"
                        url={hook.url}
                        onClick={() => setWatching({ hook, focus: true })}
                      />
                      <Act label="Send test" url={hook.url} locked={locked} onClick={() => sendTest(hook)} />
                      <Act
                        label="Rotate secret"
                        url={hook.url}
                        locked={locked}
                        onClick={() => setDialog({ kind: 'rotate', hook })}
                      />
                      <Act
                        label="Delete webhook"
                        text="Delete"
                        url={hook.url}
                        locked={locked}
                        danger
                        onClick={() => setDialog({ kind: 'delete', hook })}
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
        {shownWatching && (
          <Deliveries
            key={shownWatching.id}
            project={project}
            env={env}
            hook={shownWatching}
            refresh={refresh}
            focus={watching.focus}
            onClose={() => setWatching(undefined)}
          />
        )}
        {editor.ok && (
          <NewWebhookForm
            path={base}
            covered={dialog?.kind === 'events'}
            onCreated={(created) => {
              setSecret({ title: 'Webhook signing secret', value: created.secret });
              hooks.reload();
            }}
          />
        )}
      </Behind>
      {dialog?.kind === 'events' && (
        <EditEventsDialog
          url={dialog.hook.url}
          initial={dialog.hook.events}
          save={(events) => patch(dialog.hook, { events })}
          onClose={() => setDialog(undefined)}
        />
      )}
      {dialog?.kind === 'delete' && (
        <ConfirmDialog
          title={`Delete webhook ${dialog.hook.url}?`}
          confirmLabel="Delete webhook"
          danger
          action={async () => {
            await api(at(dialog.hook), { method: 'DELETE' });
            hooks.mutate((l) => l.filter((h) => h.id !== dialog.hook.id));
            hooks.reload();
          }}
          onClose={() => setDialog(undefined)}
        />
      )}
      {dialog?.kind === 'rotate' && (
        <ConfirmDialog
          title={`Rotate the secret of ${dialog.hook.url}?`}
          text="The old secret keeps signing for 24 hours."
          confirmLabel="Rotate secret"
          action={async () => {
            const answer = await api<{ secret: string }>(at(dialog.hook, 'rotate-secret'), {
              method: 'POST',
            });
            setSecret({ title: 'New signing secret', value: answer.secret });
          }}
          onClose={() => setDialog(undefined)}
        />
      )}
    </>
  );
}

interface ActProps {
  label: string;
  url: string;
  text?: string;
  danger?: boolean;
  /** Why the role may not use it, when it may not. */
  locked?: string | undefined;
  onClick: () => void;
}

/** A row action: visible `text`, named `label: URL` for assistive technology. */
function Act({ label, url, text, danger, locked, onClick }: ActProps) {
  return (
    <button
      type="button"
      class={danger ? 'small danger' : 'small'}
      aria-label={`${label}: ${url}`}
      disabled={locked !== undefined}
      title={locked}
      onClick={onClick}
    >
      {text ?? label}
    </button>
  );
}
