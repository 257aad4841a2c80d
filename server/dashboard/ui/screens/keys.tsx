/** `#/env/P/E/keys`: the environment's API keys; create one (shown once) or revoke one. */
import { useId, useState } from 'preact/hooks';
import { api, envApi } from '../api.js';
import { Behind, ErrorText, TableWrap } from '../components/bits.js';
import { ConfirmDialog } from '../components/confirm.js';
import { SecretPanel } from '../components/secret-panel.js';
import { useStructureChanges } from '../events.js';
import { dateTime, sourceText } from '../format.js';
import { useResource } from '../resource.js';
import type { ApiKeyView } from '../types.js';
import { useAction } from '../use-action.js';

export function KeysScreen({ project, env }: { project: string; env: string }) {
  const base = envApi(project, env, 'keys');
  const keys = useResource(() => api<ApiKeyView[]>(base), base);
  useStructureChanges(keys.reload);
  const [revoking, setRevoking] = useState<ApiKeyView>();
  const [created, setCreated] = useState<string>();
  const list = keys.data;

  return (
    <>
      <h2>API keys</h2>
      <Behind dialogOpen={revoking !== undefined}>
        <ErrorText message={keys.error} />
        {created !== undefined && (
          <SecretPanel
            title="New API key"
            value={created}
            valueLabel="New API key value"
            copyLabel="Copy key"
            note="This key is shown once. Store it now."
            onDone={() => setCreated(undefined)}
          />
        )}
        {!list ? (
          !keys.error && <p>Loading…</p>
        ) : list.length === 0 ? (
          <p class="empty">No API keys</p>
        ) : (
          <TableWrap label="API keys">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Key</th>
                  <th scope="col">Access</th>
                  <th scope="col">Source</th>
                  <th scope="col">Created</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {list.map((k) => (
                  <tr key={k.id}>
                    <td>{k.name ?? '—'}</td>
                    <td class="mono nowrap">{k.hint}</td>
                    <td>{k.access}</td>
                    <td>{sourceText(k.source)}</td>
                    <td>{dateTime(k.createdAt)}</td>
                    {/* Named as its column, not by its button, so finding a cell by the key's name finds one. */}
                    <td aria-label={k.revocable ? 'Actions' : undefined}>
                      {k.revocable ? (
                        <button
                          type="button"
                          class="small danger"
                          aria-label={`Revoke ${k.name || k.hint}`}
                          onClick={() => setRevoking(k)}
                        >
                          Revoke
                        </button>
                      ) : (
                        'Managed by the config file'
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
        <NewKeyForm
          path={base}
          onCreated={(key) => {
            setCreated(key);
            keys.reload();
          }}
        />
      </Behind>
      {revoking && (
        <ConfirmDialog
          title={`Revoke key ${revoking.hint}?`}
          text="Apps using it stop at once."
          confirmLabel="Revoke key"
          danger
          action={async () => {
            await api(envApi(project, env, 'keys', revoking.id), { method: 'DELETE' });
            keys.reload();
          }}
          onClose={() => setRevoking(undefined)}
        />
      )}
    </>
  );
}

function NewKeyForm({ path, onCreated }: { path: string; onCreated: (key: string) => void }) {
  const id = useId();
  const [name, setName] = useState('');
  const [access, setAccess] = useState<'full' | 'read-only' | 'client'>('read-only');
  const { busy, error, run } = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    await run(async () => {
      const body = name.trim() === '' ? { access } : { access, name: name.trim() };
      const created = await api<ApiKeyView & { key: string }>(path, { method: 'POST', body });
      setName('');
      onCreated(created.key);
    });
  };
  return (
    <section class="panel" aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`}>Create a key</h3>
      <form onSubmit={submit} class="row">
        <div class="field grow">
          <label for={`${id}-n`}>Key name</label>
          <input
            id={`${id}-n`}
            type="text"
            maxLength={100}
            autocomplete="off"
            aria-describedby={`${id}-nh`}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
          <small id={`${id}-nh`} class="hint">
            Optional, e.g. "checkout service".
          </small>
        </div>
        <div class="field">
          <label for={`${id}-a`}>Access</label>
          <select
            id={`${id}-a`}
            value={access}
            aria-describedby={`${id}-ah`}
            onChange={(e) => setAccess(e.currentTarget.value as 'full' | 'read-only' | 'client')}
          >
            <option value="full">full</option>
            <option value="read-only">read-only</option>
            <option value="client">client (OFREP only)</option>
          </select>
          <small id={`${id}-ah`} class="hint">
            client: for browser pages, evaluates through OFREP and never sees the rules.
          </small>
        </div>
        <button type="submit" class="primary" disabled={busy}>
          Create key
        </button>
        <ErrorText message={error} />
      </form>
    </section>
  );
}
