/**
 * What became of one control's last change, shown next to that control: "Saved" (announced
 * politely, gone after a few seconds or at the next change), or why it was not saved (announced
 * at once, kept until the next change, or until the connection is back when the network was the
 * reason). The control names the message with `aria-describedby={feedback.describedBy}`.
 */
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { useConnectionBack } from '../events.js';

/** How long a success message stays. */
export const SAVED_MS = 4000;

export type Note =
  | { kind: 'saved'; text: string }
  | { kind: 'error'; text: string; network: boolean }
  | undefined;

export interface Feedback {
  note: Note;
  set: (note: Note) => void;
  /** The id of the error, for `aria-describedby`, while there is one. */
  describedBy: string | undefined;
  id: string;
}

export function useFeedback(): Feedback {
  const id = useId();
  const [note, set] = useState<Note>();
  useEffect(() => {
    if (note?.kind !== 'saved') return;
    const timer = setTimeout(() => set(undefined), SAVED_MS);
    return () => clearTimeout(timer);
  }, [note]);
  useConnectionBack(() => set((n) => (n?.kind === 'error' && n.network ? undefined : n)));
  return { note, set, describedBy: note?.kind === 'error' ? `${id}-error` : undefined, id };
}

/**
 * The message itself, placed right after the control. An error is scrolled into view when it
 * appears (a narrow column can wrap it below the window's edge): nobody misses a change refused.
 */
export function FeedbackNote({ feedback }: { feedback: Feedback }) {
  const { note, id } = feedback;
  const problem = useRef<HTMLSpanElement>(null);
  const error = note?.kind === 'error' ? note.text : undefined;
  useEffect(() => {
    if (error) problem.current?.scrollIntoView({ block: 'nearest' });
  }, [error]);
  return (
    <>
      <span role="status" class="note ok">
        {note?.kind === 'saved' ? note.text : ''}
      </span>
      {note?.kind === 'error' && (
        <span role="alert" id={`${id}-error`} class="note problem" ref={problem}>
          {note.text}
        </span>
      )}
    </>
  );
}
