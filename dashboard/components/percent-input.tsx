/**
 * A percentage to three decimals (a split's slice: thousandths of a percent on the wire). What
 * is typed stays as typed while it is not a percentage, with the rule next to it; a valid one is
 * passed on at once, capped at `max` (the others' share of a split that must make 100 %).
 */
import { useEffect, useId, useState } from 'preact/hooks';

const PERCENT = /^\d{1,3}(?:[.,]\d{0,3})?$/;

/** Thousandths of a percent as typed text: `33.333`. */
export const percentField = (weight: number): string => String(Number((weight / 1000).toFixed(3)));

interface Props {
  label: string;
  /** Thousandths of a percent. */
  value: number;
  max: number;
  onChange: (weight: number) => void;
}

export function PercentInput({ label, value, max, onChange }: Props) {
  const id = useId();
  const [text, setText] = useState(percentField(value));
  const [capped, setCapped] = useState(false);
  useEffect(() => {
    setText((t) => (read(t) === value ? t : percentField(value)));
  }, [value]);
  const problem =
    read(text) === undefined ? 'A percentage from 0 to 100, at most three decimals.' : undefined;
  return (
    <span class="percent">
      <label for={id}>{label}</label>
      <input
        id={id}
        type="text"
        inputMode="decimal"
        class="pct"
        value={text}
        aria-invalid={problem ? 'true' : undefined}
        aria-describedby={problem || capped ? `${id}-p` : undefined}
        onInput={(e) => {
          const typed = e.currentTarget.value;
          setText(typed);
          const weight = read(typed);
          if (weight === undefined) return;
          setCapped(weight > max);
          onChange(Math.min(weight, max));
        }}
        onBlur={() => {
          setCapped(false);
          if (!problem) setText(percentField(value));
        }}
      />
      <span aria-hidden="true"> %</span>
      {(problem || capped) && (
        <small id={`${id}-p`} class="problem">
          {problem ?? `At most ${percentField(max)} %: the other slices take the rest.`}
        </small>
      )}
    </span>
  );
}

/** Typed text as thousandths of a percent, or `undefined` when it is no percentage. */
function read(text: string): number | undefined {
  const trimmed = text.trim();
  if (!PERCENT.test(trimmed)) return undefined;
  const weight = Math.round(Number(trimmed.replace(',', '.')) * 1000);
  return weight <= 100_000 ? weight : undefined;
}
