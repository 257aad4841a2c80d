/**
 * Says that what is being edited was changed elsewhere (the API, another tab, a teammate) since
 * the edit began, what that change was, and offers the two ways on: reload the saved version
 * (the edit is dropped) or keep editing (the edit goes on from the new version; the review
 * before saving shows everything it would change). Nothing is overwritten without a choice.
 */
import type { FieldChange } from '../targeting/diff.js';

interface Props {
  what: string;
  changes: readonly FieldChange[];
  onReload: () => void;
  onKeep: () => void;
}

export function ChangedElsewhere({ what, changes, onReload, onKeep }: Props) {
  return (
    <div role="alert" class="changed-elsewhere">
      <p>
        <strong>{what} was changed elsewhere while you were editing.</strong> Your changes are not saved yet.
      </p>
      {changes.length > 0 && (
        <ul>
          {changes.map((c) => (
            <li key={c.field}>
              {c.name}: <bdi>{c.lines.join('; ')}</bdi>
            </li>
          ))}
        </ul>
      )}
      <div class="actions">
        <button type="button" onClick={onReload}>
          Reload (drop my changes)
        </button>
        <button type="button" onClick={onKeep}>
          Keep editing
        </button>
      </div>
    </div>
  );
}
