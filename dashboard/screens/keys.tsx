/**
 * `#/env/P/E/keys`: the environment's API keys; create one (shown once) or revoke one. The form
 * comes first; on a phone each key is a card with its Revoke button in reach.
 */
import { useEffect, useId, useState } from 'preact/hooks';
import { api, envApi } from '../api.js';
import { CharCount, overBy } from '../components/char-count.js';
import { ConfirmDialog } from '../components/confirm.js';
import { SAVED_MS } from '../components/feedback.js';
import { LongText } from '../components/long-text.js';
import { Behind, CellLabel, EmptyState, ErrorText, focusById, TableWrap } from '../components/page-parts.js';
import { RoleNote } from '../components/role-note.js';
import { SecretPanel } from '../components/secret-panel.js';
import { useStructureChanges } from '../events.js';
import { dateTime, sourceText } from '../format.js';
import { useResource } from '../resource.js';
import { useCan } from '../roles.js';
import type { ApiKeyView, CreatedApiKey, KeyAccess, NewApiKeyInput } from '../types.js';
import { useAction } from '../use-action.js';

/** The longest key name the server takes (server/dashboard/validate.ts). */
const KEY_NAME_MAX_LENGTH = 100;
const KEY_NAME_ID = 'new-key-name';

export function KeysScreen({ project, env }: { project: string; env: string }) {
  const base = envApi(project, env, 'keys');
  const keys = useResource(() => api<ApiKeyView[]>(base), base);
  useStructureChanges(keys.reload);
  const [revoking, setRevoking] = useState<ApiKeyView>();
  const [created, setCreated] = useState<string>();
  const [revoked, setRevoked] = useState('');
  useEffect(() => {
    if (revoked === '') return;
    const timer = setTimeout(() => setRevoked(''), SAVED_MS);
    return () => clearTimeout(timer);
  }, [revoked]);
  const list = keys.data;
  const admin = useCan(project, 'admin');

  return (
    <>
      <h2>API keys</h2>
      <Behind dialogOpen={revoking !== undefined}>
        {created !== undefined ? (
          <SecretPanel
            title="New API key"
            value={created}
            valueLabel="New API key value"
            copyLabel="Copy key"
            note="This key is shown once. Store it now."
            onDone={() => setCreated(undefined)}
          />
        ) : admin.ok ? (
          <NewKeyForm
            path={base}
            onCreated={(key) => {
              setCreated(key);
              keys.reload();
            }}
          />
        ) : (
          <RoleNote allowed={admin} what="Creating and revoking API keys" />
        )}
        <ErrorText message={keys.error} />
        <p role="status" class="ok">
          {revoked}
        </p>
        {!list ? (
          !keys.error && <p>Loading…</p>
        ) : list.length === 0 ? (
          <EmptyState text="No API keys yet. An app needs one to read this environment's flags.">
            {admin.ok && (
              <button type="button" class="primary" onClick={() => focusById(KEY_NAME_ID)}>
                Create the first key
              </button>
            )}
          </EmptyState>
        ) : (
          <TableWrap label="API keys" cards>
            <table class="keys">
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
                    <td class="name">
                      {k.name ? <LongText text={k.name} limit={60} what="the key's name" /> : '—'}
                    </td>
                    <td class="mono nowrap">
                      <CellLabel text="Key" />
                      {k.hint}
                    </td>
                    <td>
                      <CellLabel text="Access" />
                      {k.access}
                      {k.bypassApprovals && ', bypasses approvals'}
                    </td>
                    <td>
                      <CellLabel text="Source" />
                      {sourceText(k.source)}
                    </td>
                    <td>
                      <CellLabel text="Created" />
                      {dateTime(k.createdAt)}
                    </td>
                    {/* Named as its column, not by its button, so finding a cell by the key's name finds one. */}
                    <td class="row-actions" aria-label={k.revocable ? 'Actions' : undefined}>
                      {k.revocable ? (
                        <button
                          type="button"
                          class="small danger"
                          aria-label={`Revoke ${k.name || k.hint}`}
                          disabled={!admin.ok}
                          title={admin.reason}
                          onClick={() => {
                            setRevoked('');
                            setRevoking(k);
                          }}
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
      </Behind>
      {revoking && (
        <ConfirmDialog
          title={`Revoke key ${revoking.hint}?`}
          text="Apps using it stop at once."
          confirmLabel="Revoke key"
          danger
          action={async () => {
            await api(envApi(project, env, 'keys', revoking.id), { method: 'DELETE' });
            setRevoked(`Key ${revoking.hint} revoked.`);
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
  const [access, setAccess] = useState<KeyAccess | 'bypass'>('read-only');
  const { busy, error, run } = useAction();
  const over = overBy(name.trim(), KEY_NAME_MAX_LENGTH) > 0;
  const submit = async (e: Event) => {
    e.preventDefault();
    if (over) return;
    await run(async () => {
      const body: NewApiKeyInput =
        access === 'bypass' ? { access: 'full', bypassApprovals: true } : { access };
      if (name.trim() !== '') body.name = name.trim();
      const created = await api<CreatedApiKey>(path, { method: 'POST', body });
      setName('');
      onCreated(created.key);
    });
  };
  return (
    <section class="panel" aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`}>Create a key</h3>
      <form onSubmit={submit} class="row">
        <div class="field grow">
          <label for={KEY_NAME_ID}>Key name</label>
          <input
            id={KEY_NAME_ID}
            type="text"
            autocomplete="off"
            aria-invalid={over ? 'true' : undefined}
            aria-describedby={`${id}-nh ${id}-nc`}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
          <small id={`${id}-nh`} class="hint">
            Optional, e.g. "checkout service".
          </small>
          <CharCount id={`${id}-nc`} text={name.trim()} max={KEY_NAME_MAX_LENGTH} />
        </div>
        <div class="field">
          <label for={`${id}-a`}>Access</label>
          <select
            id={`${id}-a`}
            value={access}
            aria-describedby={`${id}-ah`}
            onChange={(e) => setAccess(e.currentTarget.value as KeyAccess | 'bypass')}
          >
            <option value="full">full</option>
            <option value="bypass">full, bypasses approvals</option>
            <option value="read-only">read-only</option>
            <option value="client">client (OFREP only)</option>
          </select>
          <small id={`${id}-ah`} class="hint">
            client: for browser pages, evaluates through OFREP and never sees the rules. Bypassing approvals:
            for automation that writes where changes need review.
          </small>
        </div>
        <button type="submit" class="primary" disabled={busy || over}>
          Create key
        </button>
        <ErrorText message={error} />
      </form>
    </section>
  );
}
