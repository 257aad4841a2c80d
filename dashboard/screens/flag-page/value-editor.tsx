/**
 * A variant's value, edited as the flag's type asks (`docs/protocol.md` §12.1): text for a
 * `string` flag, a number for a `number` flag, JSON for a `json` flag, each checked as typed
 * (JSON parsed, and held to the server's 32 KiB) with the problem next to the field.
 */
import { useId } from 'preact/hooks';
import { TARGETING_LIMITS } from '../../../src/core/targeting/validate-shape.js';
import type { ValueFlagType } from '../../../src/core/types.js';

/** What was typed as a value of `type`: the value, or why it is none. */
export function readValue(type: ValueFlagType, text: string): { value: unknown } | { problem: string } {
  if (type === 'string') return { value: text };
  if (type === 'number') {
    const n = Number(text);
    return text.trim() !== '' && Number.isFinite(n)
      ? { value: n }
      : { problem: 'A number, such as 3 or 0.25.' };
  }
  try {
    const value = JSON.parse(text) as unknown;
    const bytes = new TextEncoder().encode(JSON.stringify(value)).length;
    if (bytes > TARGETING_LIMITS.variantBytes)
      return {
        problem: `At most ${TARGETING_LIMITS.variantBytes.toLocaleString()} bytes of JSON (this is ${bytes.toLocaleString()}).`,
      };
    return { value };
  } catch (error) {
    return { problem: `Not JSON: ${(error as Error).message}` };
  }
}

interface Props {
  type: ValueFlagType;
  label: string;
  text: string;
  onInput: (text: string) => void;
}

export function ValueEditor({ type, label, text, onInput }: Props) {
  const id = useId();
  const read = readValue(type, text);
  const problem = 'problem' in read ? read.problem : undefined;
  const common = {
    id,
    value: text,
    spellcheck: false,
    'aria-invalid': problem ? ('true' as const) : undefined,
    'aria-describedby': problem ? `${id}-p` : undefined,
  };
  return (
    <div class="field grow">
      <label for={id}>{label}</label>
      {type === 'json' ? (
        <textarea {...common} rows={3} class="mono" onInput={(e) => onInput(e.currentTarget.value)} />
      ) : (
        <input
          {...common}
          type="text"
          inputMode={type === 'number' ? 'decimal' : undefined}
          onInput={(e) => onInput(e.currentTarget.value)}
        />
      )}
      {problem && (
        <small id={`${id}-p`} class="problem">
          {problem}
        </small>
      )}
    </div>
  );
}
