/**
 * `#/env/P/E/flags`: the environment's flags, created (the form comes first), filtered, changed in
 * place (shown at once, rolled back when the server does not take it), deleted. With usage
 * (`docs/protocol.md` §13.7, read again whenever the list is): when each was last evaluated, its
 * last 24 hours, why it is stale; filtered to stale flags, or to keys evaluated that are not flags.
 */
import { useId, useState } from 'preact/hooks';
import { ApiError, api, CHANGED_ELSEWHERE, envApi, ifMatch } from '../api.js';
import { Dialog } from '../components/dialog.js';
import { Behind, EmptyState, ErrorText, focusById, TableWrap } from '../components/page-parts.js';
import { RoleNote } from '../components/role-note.js';
import { useEnvChanges } from '../events.js';
import { useResource } from '../resource.js';
import { type FlagUsage, usageRead } from '../usage/api.js';
import { useNow } from '../usage/relative-time.js';
import { UnknownKeys } from '../usage/unknown-keys.js';
import { useAction } from '../use-action.js';
import { useDirect } from './changes.js';
import { FlagRow } from './flag-row.js';
import { NewFlagForm } from './new-flag.js';
import { type ListedFlag, useOptimisticPatch } from './optimistic-patch.js';

type StateFilter = 'all' | 'on' | 'off';
type UsageFilter = 'all' | 'stale' | 'unknown';

const NEW_FLAG_KEY_ID = 'new-flag-key';

export function FlagsScreen({ project, env }: { project: string; env: string }) {
  const id = useId();
  const base = envApi(project, env, 'flags');
  const flags = useResource(() => api<ListedFlag[]>(base), base);
  const usagePath = envApi(project, env, 'usage', 'flags');
  const usage = useResource(() => usageRead<FlagUsage[]>(usagePath), usagePath);
  const reload = () => {
    flags.reload();
    usage.reload();
  };
  useEnvChanges(`${project}/${env}`, reload);
  const now = useNow();
  const [query, setQuery] = useState('');
  const [state, setState] = useState<StateFilter>('all');
  const [used, setUsed] = useState<UsageFilter>('all');
  const [editing, setEditing] = useState<string>();
  /** The flag being deleted, as shown when its dialog opened. */
  const [deleting, setDeleting] = useState<ListedFlag>();
  const patch = useOptimisticPatch(project, env, flags);
  // Where changes need approval, no quick changes: a flag's page requests them.
  const editor = useDirect(project, env);

  const stopEditing = (key: string) => {
    setEditing(undefined);
    requestAnimationFrame(() => document.getElementById(`edit-${key}`)?.focus());
  };

  const list = flags.data;
  // Usage off (`null`) or not loaded: no usage columns or filter.
  const usageOf = usage.data && new Map(usage.data.map((u) => [u.key, u]));
  const staleCount = usage.data?.filter((u) => u.stale).length ?? 0;
  const q = query.trim().toLowerCase();
  const shown = list?.filter(
    (f) =>
      (state === 'all' || (state === 'on') === f.enabled) &&
      (used !== 'stale' || !!usageOf?.get(f.key)?.stale) &&
      (q === '' || f.key.toLowerCase().includes(q) || (f.description ?? '').toLowerCase().includes(q)),
  );

  return (
    <>
      <h2>Flags</h2>
      <Behind dialogOpen={deleting !== undefined}>
        <RoleNote allowed={editor} what="Creating, switching, editing and deleting flags" />
        {list && editor.ok && (
          <NewFlagForm
            path={base}
            keyId={NEW_FLAG_KEY_ID}
            taken={list.map((f) => f.key)}
            onCreated={(flag) => {
              flags.mutate((l) => [...l.filter((f) => f.key !== flag.key), flag].sort(byKey));
              reload();
            }}
          />
        )}
        <ErrorText message={usage.error && `Could not load usage: ${usage.error}`} />
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
            {usageOf && (
              <div class="field">
                <label for={`${id}-u`}>Usage</label>
                <select
                  id={`${id}-u`}
                  value={used}
                  onChange={(e) => setUsed(e.currentTarget.value as UsageFilter)}
                >
                  <option value="all">Any</option>
                  <option value="stale">Stale flags ({staleCount})</option>
                  <option value="unknown">Keys evaluated that are not flags</option>
                </select>
              </div>
            )}
          </div>
        )}
        {usageOf && used === 'unknown' ? (
          <UnknownKeys project={project} env={env} now={now} />
        ) : !list || !shown ? (
          !flags.error && <p>Loading…</p>
        ) : list.length === 0 ? (
          <EmptyState text="No flags yet. A flag is a switch your app asks about; start with one.">
            {editor.ok && (
              <button type="button" class="primary" onClick={() => focusById(NEW_FLAG_KEY_ID)}>
                Create the first flag
              </button>
            )}
          </EmptyState>
        ) : shown.length === 0 ? (
          <EmptyState text="No flags match the search and filters chosen.">
            <button
              type="button"
              onClick={() => {
                setQuery('');
                setState('all');
                setUsed('all');
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
                  {usageOf && (
                    <>
                      <th scope="col">Last evaluated</th>
                      <th scope="col">Last 24 h</th>
                    </>
                  )}
                  <th scope="col">Description</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {shown.map((flag) => (
                  <FlagRow
                    key={flag.key}
                    flag={flag}
                    usage={usageOf ? (usageOf.get(flag.key) ?? null) : undefined}
                    now={now}
                    editing={editing === flag.key}
                    onEdit={() => setEditing(flag.key)}
                    onStopEditing={() => stopEditing(flag.key)}
                    onPatch={(change, began) => patch(flag.key, change, began)}
                    onDelete={() => setDeleting(flag)}
                    readOnly={editor.reason}
                  />
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
      </Behind>
      {deleting !== undefined && (
        <DeleteFlagDialog
          path={envApi(project, env, 'flags', deleting.key)}
          flagKey={deleting.key}
          version={deleting.version}
          onClose={() => setDeleting(undefined)}
          onMoved={reload}
          onDeleted={() => {
            flags.mutate((l) => l.filter((f) => f.key !== deleting.key));
            setDeleting(undefined);
            reload();
          }}
        />
      )}
    </>
  );
}

const byKey = (a: ListedFlag, b: ListedFlag) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

interface DeleteProps {
  path: string;
  flagKey: string;
  /** The version shown: what is deleted (`If-Match`). */
  version: number | undefined;
  onClose: () => void;
  /** It was changed elsewhere meanwhile (`412`): not deleted. */
  onMoved: () => void;
  onDeleted: () => void;
}

function DeleteFlagDialog({ path, flagKey, version, onClose, onMoved, onDeleted }: DeleteProps) {
  const id = useId();
  const [typed, setTyped] = useState('');
  const { busy, error, run } = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    if (typed !== flagKey) return;
    await run(async () => {
      try {
        await api(path, { method: 'DELETE', headers: ifMatch(version) });
      } catch (err) {
        if (!(err instanceof ApiError && err.status === 412)) throw err;
        onMoved();
        throw new Error(`Not deleted: ${CHANGED_ELSEWHERE}`);
      }
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
