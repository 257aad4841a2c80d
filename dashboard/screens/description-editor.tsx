/**
 * Edits a flag's description in its row. Its length is counted against the server's limit as
 * the user types; text over it is kept, not cut, and not sent. A failure to save is shown in the
 * form, which stays open with the text as written.
 */
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { DESCRIPTION_MAX_LENGTH } from '../../src/core/limits.js';
import { CharCount, overBy } from '../components/char-count.js';
import { ErrorText } from '../components/page-parts.js';
import { useAction } from '../use-action.js';

interface Props {
  flagKey: string;
  initial: string;
  /** Resolves to the failure's message, or `undefined` when saved. */
  onSave: (description: string | null) => Promise<string | undefined>;
  onCancel: () => void;
}

export function DescriptionEditor({ flagKey, initial, onSave, onCancel }: Props) {
  const id = useId();
  const [text, setText] = useState(initial);
  const { busy, error, run } = useAction();
  const area = useRef<HTMLTextAreaElement>(null);
  useEffect(() => area.current?.focus(), []);
  const over = overBy(text, DESCRIPTION_MAX_LENGTH) > 0;
  const submit = async (e: Event) => {
    e.preventDefault();
    if (over) return;
    await run(async () => {
      const problem = await onSave(text.trim() === '' ? null : text);
      if (problem !== undefined) throw new Error(`Not saved: ${problem}`);
    });
  };
  return (
    <form class="desc-edit" onSubmit={submit}>
      <textarea
        ref={area}
        rows={3}
        aria-label={`Description of ${flagKey}`}
        aria-invalid={over ? 'true' : undefined}
        aria-describedby={`${id}-count`}
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => e.key === 'Escape' && onCancel()}
      />
      <CharCount id={`${id}-count`} text={text} max={DESCRIPTION_MAX_LENGTH} />
      <ErrorText message={error} />
      <span class="actions">
        <button type="submit" class="small primary" disabled={busy || over}>
          Save description
        </button>
        <button type="button" class="small" onClick={onCancel}>
          Cancel
        </button>
      </span>
    </form>
  );
}
