/**
 * The initial percentage of a new rollout flag: a whole number from 0 to 100, the problem said
 * next to the field while it is not one. Used by both new-flag forms.
 */
export interface InitialPercentProps {
  /** The form's id prefix: the field is `${id}-p`, its problem `${id}-pp`. */
  id: string;
  value: string;
  ok: boolean;
  onInput: (value: string) => void;
}

export function InitialPercent({ id, value, ok, onInput }: InitialPercentProps) {
  return (
    <div class="field">
      <label for={`${id}-p`}>Initial percentage</label>
      <input
        id={`${id}-p`}
        type="number"
        min={0}
        max={100}
        step={1}
        class="pct"
        value={value}
        aria-invalid={ok ? undefined : 'true'}
        aria-describedby={ok ? undefined : `${id}-pp`}
        onInput={(e) => onInput(e.currentTarget.value)}
      />
      {!ok && (
        <small id={`${id}-pp`} class="problem">
          A whole number from 0 to 100.
        </small>
      )}
    </div>
  );
}
