/**
 * Says that what is being edited was changed elsewhere (the API, another tab, a teammate) since
 * the edit began, what that change was, and offers the ways on: merge (field by field, `MergeDialog`),
 * reload the saved version (the edit is dropped) or keep editing (the edit goes on from the new
 * version, taking what only it changed; the review before saving compares with it, so it lists
 * everything saving would change, their keys removed included). Nothing is overwritten without a choice.
 */
import type { FieldChange } from '../targeting/diff.js';

interface Props {
  what: string;
  changes: readonly FieldChange[];
  onMerge: () => void;
  onReload: () => void;
  onKeep: () => void;
}

export function ChangedElsewhere({ what, changes, onMerge, onReload, onKeep }: Props) {
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
        <button type="button" onClick={onMerge}>
          Merge with my changes
        </button>
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
