/**
 * "Copy flags to…" (`docs/protocol.md` §10.3): choose the target and the flags, see what the copy
 * would do (created, changed with the fields, unchanged, conflicts; segments created or kept),
 * then copy. The copy carries the revisions the preview showed: if either environment moved
 * meanwhile the server refuses, and the preview is shown again as it is now.
 */

import { useId, useState } from 'preact/hooks';
import type {
  CopyFlagsApplyInput,
  CopyFlagsInput,
  CopyPreview,
  FlagCopy,
} from '../../src/core/admin-wire.js';
import { api, envApi } from '../api.js';
import { Dialog } from '../components/dialog.js';
import { ErrorText, TableWrap } from '../components/page-parts.js';
import { jsonish } from '../format.js';
import { useResource } from '../resource.js';
import { envHref } from '../route.js';
import { countedChanges, isCounted } from '../targeting/diff.js';
import type { EnvView, Flag } from '../types.js';
import { useAction } from '../use-action.js';

interface Props {
  from: EnvView;
  /** Every other environment, where the flags may go. */
  targets: readonly EnvView[];
  onClose: () => void;
}

const nameOf = (env: Pick<EnvView, 'project' | 'key'>) => `${env.project}/${env.key}`;
const RESULT: Record<FlagCopy['status'], string> = {
  created: 'created',
  changed: 'changed',
  unchanged: 'unchanged',
  conflict: 'cannot be copied',
};

export function CopyFlagsDialog({ from, targets, onClose }: Props) {
  const source = nameOf(from);
  // Most often promoted within a project (staging to production): one of the same project first.
  const first = targets.find((env) => env.project === from.project) ?? targets[0];
  const [to, setTo] = useState(first ? nameOf(first) : '');
  const [chosen, setChosen] = useState<string[] | undefined>(undefined);
  const [preview, setPreview] = useState<CopyPreview>();
  const [done, setDone] = useState<CopyPreview>();
  const { busy, error, setError, run } = useAction();
  const flagsPath = envApi(from.project, from.key, 'flags');
  const flags = useResource(() => api<Flag[]>(flagsPath), flagsPath);
  const keys = (flags.data ?? []).map((f) => f.key).sort();
  const selected = chosen ?? keys;

  const ask = (list: readonly string[]) =>
    api<CopyPreview>('/admin/api/copy-flags/preview', {
      method: 'POST',
      body: { from: source, to, flags: list } satisfies CopyFlagsInput,
    }).then(setPreview);
  const showPreview = () => run(() => ask(selected));
  const apply = async () => {
    if (!preview) return;
    const list = preview.flags.map((f) => f.key);
    const ok = await run(async () => {
      const body: CopyFlagsApplyInput = {
        from: source,
        to,
        flags: list,
        expectedRevision: preview.to.revision,
        expectedSourceRevision: preview.from.revision,
      };
      setDone(await api<CopyPreview>('/admin/api/copy-flags', { method: 'POST', body }));
    });
    if (ok) return;
    // Something moved since the preview: show it as it is now, with the reason.
    await ask(list).catch(() => {});
  };
  const leaveOut = () => {
    if (!preview) return;
    const kept = preview.flags.filter((f) => f.status !== 'conflict').map((f) => f.key);
    setChosen(kept);
    if (kept.length > 0) void run(() => ask(kept));
    else setPreview(undefined);
  };

  if (done) {
    const written = done.flags.filter((f) => f.status === 'created' || f.status === 'changed').length;
    const target = { project: done.to.project, key: done.to.environment };
    return (
      <Dialog title={`Copy flags from ${source}`} onClose={onClose}>
        <p role="status" class="ok">
          {written === 0
            ? `Nothing to copy: ${nameOf(target)} already has these flags as they are.`
            : `Copied ${written} ${written === 1 ? 'flag' : 'flags'} to ${nameOf(target)}.`}
        </p>
        <div class="actions">
          <a href={envHref(target.project, target.key, 'flags')} onClick={onClose}>
            Open the flags of {nameOf(target)}
          </a>
          <button type="button" class="primary" onClick={onClose}>
            Done
          </button>
        </div>
      </Dialog>
    );
  }

  return (
    <Dialog title={`Copy flags from ${source}`} onClose={onClose}>
      <div class="copy-flags">
        {!preview ? (
          <Choose
            to={to}
            targets={targets}
            keys={keys}
            loading={!flags.data && !flags.error}
            selected={selected}
            onTo={setTo}
            onSelect={(list) => {
              setChosen(list);
              setError(undefined);
            }}
          />
        ) : (
          <PreviewTable preview={preview} />
        )}
        <ErrorText message={error ?? flags.error} />
        <div class="actions">
          {!preview ? (
            <button
              type="button"
              class="primary"
              disabled={busy || to === '' || selected.length === 0}
              onClick={showPreview}
            >
              Preview the copy
            </button>
          ) : (
            <PreviewActions preview={preview} busy={busy} onApply={apply} onLeaveOut={leaveOut} />
          )}
          {preview && (
            <button type="button" onClick={() => setPreview(undefined)}>
              Back
            </button>
          )}
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </div>
    </Dialog>
  );
}

interface ChooseProps {
  to: string;
  targets: readonly EnvView[];
  keys: readonly string[];
  loading: boolean;
  selected: readonly string[];
  onTo: (to: string) => void;
  onSelect: (keys: string[]) => void;
}

function Choose({ to, targets, keys, loading, selected, onTo, onSelect }: ChooseProps) {
  const id = useId();
  const all = keys.length > 0 && selected.length === keys.length;
  const toggle = (key: string, on: boolean) =>
    onSelect(on ? keys.filter((k) => k === key || selected.includes(k)) : selected.filter((k) => k !== key));
  return (
    <>
      <div class="field">
        <label for={id}>Copy to</label>
        <select id={id} value={to} onChange={(e) => onTo(e.currentTarget.value)}>
          {targets.map((env) => (
            <option key={nameOf(env)} value={nameOf(env)}>
              {nameOf(env)}
            </option>
          ))}
        </select>
      </div>
      {loading ? (
        <p>Loading…</p>
      ) : keys.length === 0 ? (
        <p class="empty">This environment has no flags to copy yet.</p>
      ) : (
        <fieldset>
          <legend>Flags to copy</legend>
          <label class="check">
            <input
              type="checkbox"
              checked={all}
              onChange={(e) => onSelect(e.currentTarget.checked ? [...keys] : [])}
            />
            All flags ({keys.length})
          </label>
          {keys.map((key) => (
            <label key={key} class="check">
              <input
                type="checkbox"
                checked={selected.includes(key)}
                onChange={(e) => toggle(key, e.currentTarget.checked)}
              />
              <span class="mono">{key}</span>
            </label>
          ))}
        </fieldset>
      )}
    </>
  );
}

function PreviewTable({ preview }: { preview: CopyPreview }) {
  const count = (status: FlagCopy['status']) => preview.flags.filter((f) => f.status === status).length;
  const target = `${preview.to.project}/${preview.to.environment}`;
  return (
    <>
      <p role="status">
        Into <strong class="mono">{target}</strong>: {count('created')} created, {count('changed')} changed,{' '}
        {count('unchanged')} unchanged
        {count('conflict') > 0 && `, ${count('conflict')} cannot be copied`}.
      </p>
      <TableWrap label="What the copy would do">
        <table>
          <thead>
            <tr>
              <th scope="col">Flag</th>
              <th scope="col">Result</th>
              <th scope="col">Changes</th>
            </tr>
          </thead>
          <tbody>
            {preview.flags.map((flag) => (
              <tr key={flag.key}>
                <td class="mono">{flag.key}</td>
                <td class={flag.status === 'conflict' ? 'problem' : undefined}>{RESULT[flag.status]}</td>
                <td>
                  {flag.reason ? (
                    <span class="problem">{flag.reason}</span>
                  ) : (
                    <ul class="changes">
                      {flag.changes.map((c) => (
                        <li key={c.field}>
                          {c.field}:{' '}
                          {isCounted(c)
                            ? countedChanges(c).join('; ')
                            : `${jsonish(c.from)} → ${jsonish(c.to)}`}
                        </li>
                      ))}
                    </ul>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      {preview.segments.length > 0 && (
        <ul>
          {preview.segments.map((s) => (
            <li key={s.key}>
              Segment <span class="mono">{s.key}</span>:{' '}
              {s.status === 'created'
                ? 'copied with the flags'
                : s.differs
                  ? `${target} keeps its own, which differs`
                  : `${target} has the same one`}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

interface PreviewActionsProps {
  preview: CopyPreview;
  busy: boolean;
  onApply: () => void;
  onLeaveOut: () => void;
}

function PreviewActions({ preview, busy, onApply, onLeaveOut }: PreviewActionsProps) {
  const conflicts = preview.flags.some((f) => f.status === 'conflict');
  const writes = preview.flags.filter((f) => f.status === 'created' || f.status === 'changed').length;
  const target = `${preview.to.project}/${preview.to.environment}`;
  if (conflicts)
    return (
      <button type="button" class="primary" disabled={busy} onClick={onLeaveOut}>
        Leave out what cannot be copied
      </button>
    );
  return (
    <button type="button" class="primary" disabled={busy || writes === 0} onClick={onApply}>
      {writes === 0 ? 'Nothing to copy' : `Copy ${writes} ${writes === 1 ? 'flag' : 'flags'} to ${target}`}
    </button>
  );
}
