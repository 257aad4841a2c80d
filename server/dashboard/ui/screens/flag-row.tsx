/**
 * One flag in the table (a card on a phone): its switch, its rollout, its description, each
 * with what became of its last change right next to it, and its usage when the server keeps it.
 * Changes are shown at once and rolled back by the screen when the server does not take them
 * (`onPatch`).
 */
import type { UpdateFlagInput } from '../../../../src/core/types.js';
import { CellLabel } from '../components/bits.js';
import { FeedbackNote, useFeedback } from '../components/feedback.js';
import { LongText } from '../components/long-text.js';
import { Switch } from '../components/switch.js';
import { hereHref } from '../route.js';
import type { Flag } from '../types.js';
import type { FlagUsage } from '../usage/api.js';
import { UsageCells } from '../usage/usage-cells.js';
import { DescriptionEditor } from './description-editor.js';
import { RolloutControl } from './rollout-control.js';

/** What became of a change: saved, or why not (`network`: the server could not be reached). */
export type PatchOutcome = { ok: true } | { ok: false; message: string; network: boolean };

interface Props {
  flag: Flag;
  /** Its usage; `null` when the server has none for it yet, `undefined`: no usage columns. */
  usage: FlagUsage | null | undefined;
  /** The time "last evaluated" is measured against. */
  now: number;
  editing: boolean;
  onEdit: () => void;
  onStopEditing: () => void;
  onPatch: (change: UpdateFlagInput) => Promise<PatchOutcome>;
  onDelete: () => void;
}

export function FlagRow({ flag, usage, now, editing, onEdit, onStopEditing, onPatch, onDelete }: Props) {
  const { key } = flag;
  const toggled = useFeedback();
  const described = useFeedback();

  const toggle = async (on: boolean) => {
    toggled.set(undefined);
    described.set(undefined);
    const result = await onPatch({ enabled: on });
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
    const result = await onPatch({ description });
    if (!result.ok) return result.message;
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
            onCommit={(percentage) => onPatch({ percentage })}
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
                onClick={() => {
                  described.set(undefined);
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
        <button type="button" class="small danger" aria-label={`Delete ${key}`} onClick={onDelete}>
          Delete
        </button>
      </td>
    </tr>
  );
}
