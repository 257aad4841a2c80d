/**
 * A key input (flag, project or environment key) checked as the user types, with the rule the
 * server applies (`docs/protocol.md` §3.1). The rule and any problem are tied to the input with
 * `aria-describedby`, so a screen reader reads them with the field.
 */
import { useId } from 'preact/hooks';
import { FLAG_KEY_MAX_LENGTH, FLAG_KEY_PATTERN } from '../../src/core/limits.js';

/** Why `key` cannot be used, or `undefined` when it can (an empty key is "not yet", not a problem). */
export function keyProblem(key: string, taken: readonly string[], what: string): string | undefined {
  if (key === '') return undefined;
  if (key.length > FLAG_KEY_MAX_LENGTH)
    return `Too long: at most ${FLAG_KEY_MAX_LENGTH} characters (now ${key.length}).`;
  if (!/^[A-Za-z0-9]/.test(key)) return 'Must start with a letter or a digit.';
  if (!FLAG_KEY_PATTERN.test(key)) return 'Only letters, digits, ".", "_" and "-" are allowed.';
  if (taken.includes(key)) return `${what} "${key}" already exists.`;
  return undefined;
}

export const keyUsable = (key: string, problem: string | undefined): boolean => key !== '' && !problem;

interface Props {
  /** The input's id, when something else must find it (an empty state's "create" button). */
  id?: string;
  label: string;
  value: string;
  problem: string | undefined;
  onInput: (value: string) => void;
}

export function KeyField({ id: given, label, value, problem, onInput }: Props) {
  const generated = useId();
  const id = given ?? generated;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        type="text"
        value={value}
        maxLength={FLAG_KEY_MAX_LENGTH + 1}
        autocomplete="off"
        spellcheck={false}
        aria-invalid={problem ? 'true' : undefined}
        aria-describedby={`${id}-rule${problem ? ` ${id}-problem` : ''}`}
        onInput={(e) => onInput(e.currentTarget.value)}
      />
      <small id={`${id}-rule`} class="hint">
        Up to 128 letters, digits, ".", "_" or "-", starting with a letter or digit.
      </small>
      {problem && (
        <small id={`${id}-problem`} class="problem">
          {problem}
        </small>
      )}
    </div>
  );
}
