/**
 * Shows a secret (an API key, a webhook signing secret) the one time the server reveals it.
 * The value lives only in the parent's state until `Done`, never in storage or the URL.
 */
import { useEffect, useId, useRef } from 'preact/hooks';
import { CopyButton } from './copy-button.js';

interface Props {
  title: string;
  value: string;
  valueLabel: string;
  copyLabel: string;
  note: string;
  onDone: () => void;
}

export function SecretPanel({ title, value, valueLabel, copyLabel, note, onDone }: Props) {
  const id = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section class="panel secret" aria-labelledby={id}>
      <h3 id={id} ref={heading} tabIndex={-1}>
        {title}
      </h3>
      <output class="secret-value" aria-label={valueLabel}>
        {value}
      </output>
      <p>{note}</p>
      <div class="actions">
        <CopyButton label={copyLabel} text={value} />
        <button type="button" onClick={onDone}>
          Done
        </button>
      </div>
    </section>
  );
}
