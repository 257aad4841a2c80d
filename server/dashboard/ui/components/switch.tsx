/** An on/off switch: a native checkbox with the switch role, its state also shown as text. */
export function Switch({
  label,
  checked,
  onChange,
}: {
  label: string;
  checked: boolean;
  onChange: (on: boolean) => void;
}) {
  return (
    <span class="switch">
      <input
        type="checkbox"
        // biome-ignore lint/a11y/useAriaPropsForRole: a native checkbox exposes its checked state itself
        role="switch"
        aria-label={label}
        checked={checked}
        onChange={(e) => onChange(e.currentTarget.checked)}
      />
      <span aria-hidden="true">{checked ? 'On' : 'Off'}</span>
    </span>
  );
}
