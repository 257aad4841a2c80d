/**
 * `#/env/P/E/flags`: the environment's flags, created (the form comes first), filtered, changed in
 * place (shown at once, rolled back when the server does not take it), deleted.
 */
import { useId, useState } from 'preact/hooks';
import { api, envApi } from '../api.js';
import { Behind, EmptyState, ErrorText, focusById, TableWrap } from '../components/bits.js';
import { Dialog } from '../components/dialog.js';
import { useEnvChanges } from '../events.js';
import { useResource } from '../resource.js';
import type { Flag } from '../types.js';
import { useAction } from '../use-action.js';
import { FlagRow } from './flag-row.js';
import { NewFlagForm } from './new-flag.js';
import { useOptimisticPatch } from './optimistic-patch.js';

type StateFilter = 'all' | 'on' | 'off';

const NEW_FLAG_KEY_ID = 'new-flag-key';

export function FlagsScreen({ project, env }: { project: string; env: string }) {
  const id = useId();
  const base = envApi(project, env, 'flags');
  const flags = useResource(() => api<Flag[]>(base), base);
  useEnvChanges(`${project}/${env}`, flags.reload);
  const [query, setQuery] = useState('');
  const [state, setState] = useState<StateFilter>('all');
  const [editing, setEditing] = useState<string>();
  const [deleting, setDeleting] = useState<string>();
  const patch = useOptimisticPatch(project, env, flags);

  const stopEditing = (key: string) => {
    setEditing(undefined);
    requestAnimationFrame(() => document.getElementById(`edit-${key}`)?.focus());
  };

  const list = flags.data;
  const q = query.trim().toLowerCase();
  const shown = list?.filter(
    (f) =>
      (state === 'all' || (state === 'on') === f.enabled) &&
      (q === '' || f.key.toLowerCase().includes(q) || (f.description ?? '').toLowerCase().includes(q)),
  );

  return (
    <>
      <h2>Flags</h2>
      <Behind dialogOpen={deleting !== undefined}>
        {list && (
          <NewFlagForm
            path={base}
            keyId={NEW_FLAG_KEY_ID}
            taken={list.map((f) => f.key)}
            onCreated={(flag) => {
              flags.mutate((l) => [...l.filter((f) => f.key !== flag.key), flag].sort(byKey));
              flags.reload();
            }}
          />
        )}
        <ErrorText
          message={
            flags.error &&
            (list ? `Could not refresh the flags: ${flags.error} The list may be out of date.` : flags.error)
          }
        />
        {list && list.length > 0 && (
          <div class="row filters">
            <div class="field grow">
              <label for={`${id}-q`}>Search flags</label>
              <input
                id={`${id}-q`}
                type="search"
                value={query}
                onInput={(e) => setQuery(e.currentTarget.value)}
              />
            </div>
            <div class="field">
              <label for={`${id}-s`}>State</label>
              <select
                id={`${id}-s`}
                value={state}
                onChange={(e) => setState(e.currentTarget.value as StateFilter)}
              >
                <option value="all">All</option>
                <option value="on">Enabled</option>
                <option value="off">Disabled</option>
              </select>
            </div>
          </div>
        )}
        {!list || !shown ? (
          !flags.error && <p>Loading…</p>
        ) : list.length === 0 ? (
          <EmptyState text="No flags yet. A flag is a switch your app asks about; start with one.">
            <button type="button" class="primary" onClick={() => focusById(NEW_FLAG_KEY_ID)}>
              Create the first flag
            </button>
          </EmptyState>
        ) : shown.length === 0 ? (
          <EmptyState text="No flags match the search and state chosen.">
            <button
              type="button"
              onClick={() => {
                setQuery('');
                setState('all');
              }}
            >
              Show all flags
            </button>
          </EmptyState>
        ) : (
          <TableWrap label="Flags" cards>
            <table class="flags">
              <thead>
                <tr>
                  <th scope="col">Flag</th>
                  <th scope="col">Type</th>
                  <th scope="col">State</th>
                  <th scope="col">Rollout</th>
                  <th scope="col">Description</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {shown.map((flag) => (
                  <FlagRow
                    key={flag.key}
                    flag={flag}
                    editing={editing === flag.key}
                    onEdit={() => setEditing(flag.key)}
                    onStopEditing={() => stopEditing(flag.key)}
                    onPatch={(change) => patch(flag.key, change)}
                    onDelete={() => setDeleting(flag.key)}
                  />
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
      </Behind>
      {deleting !== undefined && (
        <DeleteFlagDialog
          path={envApi(project, env, 'flags', deleting)}
          flagKey={deleting}
          onClose={() => setDeleting(undefined)}
          onDeleted={() => {
            flags.mutate((l) => l.filter((f) => f.key !== deleting));
            setDeleting(undefined);
            flags.reload();
          }}
        />
      )}
    </>
  );
}

const byKey = (a: Flag, b: Flag) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

interface DeleteProps {
  path: string;
  flagKey: string;
  onClose: () => void;
  onDeleted: () => void;
}

function DeleteFlagDialog({ path, flagKey, onClose, onDeleted }: DeleteProps) {
  const id = useId();
  const [typed, setTyped] = useState('');
  const { busy, error, run } = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    if (typed !== flagKey) return;
    await run(async () => {
      await api(path, { method: 'DELETE' });
      onDeleted();
    });
  };
  return (
    <Dialog title={`Delete flag ${flagKey}?`} onClose={onClose}>
      <form onSubmit={submit}>
        <p>
          Type <strong class="mono">{flagKey}</strong> to confirm.
        </p>
        <div class="field">
          <label for={id}>Flag key to delete</label>
          <input
            id={id}
            type="text"
            autocomplete="off"
            spellcheck={false}
            value={typed}
            onInput={(e) => setTyped(e.currentTarget.value)}
          />
        </div>
        <ErrorText message={error} />
        <div class="actions">
          <button type="submit" class="danger" disabled={busy || typed !== flagKey}>
            Delete flag
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
