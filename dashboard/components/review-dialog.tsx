/**
 * "Review changes" before a save: each field that changes, said in sentences (rules added,
 * moved or changed, keys added and removed, what is served), then Save or go back to editing.
 * A refusal is shown in the dialog; one that names a JSON path is also shown at its control,
 * by the caller (`onSave` resolves to the failure's message, or `undefined` when saved).
 */
import type { ComponentChildren } from 'preact';
import type { FieldChange } from '../targeting/diff.js';
import { useAction } from '../use-action.js';
import { Dialog } from './dialog.js';
import { ErrorText } from './page-parts.js';

interface Props {
  title: string;
  changes: readonly FieldChange[];
  /** Said above the changes (e.g. that the saved version changed since the edit began). */
  note?: string | undefined;
  saveLabel: string;
  onSave: () => Promise<string | undefined>;
  onClose: () => void;
  /** More to fill in, under the changes (a change request's title). */
  children?: ComponentChildren;
}

/** Changes, each field named with its sentences. */
export function ChangeList({ changes }: { changes: readonly FieldChange[] }) {
  return (
    <ul class="review">
      {changes.map((c) => (
        <li key={c.field}>
          <strong>{c.name}</strong>
          <ul>
            {c.lines.map((line, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the lines of one change, in order
              <li key={i}>
                <bdi>{line}</bdi>
              </li>
            ))}
          </ul>
        </li>
      ))}
    </ul>
  );
}

export function ReviewDialog({ title, changes, note, saveLabel, onSave, onClose, children }: Props) {
  const { busy, error, run } = useAction();
  const save = () =>
    run(async () => {
      const problem = await onSave();
      if (problem !== undefined) throw new Error(`Not saved: ${problem}`);
    });
  return (
    <Dialog title={title} onClose={onClose}>
      {note && <p class="hint">{note}</p>}
      <ChangeList changes={changes} />
      {children}
      <ErrorText message={error} />
      <div class="actions">
        <button type="button" class="primary" disabled={busy} onClick={save}>
          {saveLabel}
        </button>
        <button type="button" autofocus onClick={onClose}>
          Keep editing
        </button>
      </div>
    </Dialog>
  );
}
