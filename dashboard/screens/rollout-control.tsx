/**
 * A rollout's percentage: a slider and a number box showing the same value, and what became of
 * the last change next to them. A change is sent once, when the user is done with it: a drag
 * when the slider is let go (`change`), keyboard steps on either input when the keys have been
 * still for a moment or the focus leaves, a typed number on Enter or when it loses focus. A
 * number out of range stays as typed, explained next to it, until corrected or Escape.
 * `onStart` says when a change begins (the first move since the last one was sent or dropped).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { FeedbackNote, useFeedback } from '../components/feedback.js';
import type { PatchOutcome } from './optimistic-patch.js';

/** Quiet time after the last key before keyboard steps are sent. */
const KEYS_SETTLE_MS = 700;

const STEP_KEYS = new Set([
  'ArrowUp',
  'ArrowDown',
  'ArrowLeft',
  'ArrowRight',
  'PageUp',
  'PageDown',
  'Home',
  'End',
]);

const validPercent = (text: string) => /^\d{1,3}$/.test(text.trim()) && Number(text) <= 100;

interface Props {
  flagKey: string;
  value: number;
  onStart: () => void;
  onCommit: (n: number) => Promise<PatchOutcome>;
  /** Why it may not be changed (the role), when it may not. */
  readOnly?: string | undefined;
}

export function RolloutControl({ flagKey, value, onStart, onCommit, readOnly }: Props) {
  const [draft, setDraft] = useState<string | null>(null);
  const [invalid, setInvalid] = useState(false);
  const feedback = useFeedback();
  // Enter and the `change` that may follow it commit the same value once.
  const sent = useRef<number | null>(null);
  const keyed = useRef(false);
  const timer = useRef<ReturnType<typeof setTimeout>>();
  const pending = useRef<string | null>(null);
  const started = useRef(false);
  const start = () => {
    if (!started.current) onStart();
    started.current = true;
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new value from the server clears what was sent
  useEffect(() => {
    sent.current = null;
  }, [value]);

  const commit = async (text: string) => {
    started.current = false;
    clearTimeout(timer.current);
    pending.current = null;
    keyed.current = false;
    if (!validPercent(text)) {
      setDraft(text);
      setInvalid(true);
      feedback.set({
        kind: 'error',
        network: false,
        text: `Not saved: the rollout must be a whole number from 0 to 100 (saved: ${value}\u00a0%). Press Escape to go back.`,
      });
      return;
    }
    setDraft(null);
    setInvalid(false);
    const n = Number(text);
    if (n === value || n === sent.current) {
      if (feedback.note?.kind === 'error') feedback.set(undefined);
      return;
    }
    sent.current = n;
    feedback.set(undefined);
    const result = await onCommit(n);
    feedback.set(
      result.ok
        ? { kind: 'saved', text: `Saved: ${n}\u00a0%` }
        : {
            kind: 'error',
            network: result.network,
            // Changed elsewhere: the list shows their value by now.
            text: `Not saved: ${result.message}${result.current ? '' : ` Back to ${value}\u00a0%.`}`,
          },
    );
  };

  // The timer calls the commit of the newest render (the saved value may have moved meanwhile).
  const latestCommit = useRef(commit);
  latestCommit.current = commit;
  // Steps still waiting for the keys to be still are sent, not dropped, when the row goes away.
  useEffect(
    () => () => {
      clearTimeout(timer.current);
      if (pending.current !== null) latestCommit.current(pending.current);
    },
    [],
  );

  /** A keyboard step: sent once the keys are still. */
  const settle = (text: string) => {
    pending.current = text;
    clearTimeout(timer.current);
    timer.current = setTimeout(
      () => pending.current !== null && latestCommit.current(pending.current),
      KEYS_SETTLE_MS,
    );
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (STEP_KEYS.has(e.key)) keyed.current = true;
  };
  const onKeyUp = () => pending.current !== null && settle(pending.current);
  const onChange = (text: string) => (keyed.current ? settle(text) : commit(text));
  const onBlur = () => pending.current !== null && commit(pending.current);

  const shown = draft ?? String(value);
  return (
    <span class="rollout-control">
      <span class="rollout" title={readOnly}>
        <input
          type="range"
          min={0}
          max={100}
          step={1}
          aria-label={`Rollout percentage: ${flagKey}`}
          disabled={readOnly !== undefined}
          value={validPercent(shown) ? shown : String(value)}
          onPointerDown={() => {
            keyed.current = false;
          }}
          onKeyDown={onKeyDown}
          onKeyUp={onKeyUp}
          onBlur={onBlur}
          onInput={(e) => {
            start();
            setDraft(e.currentTarget.value);
            setInvalid(false);
          }}
          onChange={(e) => onChange(e.currentTarget.value)}
        />
        <input
          type="number"
          min={0}
          max={100}
          step={1}
          class="pct"
          aria-label={`Rollout percent number: ${flagKey}`}
          disabled={readOnly !== undefined}
          aria-invalid={invalid ? 'true' : undefined}
          aria-describedby={feedback.describedBy}
          value={shown}
          onInput={(e) => {
            start();
            setDraft(e.currentTarget.value);
          }}
          onKeyDown={(e) => {
            onKeyDown(e);
            if (e.key === 'Enter') commit(e.currentTarget.value);
            if (e.key === 'Escape') {
              started.current = false;
              clearTimeout(timer.current);
              pending.current = null;
              setDraft(null);
              setInvalid(false);
              feedback.set(undefined);
            }
          }}
          onKeyUp={onKeyUp}
          onBlur={onBlur}
          onChange={(e) => onChange(e.currentTarget.value)}
        />
        <span aria-hidden="true">%</span>
      </span>
      <FeedbackNote feedback={feedback} />
    </span>
  );
}
