/**
 * One flag in the table (a card on a phone): its switch, its rollout, its description, each
 * with what became of its last change right next to it, and its usage when the server keeps it.
 * Changes are shown at once and rolled back by the screen when the server does not take them
 * (`onPatch`); each names the flag as it was shown when the user began it (a toggle: at the
 * click; the rollout: when the slider or the number was first moved; the description: when its
 * editor opened), so a change made elsewhere meanwhile is not overwritten unseen.
 */
import { useRef } from 'preact/hooks';
import type { UpdateFlagInput } from '../../src/core/types.js';
import { FeedbackNote, useFeedback } from '../components/feedback.js';
import { LongText } from '../components/long-text.js';
import { CellLabel } from '../components/page-parts.js';
import { Switch } from '../components/switch.js';
import { hereHref } from '../route.js';
import type { FlagUsage } from '../usage/api.js';
import { UsageCells } from '../usage/usage-cells.js';
import { DescriptionEditor } from './description-editor.js';
import type { ListedFlag, PatchOutcome } from './optimistic-patch.js';
import { RolloutControl } from './rollout-control.js';

interface Props {
  flag: ListedFlag;
  /** Its usage; `null` when the server has none for it yet, `undefined`: no usage columns. */
  usage: FlagUsage | null | undefined;
  /** The time "last evaluated" is measured against. */
  now: number;
  editing: boolean;
  onEdit: () => void;
  onStopEditing: () => void;
  /** `began`: the flag as shown when the change began. */
  onPatch: (change: UpdateFlagInput, began: ListedFlag) => Promise<PatchOutcome>;
  onDelete: () => void;
  /** Why the flag may not be changed here (the role), when it may not. */
  readOnly?: string | undefined;
}

export function FlagRow({
  flag,
  usage,
  now,
  editing,
  onEdit,
  onStopEditing,
  onPatch,
  onDelete,
  readOnly,
}: Props) {
  const locked = readOnly !== undefined;
  const { key } = flag;
  const toggled = useFeedback();
  const described = useFeedback();
  /** The flag as shown when the rollout began to move, and when the description's editor opened. */
  const rolloutFrom = useRef(flag);
  const descriptionFrom = useRef(flag);

  const toggle = async (on: boolean) => {
    toggled.set(undefined);
    described.set(undefined);
    const result = await onPatch({ enabled: on }, flag);
    toggled.set(
      result.ok
        ? { kind: 'saved', text: `Saved: ${on ? 'on' : 'off'}` }
        : {
            kind: 'error',
            network: result.network,
            text: `Not saved: ${result.message} The switch is back to ${on ? 'Off' : 'On'}.`,
          },
    );
  };

  const saveDescription = async (description: string | null) => {
    const result = await onPatch({ description }, descriptionFrom.current);
    if (!result.ok) {
      if (!result.current) return result.message;
      // Saved elsewhere meanwhile: said, and a second save replaces it knowingly.
      descriptionFrom.current = result.current;
      const theirs = result.current.description;
      return `it was changed elsewhere meanwhile, to ${theirs ? `“${theirs}”` : 'none'}. Save again to replace it with yours.`;
    }
    onStopEditing();
    described.set({ kind: 'saved', text: 'Description saved' });
    return undefined;
  };

  return (
    <tr>
      <td class="mono key">
        <a href={hereHref('flags', key)}>
          <bdi>{key}</bdi>
        </a>
      </td>
      <td class="type">
        <CellLabel text="Type" />
        {flag.type}
      </td>
      <td class="state">
        <CellLabel text="State" />
        <Switch
          label={`Enabled: ${key}`}
          checked={flag.enabled}
          describedBy={toggled.describedBy}
          disabled={locked}
          title={readOnly}
          onChange={toggle}
        />
        <FeedbackNote feedback={toggled} />
      </td>
      <td class="rollout-cell">
        <CellLabel text="Rollout" />
        {flag.type === 'rollout' ? (
          <RolloutControl
            flagKey={key}
            value={flag.percentage}
            onStart={() => {
              rolloutFrom.current = flag;
            }}
            onCommit={(percentage) => onPatch({ percentage }, rolloutFrom.current)}
            readOnly={readOnly}
          />
        ) : (
          '—'
        )}
      </td>
      {usage !== undefined && <UsageCells usage={usage ?? undefined} now={now} />}
      <td class="desc">
        <CellLabel text="Description" />
        {editing ? (
          <DescriptionEditor
            flagKey={key}
            initial={flag.description ?? ''}
            onCancel={onStopEditing}
            onSave={saveDescription}
          />
        ) : (
          <>
            {flag.description && <LongText text={flag.description} what={`the description of ${key}`} />}
            <span class="cell-actions">
              <button
                type="button"
                id={`edit-${key}`}
                class="small"
                aria-label={`Edit description: ${key}`}
                disabled={locked}
                title={readOnly}
                onClick={() => {
                  described.set(undefined);
                  descriptionFrom.current = flag;
                  onEdit();
                }}
              >
                Edit
              </button>
              <FeedbackNote feedback={described} />
            </span>
          </>
        )}
      </td>
      <td class="row-actions">
        <button
          type="button"
          class="small danger"
          aria-label={`Delete ${key}`}
          disabled={locked}
          title={readOnly}
          onClick={onDelete}
        >
          Delete
        </button>
      </td>
    </tr>
  );
}
