/** One flag in the table: its switch, its rollout controls, its description editor. */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { UpdateFlagInput } from '../../../../src/core/types.js';
import { Switch } from '../components/switch.js';
import type { Flag } from '../types.js';
import { useAction } from '../use-action.js';

interface Props {
  flag: Flag;
  editing: boolean;
  onEdit: () => void;
  onStopEditing: () => void;
  onPatch: (change: UpdateFlagInput) => Promise<boolean>;
  onDelete: () => void;
  onProblem: (message: string) => void;
}

export function FlagRow({ flag, editing, onEdit, onStopEditing, onPatch, onDelete, onProblem }: Props) {
  const { key } = flag;
  return (
    <tr>
      <td class="mono key">{key}</td>
      <td>{flag.type}</td>
      <td>
        <Switch
          label={`Enabled: ${key}`}
          checked={flag.enabled}
          onChange={(on) => onPatch({ enabled: on })}
        />
      </td>
      <td>
        {flag.type === 'rollout' ? (
          <Rollout
            flagKey={key}
            value={flag.percentage}
            onCommit={(percentage) => onPatch({ percentage })}
            onInvalid={() =>
              onProblem(`The rollout percentage of ${key} must be a whole number from 0 to 100.`)
            }
          />
        ) : (
          '—'
        )}
      </td>
      <td class="desc">
        {editing ? (
          <DescriptionEditor
            flagKey={key}
            initial={flag.description ?? ''}
            onCancel={onStopEditing}
            onSave={async (description) => (await onPatch({ description })) && onStopEditing()}
          />
        ) : (
          <>
            {flag.description && <span class="desc-text">{flag.description}</span>}{' '}
            <button
              type="button"
              id={`edit-${key}`}
              class="small"
              aria-label={`Edit description: ${key}`}
              onClick={onEdit}
            >
              Edit
            </button>
          </>
        )}
      </td>
      <td>
        <button type="button" class="small danger" aria-label={`Delete ${key}`} onClick={onDelete}>
          Delete
        </button>
      </td>
    </tr>
  );
}

const validPercent = (text: string) => /^\d{1,3}$/.test(text.trim()) && Number(text) <= 100;

/**
 * A slider and a number box showing the same percentage. Dragging only moves them; the value is
 * sent when the slider is let go (`change`) or the number is committed (`change` or Enter).
 */
interface RolloutProps {
  flagKey: string;
  value: number;
  onCommit: (n: number) => void;
  onInvalid: () => void;
}

function Rollout({ flagKey, value, onCommit, onInvalid }: RolloutProps) {
  const [draft, setDraft] = useState<string | null>(null);
  // Enter and the `change` that may follow it commit the same value once.
  const sent = useRef<number | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new value from the server clears what was sent
  useEffect(() => {
    sent.current = null;
  }, [value]);
  const commit = (text: string) => {
    setDraft(null);
    if (!validPercent(text)) return onInvalid();
    const n = Number(text);
    if (n === value || n === sent.current) return;
    sent.current = n;
    onCommit(n);
  };
  const shown = draft ?? String(value);
  return (
    <span class="rollout">
      <input
        type="range"
        min={0}
        max={100}
        step={1}
        aria-label={`Rollout percentage: ${flagKey}`}
        value={validPercent(shown) ? shown : String(value)}
        onInput={(e) => setDraft(e.currentTarget.value)}
        onChange={(e) => commit(e.currentTarget.value)}
      />
      <input
        type="number"
        min={0}
        max={100}
        step={1}
        class="pct"
        aria-label={`Rollout percent number: ${flagKey}`}
        value={shown}
        onInput={(e) => setDraft(e.currentTarget.value)}
        onChange={(e) => commit(e.currentTarget.value)}
        onKeyDown={(e) => e.key === 'Enter' && commit(e.currentTarget.value)}
      />
      <span aria-hidden="true">%</span>
    </span>
  );
}

interface EditorProps {
  flagKey: string;
  initial: string;
  onSave: (description: string | null) => Promise<unknown>;
  onCancel: () => void;
}

function DescriptionEditor({ flagKey, initial, onSave, onCancel }: EditorProps) {
  const [text, setText] = useState(initial);
  const { busy, run } = useAction();
  const area = useRef<HTMLTextAreaElement>(null);
  useEffect(() => area.current?.focus(), []);
  const submit = async (e: Event) => {
    e.preventDefault();
    await run(() => onSave(text.trim() === '' ? null : text));
  };
  return (
    <form class="desc-edit" onSubmit={submit}>
      <textarea
        ref={area}
        rows={2}
        maxLength={1000}
        aria-label={`Description of ${flagKey}`}
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => e.key === 'Escape' && onCancel()}
      />
      <span class="actions">
        <button type="submit" class="small primary" disabled={busy}>
          Save description
        </button>
        <button type="button" class="small" onClick={onCancel}>
          Cancel
        </button>
      </span>
    </form>
  );
}
