/** An on/off switch: a native checkbox with the switch role, its state also shown as text. */
export function Switch({
  label,
  checked,
  describedBy,
  disabled,
  title,
  onChange,
}: {
  label: string;
  checked: boolean;
  /** The id of what else to read with it (the error of its last change). */
  describedBy?: string | undefined;
  /** Not to be changed (the role does not allow it): `title` says why. */
  disabled?: boolean;
  title?: string | undefined;
  onChange: (on: boolean) => void;
}) {
  return (
    <span class="switch" title={title}>
      <input
        type="checkbox"
        // biome-ignore lint/a11y/useAriaPropsForRole: a native checkbox exposes its checked state itself
        role="switch"
        aria-label={label}
        aria-describedby={describedBy}
        checked={checked}
        disabled={disabled}
        onChange={(e) => onChange(e.currentTarget.checked)}
      />
      <span aria-hidden="true">{checked ? 'On' : 'Off'}</span>
    </span>
  );
}
